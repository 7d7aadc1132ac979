/**
 * `cache:` and `artifacts:` in a pipeline file: how a file's lists read (each step's effective list,
 * the defaults, the lines), and each refusal with its message and line.
 */
import { DEFAULT_ARTIFACT_EXPIRE_DAYS, parseExpireIn, stepCache } from './cache.js';
import { readPipelineText as read, pipelineTextProblems as problems } from '../../test/fixtures/pipeline-text.js';
import type { Cache } from './types.js';

const FILE = `version: 1
cache:
  - key:
      files: [package-lock.json, "**/yarn.lock"]
      prefix: npm
    paths: [node_modules/, .npm]
    fallback-keys: [npm-]
  - key: {prefix: tools}
    paths: .tools
    policy: pull
steps:
  - name: build
    image: node:22-alpine
    commands: [npm ci]
    artifacts:
      paths: [dist/, coverage/lcov.info]
      expire-in: 2w
  - name: lint
    image: node:22-alpine
    commands: [npm run lint]
    cache: []
  - name: go
    image: golang:1.23
    commands: [go build ./...]
    cache:
      - key:
          files: go.sum
        paths: [.go/pkg/mod]
        policy: push
    artifacts:
      paths: bin/
`;

describe('cache and artifacts in the normal form', () => {
  const pipeline = read(FILE);
  const npm: Cache = {
    key: { files: ['package-lock.json', '**/yarn.lock'], prefix: 'npm' },
    paths: ['node_modules', '.npm'],
    fallbackKeys: ['npm-'],
    policy: 'pull-push',
    line: 3,
    filesLine: 4,
  };
  const tools: Cache = { key: { files: [], prefix: 'tools' }, paths: ['.tools'], fallbackKeys: [], policy: 'pull', line: 8 };

  it('keeps the pipeline list, with defaults, one path as a list of one, and the lines', () => {
    expect(pipeline.cache).toEqual([npm, tools]);
  });

  it('gives a step without a list of its own the pipeline\'s', () => {
    expect(pipeline.steps[0]?.cache).toEqual([npm, tools]);
  });

  it('leaves cache out of a step that says cache: []', () => {
    expect(pipeline.steps[1]).not.toHaveProperty('cache');
  });

  it('gives a step with its own list that list alone, at its own lines', () => {
    expect(pipeline.steps[2]?.cache).toEqual<Cache[]>([{ key: { files: ['go.sum'] }, paths: ['.go/pkg/mod'], fallbackKeys: [], policy: 'push', line: 26, filesLine: 27 }]);
  });

  it('reads artifacts: expire-in in days (30 when absent), paths as written, and the line', () => {
    expect(pipeline.steps[0]?.artifacts).toEqual({ paths: ['dist/', 'coverage/lcov.info'], expireInDays: 14, line: 15 });
    expect(pipeline.steps[2]?.artifacts).toEqual({ paths: ['bin/'], expireInDays: DEFAULT_ARTIFACT_EXPIRE_DAYS, line: 30 });
    expect(pipeline.steps[1]).not.toHaveProperty('artifacts');
  });

  it('says nothing of cache when no list is given, or only an empty one', () => {
    const plain = read('version: 1\nsteps:\n  - name: a\n    image: alpine:3.20\n    commands: [make]\n');
    expect(plain).not.toHaveProperty('cache');
    expect(plain.steps[0]).not.toHaveProperty('cache');
    expect(read('version: 1\ncache: []\nsteps:\n  - name: a\n    image: alpine:3.20\n    commands: [make]\n')).not.toHaveProperty('cache');
  });
});

describe('stepCache', () => {
  const a: Cache = { key: { files: [], prefix: 'a' }, paths: ['a'], fallbackKeys: [], policy: 'pull-push' };
  const b: Cache = { ...a, key: { files: [], prefix: 'b' } };
  it.each<[Cache[] | undefined, Cache[] | undefined, Cache[] | undefined]>([
    [[a], undefined, [a]],
    [[a], [b], [b]],
    [[a], [], undefined],
    [undefined, undefined, undefined],
    [[], undefined, undefined],
  ])('pipeline %j, own %j: %j', (pipeline, own, effective) => {
    expect(stepCache(pipeline, own)).toEqual(effective);
  });
});

