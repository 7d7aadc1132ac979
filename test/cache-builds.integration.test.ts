/**
 * The cache between builds, through the real definition on the embedded cluster, with the local
 * stack's S3 as the store: what a user sees from one build to the next (issue 26's "done when").
 * Each build's install step says in its log where its `deps` came from.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { localBuildsForFile, type LocalBuildExtras } from './fixtures/local-builds.js';

const builds = localBuildsForFile({ prefix: 'cache-builds', repository: true, cache: true });

const PIPELINE = `version: 1
cache:
  - key:
      files: [package-lock.json]
      prefix: deps
    paths: [deps]
    fallback-keys: [deps-]
steps:
  - name: install
    image: busybox:1.37
    commands:
      - |
        if [ -f deps/lib.txt ]; then echo "deps from the cache: $(cat deps/lib.txt)"; else mkdir -p deps && echo "downloaded for $(cat package-lock.json)" > deps/lib.txt && echo downloaded; fi
  - name: test
    image: busybox:1.37
    cache: []
    commands: [cat deps/lib.txt]
`;

let n = 0;

/** One build; its install step's log. */
async function install(extra: LocalBuildExtras = {}): Promise<string> {
  const id = `cache-${++n}`;
  const { summary } = await builds.build(id, PIPELINE, extra);
  expect({ id, status: summary.status, error: summary.error, cause: summary.cause }).toEqual({ id, status: 'SUCCEEDED', error: null, cause: null });
  return readFile(path.join(builds.root, 'logs', id, 'install.log'), 'utf8');
}

const forkPullRequest = { ref: 'refs/pull/7/head', event: 'pull_request', baseRef: 'refs/heads/main', pullRequest: { number: 7, fork: true }, defaultBranch: 'main' };
const ownPullRequest = { ref: 'refs/pull/8/head', event: 'pull_request', baseRef: 'refs/heads/main', pullRequest: { number: 8, fork: false }, defaultBranch: 'main' };

