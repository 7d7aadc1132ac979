import { skippedBuildDescription, skippedByPaths, undecidedPathsNote } from './skipped-build.js';

const skip = (name: string, reason: string, index = 0) => ({ name, index, reason });

describe('the status of a build that runs no step', () => {
  test.each([
    [[skip('a', "the pipeline's when.paths: no changed file matches src/**"), skip('b', "the pipeline's when.paths: no changed file matches src/**", 1)], true, "Skipped by the pipeline's when.paths: no changed file matches src/**"],
    [[skip('api', 'when.paths: no changed file matches services/api/**')], true, 'Skipped by when.paths: no changed file matches services/api/**'],
    [
      [skip('api', 'when.paths: no changed file matches services/api/**'), skip('deploy', 'it needs "api", which is skipped', 1), skip('lint', 'when.paths-ignore: every changed file matches docs/**', 2)],
      true,
      "Skipped by when.paths: the change touches none of the 3 steps' files",
    ],
    [[skip('deploy', 'branch feature/x is not main')], false, 'Skipped: the only step\'s when does not hold (branch feature/x is not main)'],
    [[skip('api', 'when.paths: no changed file matches services/api/**'), skip('deploy', 'branch feature/x is not main', 1)], false, 'Skipped: the when of each of the 2 steps does not hold for this build'],
  ])('%j: by paths %s, %j', (skipped, byPaths, description) => {
    expect(skippedByPaths(skipped)).toBe(byPaths);
    expect(skippedBuildDescription(skipped)).toBe(description);
  });
});

describe('the log line when paths cannot be decided', () => {
  test.each([
    [undefined, 'when.paths is not decided: the build has no change to decide it from (a manual run, a re-run, or a local run without --changed or --base), so no step is skipped by its paths'],
    [{ known: false as const, why: 'the push created the branch' }, 'when.paths is not decided: the push created the branch, so no step is skipped by its paths'],
    [{ known: true as const, files: [] }, undefined],
  ])('%j: %j', (changes, note) => {
    expect(undecidedPathsNote(changes)).toBe(note);
  });
});