describe('expire-in', () => {
  it.each<[unknown, number]>([
    ['1d', 1],
    ['7d', 7],
    ['2w', 14],
    ['365d', 365],
    ['52w', 364],
    ['24h', 1],
    ['1440m', 1],
    [86400, 1],
    [' 30d ', 30],
  ])('%j: %d day(s)', (input, days) => {
    expect(parseExpireIn(input)).toEqual({ ok: true, days });
  });

  it.each<[unknown, string]>([
    ['0d', '"0d" is less than a day; artifacts are kept for at least 1d'],
    ['366d', '"366d" is 366 days; artifacts are kept for at most 365d'],
    ['53w', '"53w" is 371 days; artifacts are kept for at most 365d'],
    ['12h', '"12h" is not a whole number of days or weeks; write it like 7d, 30d or 2w'],
    ['1.5d', '"1.5d" is not a whole number of days or weeks; write it like 7d, 30d or 2w'],
    ['1m', '"1m" is not a whole number of days or weeks; write it like 7d, 30d or 2w'],
    [30, '"30" is not a whole number of days or weeks; write it like 7d, 30d or 2w (a plain number is seconds, as for any duration: write 30d for days)'],
    [null, 'must be a number of days or weeks such as 30d (write it like 7d, 30d or 2w)'],
  ])('%j is refused', (input, reason) => {
    expect(parseExpireIn(input)).toEqual({ ok: false, reason });
  });
});

