/**
 * What `npm run acceptance` builds (scripts/acceptance.ts, not part of this suite): each
 * repository's pipeline is one the runner accepts, with its cache on both steps and the test step
 * after the install; the cache lines it counts are the ones the cache containers print
 * (lib/kube/cache-scripts.ts); and init's files are built with the stand-in in every step's image
 * and nothing else changed.
 */
import { checkPipeline } from '../lib/pipeline/parse.js';
import { REPOSITORIES, cacheLines, pipelineFor } from '../scripts/acceptance/repositories.js';
import { withStandInImage } from '../scripts/acceptance/starters.js';

describe.each(REPOSITORIES.map((repository) => [repository.name, repository] as const))('the %s pipeline', (_name, repository) => {
  const check = checkPipeline(pipelineFor(repository, '127.0.0.1:5000/acceptance/node:20.20.2'), '.step-runner.yml');

  it('is accepted: the install restores and saves node_modules, the test step needs it and only pulls', () => {
    if (!check.ok) throw new Error(JSON.stringify(check.problems));
    const steps = check.pipeline.steps.map((step) => ({ name: step.name, needs: step.needs, cache: step.cache?.map((c) => ({ files: c.key.files, paths: c.paths, policy: c.policy })) }));
    const cache = (policy: string) => [{ files: repository.keyFiles, paths: ['node_modules'], policy }];
    expect(steps).toEqual([
      { name: 'install', needs: undefined, cache: cache('pull-push') },
      { name: 'test', needs: ['install'], cache: cache('pull') },
    ]);
  });
});

it.each([
  ['restored from an entry', 'cache npm-1a2b: restored from npm-1a2b… (this branch) (8.5 MB, 3 s)', 'restored'],
  ['restored by a step before it', 'cache npm-1a2b: restored into this workspace by step "install" (from npm-1a2b… (this branch); waited 0 s)', 'restored'],
  ['a miss', 'cache npm-1a2b: miss (nothing saved as npm-1a2b… on this branch)', 'missed'],
  ['a miss a step before it had', 'cache npm-1a2b: miss (step "install" found nothing to restore into this workspace)', 'missed'],
  ['a save', 'cache npm-1a2b: saved (16.9 MB, 4 s)', 'saved'],
  ['no cache at all', 'cache: this step runs without its cache: the clone printed no hash', 'without'],
  ['a command that prints the word', '+ echo "cache npm-1a2b: restored from"', undefined],
])('%s', (_what, line, kind) => {
  const found = Object.entries(cacheLines(`+ npm test\n${line}\nok\n`)).filter(([, lines]) => lines.length > 0).map(([name]) => name);
  expect(found).toEqual(kind ? [kind] : []);
});

it("puts the stand-in in every step's image of init's file, and leaves its comments as they are", () => {
  const written = ['steps:', '  - name: install', '    image: node:22-slim', '  - image: node:22-slim', '    name: test', '  # - name: lint', '  #   image: node:22-slim', ''].join('\n');
  const { text, replaced } = withStandInImage(written, '127.0.0.1:5000/acceptance/node:20.20.2');
  expect(replaced).toEqual(['node:22-slim']);
  expect(text).toBe(written.replace('    image: node:22-slim', '    image: 127.0.0.1:5000/acceptance/node:20.20.2').replace('  - image: node:22-slim', '  - image: 127.0.0.1:5000/acceptance/node:20.20.2'));
});