describe('a cache between builds', () => {
  beforeAll(() => builds.commit({ 'package-lock.json': 'lock v1\n' }));

  it('misses and saves on the first build, then restores on the next, which skips the download and the save', async () => {
    const first = await install();
    expect(first).toMatch(/^cache deps-[0-9a-f]{40}: miss \(nothing saved as deps-[0-9a-f]{12}… or under deps- on this branch\)$/m);
    expect(first).toContain('\ndownloaded\n');
    expect(first).toMatch(/^cache deps-[0-9a-f]{40}: saved \(.+\)$/m);

    const second = await install();
    expect(second).toMatch(/^cache deps-[0-9a-f]{40}: restored from deps-[0-9a-f]{12}… \(this branch\)/m);
    // The files came from the cache: the download's words are the first build's.
    expect(second).toContain('deps from the cache: downloaded for lock v1');
    expect(second).not.toContain('\ndownloaded\n');
    expect(second).toMatch(/will not be saved: the exact key is saved already, on this branch/);
    expect(second).not.toMatch(/: saved \(/);
  });

  it('misses the exact key once the lock file changes, restores the newest fallback, and saves the new key', async () => {
    await builds.commit({ 'package-lock.json': 'lock v2\n' });
    const log = await install();
    expect(log).toMatch(/restored from deps-[0-9a-f]{12}… \(fallback deps-, this branch\)/);
    expect(log).toContain('deps from the cache: downloaded for lock v1');
    expect(log).toMatch(/: saved \(/);
  });

  it("never lets a fork's pull request write an entry that the default branch later reads", async () => {
    await builds.commit({ 'package-lock.json': 'lock v3, from a fork\n' });
    const fork = await install({ build: forkPullRequest });
    // It reads the default branch's newest entry, and writes nothing.
    expect(fork).toMatch(/restored from deps-[0-9a-f]{12}… \(fallback deps-, branch main\)/);
    expect(fork).toMatch(/will not be saved: .*fork/);
    expect(fork).not.toMatch(/: saved \(/);
    // The default branch, on the same lock file, finds no exact entry: the fork left none.
    const main = await install();
    expect(main).toMatch(/restored from deps-[0-9a-f]{12}… \(fallback deps-, this branch\)/);
    expect(main).toMatch(/: saved \(/);
  });

  it("keeps a pull request's entry to the pull request: the default branch does not restore it", async () => {
    await builds.commit({ 'package-lock.json': 'lock v4, from a pull request\n' });
    const pr = await install({ build: ownPullRequest });
    expect(pr).toMatch(/: saved \(/);
    const again = await install({ build: ownPullRequest });
    expect(again).toMatch(/restored from deps-[0-9a-f]{12}… \(this pull request\)/);
    const main = await install();
    expect(main).toMatch(/restored from deps-[0-9a-f]{12}… \(fallback deps-, this branch\)/);
    expect(main).toMatch(/: saved \(/);
  });

  it('leaves one valid entry when two builds save one key at once', async () => {
    await builds.commit({ 'package-lock.json': 'lock v5\n' });
    const logs = await Promise.all([install(), install()]);
    const saved = logs.filter((log) => /: saved \(/.test(log));
    const lost = logs.filter((log) => /another build saved deps-[0-9a-f]{40} first; kept theirs/.test(log));
    // Both may find the other's entry already there when they look; never do both write it.
    expect(saved.length).toBe(1);
    expect(saved.length + lost.length + logs.filter((log) => /saved already/.test(log)).length).toBe(2);
    const after = await install();
    expect(after).toMatch(/restored from deps-[0-9a-f]{12}… \(this branch\)/);
  });
});

/**
 * The README's pattern with `needs`: steps side by side after the checkout, each with the same
 * cache. Each step says where its `deps` came from and shows them; the entry is one for them all.
 */
const SIBLINGS = `version: 1
cache:
  - key:
      files: [package-lock.json]
      prefix: side
    paths: [deps]
steps:
${['lint', 'unit', 'docs']
  .map(
    (name) => `  - name: ${name}
    image: busybox:1.37
    needs: [clone]
    commands:
      - |
        if [ -f deps/lib.txt ]; then echo "deps from the cache: $(cat deps/lib.txt)"; else mkdir -p deps && echo "downloaded for $(cat package-lock.json)" > deps/lib.txt && echo downloaded; fi
`,
  )
  .join('')}`;

describe('a cache with needs', () => {
  beforeAll(() => builds.commit({ 'package-lock.json': 'lock for siblings\n' }));

  /** One build of SIBLINGS; each step's log. */
  async function siblings(): Promise<Record<string, string>> {
    const id = `cache-${++n}`;
    const { summary } = await builds.build(id, SIBLINGS);
    expect({ id, status: summary.status, error: summary.error, cause: summary.cause }).toEqual({ id, status: 'SUCCEEDED', error: null, cause: null });
    const read = (step: string) => readFile(path.join(builds.root, 'logs', id, `${step}.log`), 'utf8');
    return { lint: await read('lint'), unit: await read('unit'), docs: await read('docs') };
  }

  it('restores in the steps right after the checkout, once for the three of them, and each sees the files', async () => {
    const first = Object.values(await siblings());
    // The key's hashes were stored before any of them started: each knows its exact key.
    for (const log of first) expect(log).toMatch(/^cache side-[0-9a-f]{40}: miss /m);
    expect(first.filter((log) => /^cache side-[0-9a-f]{40}: saved \(/m.test(log))).toHaveLength(1);

    const second = Object.values(await siblings());
    const restored = second.filter((log) => /^cache side-[0-9a-f]{40}: restored from side-[0-9a-f]{12}… \(this branch\)/m.test(log));
    expect(restored).toHaveLength(1);
    for (const log of second) {
      expect(log).not.toMatch(/unreadable|runs without its cache|: miss/);
      expect(log).toContain('deps from the cache: downloaded for lock for siblings');
    }
    // The other two say who restored it into their workspace.
    expect(second.filter((log) => /^cache side-[0-9a-f]{40}: restored into this workspace by step "(lint|unit|docs)"/m.test(log))).toHaveLength(2);
  });
});