describe('cache refused', () => {
  // The pipeline's list at line 3, one step from line 4 on: `step` is that step's own lines.
  const file = (top: string, step = '') => `version: 1\n${top}steps:\n  - name: build\n    image: node:22-alpine\n    commands: [npm ci]\n${step}`;
  const entry = (lines: string) => `cache:\n  - ${lines.split('\n').join('\n    ')}\n`;

  it.each<[string, string, string, number]>([
    ['an absolute path', file(entry('key: {prefix: npm}\npaths: [/root/.npm]')), 'cache[0].paths[0]: "/root/.npm" is absolute: paths are relative to the workspace (/workspace), and nothing outside it is kept', 4],
    ['the workspace spelt out', file(entry('key: {prefix: npm}\npaths: [/workspace/node_modules]')), 'cache[0].paths[0]: "/workspace/node_modules" is absolute: paths are relative to the workspace (/workspace), and nothing outside it is kept (write "node_modules")', 4],
    ['a .. segment', file(entry('key: {prefix: npm}\npaths: [node_modules, "../up"]')), 'cache[0].paths[1]: "../up" has a ".." segment: paths stay inside the workspace', 4],
    ['a home folder', file(entry('key: {prefix: npm}\npaths: ["~/.npm"]')), 'cache[0].paths[0]: "~/.npm" is in a home folder, outside the workspace: only files under /workspace are kept (point the tool at a folder in the workspace instead)', 4],
    ['a . segment', file(entry('key: {prefix: npm}\npaths: [./node_modules]')), 'cache[0].paths[0]: "./node_modules" has a "." segment (write "node_modules")', 4],
    ['the whole workspace', file(entry('key: {prefix: npm}\npaths: ["."]')), 'cache[0].paths[0]: "." is the whole workspace, checkout included; name the folders to keep', 4],
    ['an empty path', file(entry('key: {prefix: npm}\npaths: [""]')), 'cache[0].paths[0]: a path must not be empty', 4],
    ['no paths', file(entry('key: {prefix: npm}\npaths: []')), 'cache[0].paths: must list at least one file or folder in the workspace', 4],
    ['paths left out', file(entry('key: {prefix: npm}')), 'cache[0].paths: missing: each cache needs the paths it keeps', 3],
    ['a path twice', file(entry('key: {prefix: npm}\npaths: [node_modules, .npm, node_modules/]')), 'cache[0].paths[2]: "node_modules/" is listed twice', 4],
    ['an unknown policy', file(entry('key: {prefix: npm}\npaths: [a]\npolicy: pull-only')), 'cache[0].policy: must be pull, push or pull-push, not the text "pull-only"', 5],
    ['a prefix with a slash', file(entry('key: {prefix: npm/linux}\npaths: [a]')), 'cache[0].key.prefix: "npm/linux" is not a valid cache key name: 1 to 100 of letters, digits, ".", "_" and "-", starting with a letter or digit', 3],
    ['a prefix starting with a dot', file(entry('key: {prefix: .npm}\npaths: [a]')), 'cache[0].key.prefix: ".npm" is not a valid cache key name: 1 to 100 of letters, digits, ".", "_" and "-", starting with a letter or digit', 3],
    ['a prefix too long', file(entry(`key: {prefix: ${'a'.repeat(101)}}\npaths: [a]`)), `cache[0].key.prefix: "${'a'.repeat(101)}" is not a valid cache key name: 1 to 100 of letters, digits, ".", "_" and "-", starting with a letter or digit`, 3],
    ['a fallback key with a space', file(entry('key: {prefix: npm}\npaths: [a]\nfallback-keys: [npm-, "npm linux"]')), 'cache[0].fallback-keys[1]: "npm linux" is not a valid cache key name: 1 to 100 of letters, digits, ".", "_" and "-", starting with a letter or digit', 5],
    ['a prefix YAML reads as a number', file(entry('key: {prefix: 2024}\npaths: [a]')), 'cache[0].key.prefix: the prefix must be text (letters, digits, ".", "_" and "-"), not the number 2024 (quote it: YAML read it as something else)', 3],
    ['an absolute key file', file(entry('key: {files: [/package-lock.json]}\npaths: [a]')), 'cache[0].key.files[0]: "/package-lock.json" is absolute: key files are matched against the repository\'s paths, which have no leading "/" (write "package-lock.json")', 3],
    ['a key file going up', file(entry('key: {files: [../package-lock.json]}\npaths: [a]')), 'cache[0].key.files[0]: "../package-lock.json" has a ".." segment: key files are the repository\'s own, which never go up', 3],
    ['an empty key file list', file(entry('key: {files: [], prefix: npm}\npaths: [a]')), 'cache[0].key.files: must list at least one file (leave files out for a key that is the prefix alone)', 3],
    ['neither files nor prefix', file(entry('key: {}\npaths: [a]')), 'cache[0].key: needs files (whose content makes the key), a prefix, or both', 3],
    ['no key', file(entry('paths: [a]')), 'cache[0].key: missing: each cache needs a key (files whose content makes it, a prefix, or both)', 3],
    ['a key as text', file(entry('key: npm\npaths: [a]')), 'cache[0].key: must be a map with files and/or prefix (e.g. {files: [package-lock.json], prefix: npm}), not the text "npm"', 3],
    ['a misspelt entry field', file(entry('key: {prefix: npm}\npaths: [a]\npolcy: push')), 'unknown field "polcy" (did you mean "policy"?)', 5],
    ['GitHub\'s restore-keys', file(entry('key: {prefix: npm}\npaths: [a]\nrestore-keys: [npm-]')), 'unknown field "restore-keys" (did you mean "fallback-keys"?)', 5],
    ['an unknown field', file(entry('key: {prefix: npm}\npaths: [a]\nuntracked: true')), 'unknown field "untracked" (expected one of: key, paths, fallback-keys, policy)', 5],
    ['a misspelt key field, said once', file(entry('key: {fles: [package-lock.json]}\npaths: [a]')), 'unknown field "fles" (did you mean "files"?)', 3],
    ['a map for the list', file('cache:\n  key: {prefix: npm}\n  paths: [a]\n'), 'cache: must be a list of caches (each starting with "- key:"), or [] for none, not a map', 2],
    [
      'two entries with the same paths and key',
      file(`${entry('key: {files: [a.lock, b.lock], prefix: x}\npaths: [one, two]')}  - key: {files: [b.lock, a.lock], prefix: x}\n    paths: [two, one/]\n`),
      'cache[1]: has the same paths and key as cache[0], so both would restore and save one entry; remove one, or give one another key',
      5,
    ],
  ])('the pipeline\'s: %s', (_, text, message, line) => {
    expect(problems(text)).toEqual([{ message: `ci.yml line ${line}: ${message}`, line }]);
  });

  it.each<[string, string, string, number]>([
    ['a .. segment', '    cache:\n      - key: {prefix: npm}\n        paths: ["a/../../b"]\n', 'cache[0].paths[0]: "a/../../b" has a ".." segment: paths stay inside the workspace', 8],
    ['an unknown field in the key', '    cache:\n      - key: {prefix: npm, hash: sha1}\n        paths: [a]\n', 'unknown field "hash" (expected one of: files, prefix)', 7],
    [
      'two entries with the same paths and key',
      '    cache:\n      - key: {prefix: npm}\n        paths: [a]\n      - key: {prefix: npm}\n        paths: [a]\n        policy: pull\n',
      'cache[1]: has the same paths and key as cache[0], so both would restore and save one entry; remove one, or give one another key',
      9,
    ],
  ])('a step\'s own: %s', (_, step, message, line) => {
    expect(problems(file('', step))).toEqual([{ message: `ci.yml line ${line}: step "build": ${message}`, line }]);
  });

  it('refuses key files in a pipeline without a checkout: the clone step hashes them', () => {
    const text = `version: 1\ncheckout: false\n${entry('key: {files: [go.sum]}\npaths: [a]')}steps:\n  - name: build\n    image: golang:1.23\n    commands: [make]\n`;
    expect(problems(text)).toEqual([
      { message: 'ci.yml line 4: cache[0].key.files: needs the checkout, whose clone step hashes the key files, and the pipeline says "checkout: false"; key the cache by a prefix alone', line: 4 },
    ]);
  });

  it('takes the same paths with another key, and the same key for other paths', () => {
    const text = file(`${entry('key: {prefix: npm}\npaths: [a]')}  - key: {prefix: npm2}\n    paths: [a]\n  - key: {prefix: npm}\n    paths: [b]\n`);
    expect(read(text).cache?.map((cache) => [cache.key.prefix, cache.paths])).toEqual([
      ['npm', ['a']],
      ['npm2', ['a']],
      ['npm', ['b']],
    ]);
  });
});

