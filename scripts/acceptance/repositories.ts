/**
 * The repositories the acceptance builds (issue 37, "Done when"), each pinned to a commit, and
 * the pipeline each is built with: an install step from an npm cache the host filled (no registry
 * is reachable from a container here) with a cache of node_modules keyed on the tracked files that
 * fix the dependencies, and a test step that needs it. Pure: no I/O.
 */
import { stringify } from 'yaml';

export interface AcceptanceRepository {
  /** Short name: the fixture's folder, the table's row. */
  name: string;
  /** owner/name on GitHub: cloned from the mirror named like `owner+name` when there is one. */
  github: string;
  commit: string;
  /** Tracked files whose content decides node_modules (the cache key). */
  keyFiles: string[];
  /** The install when node_modules was not restored; `--cache` and `--offline` are added. */
  install: 'npm ci' | 'npm install';
  /** The test step's commands. */
  test: string[];
  /** Why the test command is not simply `npm test`, when it is not. */
  note?: string;
}

export const REPOSITORIES: readonly AcceptanceRepository[] = [
  {
    name: 'kleur',
    github: 'lukeed/kleur',
    commit: 'fa3454483899ddab550d08c18c028e6db1aab0e5', // v4.1.5
    // No lock file in the repository (its .gitignore drops them): package.json pins the two devDependencies.
    keyFiles: ['package.json'],
    install: 'npm install',
    test: ['npm test'],
  },
  {
    name: 'commander.js',
    github: 'tj/commander.js',
    commit: 'ba6d13ddb4243e5913367734f8c159089ffe7834',
    keyFiles: ['package-lock.json'],
    install: 'npm ci',
    test: ['npm test'],
  },
  {
    name: 'slugify',
    // The issue named sindresorhus/slugify; simov/slugify is the one fetched here (the npm package `slugify`).
    github: 'simov/slugify',
    commit: '29e903d2a0fb4460e2af375aadabcdd3b54777fc', // v1.6.9
    keyFiles: ['package.json'],
    install: 'npm install',
    test: ['npm test'],
  },
];

/** Where the host-filled npm cache sits in the work tree, so the checkout carries it into the workspace. */
export const OFFLINE_CACHE = '.npm-offline';

/**
 * The pipeline file: the install step restores node_modules (and saves it when its key missed) and
 * runs npm only when nothing was restored; the test step needs it and pulls the same entry, which
 * the shared workspace already holds, so it says who restored it.
 */
export function pipelineFor(repository: AcceptanceRepository, image: string): string {
  const cache = (policy?: 'pull') => [{ key: { files: repository.keyFiles, prefix: 'npm' }, paths: ['node_modules'], ...(policy ? { policy } : {}) }];
  const install = `${repository.install} --offline --cache ${OFFLINE_CACHE} --no-audit --no-fund`;
  const pipeline = {
    version: 1,
    steps: [
      { name: 'install', image, cache: cache(), commands: [`if [ -d node_modules ]; then echo "node_modules from the cache: npm not run"; else ${install}; fi`] },
      { name: 'test', image, needs: ['install'], cache: cache('pull'), commands: repository.test },
    ],
  };
  return `# Written by scripts/acceptance.ts: ${repository.github} at ${repository.commit.slice(0, 12)}\n${stringify(pipeline, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

/** What a step's log says about one cache: restored (by itself or a sibling), a miss, saved. */
export interface CacheLines {
  restored: string[];
  missed: string[];
  saved: string[];
  without: string[];
}

export function cacheLines(log: string): CacheLines {
  const lines = log.split('\n');
  return {
    restored: lines.filter((line) => /^cache \S+: restored (from|into this workspace)/.test(line)),
    missed: lines.filter((line) => /^cache \S+: miss/.test(line)),
    saved: lines.filter((line) => /^cache \S+: saved /.test(line)),
    without: lines.filter((line) => line.startsWith('cache: this step runs without its cache')),
  };
}
