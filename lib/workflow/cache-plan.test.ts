import {
  CACHE_FORMAT,
  cacheFingerprint,
  cacheScopes,
  entryKey,
  fallbackListPrefix,
  MAX_PRESIGN_SECONDS,
  saveUrlSeconds,
  scopeLabel,
  type CacheBuild,
  type CacheScopes,
} from './cache-plan.js';

describe('the cache scopes a build reads and writes', () => {
  const cases: [string, CacheBuild, CacheScopes][] = [
    [
      'a push to a branch: its own, then the default branch',
      { ref: 'refs/heads/feature/login', event: 'push', defaultBranch: 'trunk' },
      { read: ['branch/feature%2Flogin', 'branch/trunk'], write: 'branch/feature%2Flogin', own: 'branch/feature%2Flogin' },
    ],
    ['a push to the default branch: read once', { ref: 'refs/heads/main', event: 'push' }, { read: ['branch/main'], write: 'branch/main', own: 'branch/main' }],
    ['a local run of a branch', { ref: 'refs/heads/dev', event: 'local' }, { read: ['branch/dev', 'branch/main'], write: 'branch/dev', own: 'branch/dev' }],
    [
      'a pull request from the repository itself',
      { ref: 'refs/pull/7/head', event: 'pull_request', pullRequest: { number: 7, fork: false } },
      { read: ['pr/7', 'branch/main'], write: 'pr/7', own: 'pr/7' },
    ],
    [
      "a fork's pull request reads but saves nothing",
      { ref: 'refs/pull/8/head', event: 'pull_request', defaultBranch: 'develop', pullRequest: { number: 8, fork: true } },
      { read: ['pr/8', 'branch/develop'], noWrite: "a fork's pull request saves nothing", own: 'pr/8' },
    ],
    [
      'a pull request ref without pull request facts: not known not to be a fork',
      { ref: 'refs/pull/9/head', event: 'pull_request' },
      { read: ['pr/9', 'branch/main'], noWrite: 'pull request 9 saves nothing: it is not known whether it comes from a fork', own: 'pr/9' },
    ],
    ['no ref: the default branch only', { event: 'generic' }, { read: ['branch/main'], noWrite: "the build has no ref, so it saves nothing (it reads the default branch's entries)" }],
    [
      'a tag: the default branch only',
      { ref: 'refs/tags/v1.0', event: 'push' },
      { read: ['branch/main'], noWrite: "ref refs/tags/v1.0 is no branch, so it saves nothing (it reads the default branch's entries)" },
    ],
  ];
  it.each(cases)('%s', (_title, build, scopes) => {
    expect(cacheScopes(build)).toEqual(scopes);
  });

  it.each([
    ['branch/dev', 'branch/dev', 'this branch'],
    ['pr/3', 'pr/3', 'this pull request'],
    ['branch/release%2F1', 'branch/dev', 'branch release/1'],
  ])('labels %s (own %s) %s', (scope, own, label) => {
    expect(scopeLabel(scope, own)).toBe(label);
  });
});

describe('where an entry is kept', () => {
  const place = { prefix: 'cache/', repository: 'octo/app', scope: 'branch/feature%2Fx', fingerprint: '0123456789abcdef' };

  it('lays the key out by repository, scope and fingerprint', () => {
    expect(entryKey({ ...place, key: 'npm-abc' })).toBe('cache/octo%2Fapp/branch/feature%2Fx/0123456789abcdef/npm-abc');
    expect(fallbackListPrefix({ ...place, fallback: 'npm-' })).toBe('cache/octo%2Fapp/branch/feature%2Fx/0123456789abcdef/npm-');
  });

  it('keeps a run of no repository under local', () => {
    expect(entryKey({ ...place, repository: undefined, key: 'k' })).toBe('cache/local/branch/feature%2Fx/0123456789abcdef/k');
  });
});

describe('the fingerprint of the cached paths', () => {
  const base = cacheFingerprint(['node_modules', '.npm']);

  it('is 16 hex characters', () => {
    expect(base).toMatch(/^[0-9a-f]{16}$/);
    expect(CACHE_FORMAT).toBe('tar+gzip');
  });

  it.each([
    ['another order', ['.npm', 'node_modules']],
    ['repeats', ['node_modules', '.npm', 'node_modules']],
    ['a trailing slash', ['node_modules/', '.npm']],
  ])('does not change with %s', (_title, paths) => {
    expect(cacheFingerprint(paths)).toBe(base);
  });

  it.each([
    ['a path more', ['node_modules', '.npm', 'dist']],
    ['a path less', ['node_modules']],
    ['another path', ['node_modules', '.yarn']],
  ])('changes with %s', (_title, paths) => {
    expect(cacheFingerprint(paths)).not.toBe(base);
  });
});

describe('how long the URLs last', () => {
  it.each([
    [600, 600 + 3600],
    [3600, 7200],
    [30 * 24 * 3600, MAX_PRESIGN_SECONDS],
  ])('a step of %i s saves with a URL of %i s', (timeout, seconds) => {
    expect(saveUrlSeconds(timeout)).toBe(seconds);
  });
});