describe('artifacts refused', () => {
  const file = (artifacts: string) => `version: 1\nsteps:\n  - name: build\n    image: node:22-alpine\n    commands: [npm ci]\n    artifacts:\n${artifacts}`;

  it.each<[string, string, string, number]>([
    ['no paths', '      paths: []\n', 'artifacts.paths: must list at least one file or folder in the workspace', 7],
    ['paths left out', '      expire-in: 7d\n', 'artifacts.paths: missing: artifacts need the files or folders to keep', 6],
    ['an absolute path', '      paths: [/tmp/out]\n', 'artifacts.paths[0]: "/tmp/out" is absolute: paths are relative to the workspace (/workspace), and nothing outside it is kept', 7],
    ['a .. segment', '      paths: [dist/../..]\n', 'artifacts.paths[0]: "dist/../.." has a ".." segment: paths stay inside the workspace', 7],
    ['a path twice', '      paths: [dist/, dist]\n', 'artifacts.paths[1]: "dist" is listed twice', 7],
    ['a bare number', '      paths: [dist/]\n      expire-in: 30\n', 'artifacts.expire-in: "30" is not a whole number of days or weeks; write it like 7d, 30d or 2w (a plain number is seconds, as for any duration: write 30d for days)', 8],
    ['a year and a day', '      paths: [dist/]\n      expire-in: 366d\n', 'artifacts.expire-in: "366d" is 366 days; artifacts are kept for at most 365d', 8],
    ['hours', '      paths: [dist/]\n      expire-in: 12h\n', 'artifacts.expire-in: "12h" is not a whole number of days or weeks; write it like 7d, 30d or 2w', 8],
    ['a misspelt field', '      paths: [dist/]\n      expires: 7d\n', 'unknown field "expires" (did you mean "expire-in"?)', 8],
    ['a list for the map', '      - dist/\n', 'artifacts: must be a map with paths and expire-in, not a list', 6],
  ])('%s', (_, artifacts, message, line) => {
    expect(problems(file(artifacts))).toEqual([{ message: `ci.yml line ${line}: step "build": ${message}`, line }]);
  });
});
