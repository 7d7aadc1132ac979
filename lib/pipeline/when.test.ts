import { parsePipeline } from './parse.js';
import { InvalidPipeline } from './errors.js';
import { branchMatches, buildBranch, buildEvent, skipReason } from './when.js';

describe('when.branch patterns', () => {
  test.each([
    ['main', 'main', true],
    ['main', 'maine', false],
    ['main', 'feature/main', false],
    ['release/*', 'release/1.2', true],
    ['release/*', 'release/1.2/hotfix', false],
    ['release/*', 'release', false],
    ['release/**', 'release/1.2/hotfix', true],
    ['**', 'any/thing/at/all', true],
    ['*', 'feature/x', false],
    ['feature-*', 'feature-login', true],
    ['v?', 'v1', true],
    ['v?', 'v12', false],
    ['v1.0', 'v1x0', false],
    ['fix+[a]', 'fix+[a]', true],
  ])('%j matches %j: %s', (pattern, branch, matches) => {
    expect(branchMatches(pattern, branch)).toBe(matches);
  });
});

describe('a build\'s branch and event', () => {
  test.each([
    [{ ref: 'refs/heads/main', event: 'push' }, 'main', 'push'],
    [{ ref: 'refs/heads/feature/x', event: 'generic' }, 'feature/x', 'generic'],
    [{ ref: 'refs/tags/v1.0', event: 'generic' }, undefined, 'tag'],
    [{ ref: 'refs/tags/v1.0', event: 'push' }, undefined, 'tag'],
    // As GitHub Actions' `branches`: a pull request is on its base branch.
    [{ ref: 'refs/pull/7/head', event: 'pull_request', baseRef: 'refs/heads/main' }, 'main', 'pull_request'],
    [{ ref: 'refs/pull/7/head', event: 'pull_request' }, undefined, 'pull_request'],
    [{ event: 'local' }, undefined, 'local'],
  ])('%j is on branch %j, event %j', (build, branch, event) => {
    expect(buildBranch(build)).toBe(branch);
    expect(buildEvent(build)).toBe(event);
  });
});

describe('whether a step runs', () => {
  const main = { ref: 'refs/heads/main', event: 'push' };
  test.each([
    [undefined, main, undefined],
    [{}, main, undefined],
    [{ branch: ['main', 'release/*'] }, main, undefined],
    [{ branch: ['main', 'release/*'] }, { ref: 'refs/heads/release/2', event: 'push' }, undefined],
    [{ branch: ['main', 'release/*'] }, { ref: 'refs/heads/feature/x', event: 'push' }, 'branch feature/x is not main, release/*'],
    [{ branch: ['main'] }, { ref: 'refs/tags/v1', event: 'generic' }, 'the build is on a tag (refs/tags/v1), and the step runs on main only'],
    [{ branch: ['main'] }, { event: 'local' }, 'the build is on no branch, and the step runs on main only'],
    [{ event: ['push', 'tag'] as const }, main, undefined],
    [{ event: ['push', 'tag'] as const }, { ref: 'refs/tags/v1', event: 'generic' }, undefined],
    [{ event: ['tag'] as const }, main, 'event push is not tag'],
    [{ event: ['pull_request'] as const }, main, 'event push is not pull_request'],
    // A local run counts as a push (and as local).
    [{ event: ['push'] as const }, { ref: 'refs/heads/main', event: 'local' }, undefined],
    [{ event: ['local'] as const }, { ref: 'refs/heads/main', event: 'local' }, undefined],
    [{ event: ['generic'] as const }, { ref: 'refs/heads/main', event: 'local' }, 'event local is not generic'],
    [{ branch: ['main'], event: ['pull_request'] as const }, { ref: 'refs/pull/3/head', event: 'pull_request', baseRef: 'refs/heads/main' }, undefined],
    [{ branch: ['main'], event: ['push', 'pull_request'] as const }, { ref: 'refs/pull/3/head', event: 'pull_request', baseRef: 'refs/heads/dev' }, 'branch dev is not main'],
  ])('when %j for %j: %j', (when, build, reason) => {
    expect(skipReason(when as never, build)).toBe(reason);
  });
});

describe('the when key in a pipeline file', () => {
  const file = (when: string) => `version: 1\ncheckout: false\nsteps:\n  - name: deploy\n    image: alpine:3.20\n    commands: [echo hi]\n${when}`;
  const problem = (text: string) => {
    try {
      parsePipeline(text, 'when.yml');
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidPipeline);
      return (error as Error).message;
    }
    throw new Error('the pipeline was accepted');
  };

  test('branch and event lists are kept; a single one is a list of one', () => {
    const pipeline = parsePipeline(file('    when:\n      branch: [main, "release/*"]\n      event: push\n'), 'when.yml');
    expect(pipeline.steps[0]!.when).toEqual({ branch: ['main', 'release/*'], event: ['push'] });
  });

  test('an empty when is no condition', () => {
    expect(parsePipeline(file('    when: {}\n'), 'when.yml').steps[0]!.when).toBeUndefined();
  });

  test.each([
    ['    when:\n      event: [push, release]\n', 'when.yml line 8: step "deploy": when.event[1]: each event must be one of push, pull_request, tag, generic, local, manual, schedule, not the text "release"'],
    ['    when:\n      branch: []\n', 'when.yml line 8: step "deploy": when.branch: must list at least one branch'],
    ['    when:\n      branch: [main, 3]\n', 'when.yml line 8: step "deploy": when.branch[1]: each branch must be text (a name or a glob such as "release/*"), not the number 3'],
    ['    when:\n      event: []\n', 'when.yml line 8: step "deploy": when.event: must list at least one event'],
    ['    when: main\n', 'when.yml line 7: step "deploy": when: must be a map with branch, event, status, paths and/or paths-ignore, not the text "main"'],
    ['    when:\n      status: [success, failure]\n', 'when.yml line 8: step "deploy": when.status: lists both success and failure: a step runs either while the build has not failed (success, the default) or after it has (failure); for a step that must run either way, write two steps'],
    ['    when:\n      status: [done]\n', 'when.yml line 8: step "deploy": when.status[0]: each status must be success or failure, not the text "done"'],
    ['    when:\n      state: [failure]\n', 'when.yml line 8: step "deploy": unknown field "state" (did you mean "status"?)'],
    ['    when:\n      branches: [main]\n', 'when.yml line 8: step "deploy": unknown field "branches" (did you mean "branch"?)'],
  ])('%j is refused', (when, message) => {
    expect(problem(file(when))).toBe(message);
  });
});
