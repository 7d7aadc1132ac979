/**
 * `step-runner init`'s file for the fixture repositories of test/fixtures/init (npm, pnpm, Yarn 1,
 * Yarn 4, none): what it finds, and a file that `validate` accepts (the same parse), whose cache
 * key files `run` accepts (the committed files), and whose every image the embedded cluster's
 * catalog has. The command's own I/O (refusing to overwrite, the work tree's root, a build of the
 * npm file) is in test/run-from-repository.integration.test.ts; `npm run acceptance` builds the
 * pnpm (9 and 8) and Yarn files with Docker (docs/testing.md#acceptance).
 */
import { ESLint } from 'eslint';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCatalogDocument } from '../lib/emulators/kubernetes/image-catalog.js';
import { parsePipeline, type Pipeline } from '../lib/pipeline/index.js';
import { unmatchedKeyFiles } from '../lib/local/source/cache-key-files.js';
import { detectProject, INIT_FILES, type InitFile, type RepositoryFiles } from '../lib/cli/init/project-facts.js';
import { knownImages, nodeImage, starterPipeline, type KnownImages } from '../lib/cli/init/starter-pipeline.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/init/', import.meta.url));
const CATALOG = fileURLToPath(new URL('../lib/emulators/kubernetes/images/catalog.json', import.meta.url));

let images: KnownImages;
beforeAll(async () => {
  images = knownImages(parseCatalogDocument(JSON.parse(await readFile(CATALOG, 'utf8')), CATALOG));
});

/** The fixture as init reads it, every file committed. */
async function fixture(name: string): Promise<{ files: RepositoryFiles; all: string[] }> {
  const dir = path.join(FIXTURES, name);
  const all = await readdir(dir);
  const texts: RepositoryFiles['texts'] = {};
  for (const file of all) if ((INIT_FILES as readonly string[]).includes(file)) texts[file as InitFile] = await readFile(path.join(dir, file), 'utf8');
  return { files: { texts, tracked: new Set(all) }, all };
}

/** The starter, checked as validate and run check it before anything starts. */
async function starterFor(name: string): Promise<{ text: string; pipeline: Pipeline }> {
  const { files, all } = await fixture(name);
  const text = starterPipeline(detectProject(files), images);
  const pipeline = parsePipeline(text, '.step-runner.yml');
  expect(unmatchedKeyFiles(pipeline, all)).toBeUndefined();
  for (const step of pipeline.steps) expect(images.references.has(step.image!)).toBe(true);
  return { text, pipeline };
}

const commands = (pipeline: Pipeline) => Object.fromEntries(pipeline.steps.map((step) => [step.name, step.commands]));

/** The install step's caches as a user reads them: key files, prefix, fallback and folders. */
const caches = (pipeline: Pipeline) => pipeline.steps[0]!.cache?.map((c) => ({ files: c.key.files, prefix: c.key.prefix, fallback: c.fallbackKeys, paths: c.paths }));

/** corepack's home in the workspace, cached apart from the lock file's downloads, keyed on package.json and the version the commands name. */
const corepackCache = (prefix: string) => ({ files: ['package.json'], prefix, fallback: [`${prefix}-`], paths: ['.corepack/node_modules'] });

describe('step-runner init, for the fixture repositories', () => {
  it.each([
    [
      'npm',
      'node:20-slim',
      {
        install: ['npm ci --cache .npm --prefer-offline --no-audit --no-fund'],
        lint: ['npm run lint'],
        build: ['npm run build'],
        test: ['npm test'],
      },
      [{ files: ['package-lock.json'], prefix: 'npm', fallback: ['npm-'], paths: ['.npm'] }],
    ],
    [
      'pnpm',
      'node:22-slim',
      { install: ['corepack pnpm install --frozen-lockfile --store-dir .pnpm-store'], test: ['corepack pnpm test'] },
      [{ files: ['pnpm-lock.yaml'], prefix: 'pnpm', fallback: ['pnpm-'], paths: ['.pnpm-store'] }, corepackCache('corepack-pnpm')],
    ],
    [
      'pnpm8',
      'node:24-slim',
      { install: ['corepack pnpm@8 install --frozen-lockfile --store-dir .pnpm-store'], test: ['corepack pnpm@8 test'] },
      [{ files: ['pnpm-lock.yaml'], prefix: 'pnpm', fallback: ['pnpm-'], paths: ['.pnpm-store'] }, corepackCache('corepack-pnpm-8')],
    ],
    [
      'yarn',
      'node:20-slim',
      { install: ['corepack yarn install --frozen-lockfile --cache-folder .yarn-cache'], lint: ['corepack yarn run lint'], test: ['corepack yarn run test'] },
      [{ files: ['yarn.lock'], prefix: 'yarn', fallback: ['yarn-'], paths: ['.yarn-cache'] }, corepackCache('corepack-yarn')],
    ],
    [
      'yarn-berry',
      `node:${24}-slim`,
      { install: ['corepack yarn install --immutable'], build: ['corepack yarn run build'] },
      [{ files: ['yarn.lock'], prefix: 'yarn', fallback: ['yarn-'], paths: ['.yarn/cache'] }, corepackCache('corepack-yarn')],
    ],
  ])('%s: installs from the lock file with a cache keyed on it, then runs its scripts in %s', async (name, image, expected, cache) => {
    const { pipeline } = await starterFor(name);
    expect(commands(pipeline)).toEqual(expected);
    expect(new Set(pipeline.steps.map((step) => step.image))).toEqual(new Set([image]));
    const [, ...others] = pipeline.steps;
    expect(caches(pipeline)).toEqual(cache);
    // Only the install restores and saves: the scripts' steps have no cache of their own.
    for (const step of others) expect(step.cache ?? []).toEqual([]);
  });

  // Every step that runs corepack finds the download in the shared workspace (the install's, or
  // the one its cache restored), not in the pod's own $HOME, gone with it; and leaves package.json
  // as committed: corepack 0.26 to 0.32 adds a packageManager to one that has none (pnpm8 and yarn
  // here) unless COREPACK_ENABLE_AUTO_PIN is 0 (nodejs/corepack#413, README "Environment
  // Variables"). npm's steps need neither.
  const corepack = { COREPACK_HOME: '/workspace/.corepack/node_modules', COREPACK_ENABLE_AUTO_PIN: '0' };
  it.each([
    ['npm', {}],
    ['pnpm', corepack],
    ['pnpm8', corepack],
    ['yarn', corepack],
    ['yarn-berry', { YARN_ENABLE_GLOBAL_CACHE: 'false', ...corepack }],
  ])('%s: every step has the env %j', async (name, env) => {
    const { pipeline } = await starterFor(name);
    const [install, ...others] = pipeline.steps;
    expect(install!.env).toEqual(env);
    for (const step of others) expect(step.env).toEqual('COREPACK_HOME' in env ? corepack : {});
  });

  // The workspace is the checkout, and corepack's home there holds pnpm's and Yarn's own .cjs and
  // .js: a project's `eslint .` must not lint them (ESLint's default ignores, which a project's own
  // flat config keeps), while it still lints the project's files.
  it.each(['pnpm', 'yarn', 'yarn-berry'])("%s: corepack's home is where a project's `eslint .` does not look", async (name) => {
    const { pipeline } = await starterFor(name);
    const home = pipeline.steps[0]!.env!.COREPACK_HOME!;
    const eslint = new ESLint({ cwd: '/workspace', overrideConfigFile: true });
    expect(await eslint.isPathIgnored(path.posix.join(home, 'v1/pnpm/8.15.9/dist/pnpm.cjs'))).toBe(true);
    expect(await eslint.isPathIgnored('/workspace/src/index.cjs')).toBe(false);
    // The folder the cache keeps is that home.
    expect(caches(pipeline)?.at(-1)?.paths).toEqual([path.posix.relative('/workspace', home)]);
  });

  it('says where each choice came from, in the file', async () => {
    expect((await starterFor('pnpm')).text).toContain('#   package manager: pnpm (packageManager: pnpm@9.15.0)\n#   Node 22, from engines.node (^22.11.0)\n#   scripts: test\n');
    expect((await starterFor('yarn')).text).toContain('#   Node 20, from .node-version (lts/iron)');
    const berry = (await starterFor('yarn-berry')).text;
    expect(berry).toContain('package manager: yarn berry (packageManager: yarn@4.5.3)');
    expect(berry).toContain('npm init\'s placeholder ("no test specified"): no test step');
    expect(berry).toContain('YARN_ENABLE_GLOBAL_CACHE: "false"');
  });

  it('writes a skeleton that builds for a repository with no package.json', async () => {
    const { text, pipeline } = await starterFor('no-package-json');
    expect(text).toMatch(/^# Written by `step-runner init`: no package.json here/);
    expect(pipeline.steps.map((step) => [step.name, step.image])).toEqual([['build', 'alpine:3.22']]);
    // The rest is there to uncomment: the cache, env, artifacts, a second step.
    for (const key of ['\n# cache:\n', '\n    # env:\n', '\n    # artifacts:', '\n  # - name: test\n']) expect(text).toContain(key);
  });
});

describe('what init finds', () => {
  const packageJson = (fields: object) => JSON.stringify({ name: 'x', ...fields });

  it.each<[string, RepositoryFiles, Partial<ReturnType<typeof detectProject>>]>([
    ['no lock file: npm install, nothing to key a cache on', { texts: { 'package.json': packageJson({}) }, tracked: new Set(['package.json']) }, { packageManager: 'npm', lockFile: undefined, managerFrom: 'no lock file: npm' }],
    ['a lock file git does not track', { texts: { 'package.json': packageJson({}), 'package-lock.json': '{}' }, tracked: new Set(['package.json']) }, { lockFile: 'package-lock.json', lockTracked: false }],
    ['outside a git work tree', { texts: { 'package.json': packageJson({}), 'pnpm-lock.yaml': '' } }, { packageManager: 'pnpm', lockTracked: false }],
    ['packageManager over a stray lock file', { texts: { 'package.json': packageJson({ packageManager: 'pnpm@10.0.0' }), 'pnpm-lock.yaml': '', 'package-lock.json': '{}' }, tracked: new Set(['pnpm-lock.yaml']) }, { packageManager: 'pnpm', lockFile: 'pnpm-lock.yaml', lockTracked: true }],
    ['Yarn 2+ from .yarnrc.yml alone', { texts: { 'package.json': packageJson({}), 'yarn.lock': '# yarn lockfile v1\n', '.yarnrc.yml': 'nodeLinker: node-modules\n' } }, { packageManager: 'yarn-berry' }],
    ['.nvmrc before engines', { texts: { 'package.json': packageJson({ engines: { node: '>=18' } }), '.nvmrc': '22\n' } }, { node: { major: 22, from: '.nvmrc (22)' } }],
    ["lts/* as the catalog's node:lts", { texts: { 'package.json': packageJson({}), '.nvmrc': 'lts/*' } }, { node: { lts: true, from: '.nvmrc (lts/*)' } }],
    ['an .nvmrc no version manager reads, then engines', { texts: { 'package.json': packageJson({ engines: { node: '^20 || ^22' } }), '.nvmrc': 'system' } }, { node: { major: 20, from: 'engines.node (^20 || ^22)' } }],
  ])('%s', (_name, files, expected) => {
    expect(detectProject(files)).toMatchObject(expected);
  });

  // The latest pnpm refuses a frozen install of a lock file older than v9 (pnpm/pnpm#7934): with no
  // packageManager, corepack is asked for the major that wrote it.
  it.each<[string, string, object, string | undefined]>([
    ['lockfile v6, no packageManager: pnpm 8', "lockfileVersion: '6.0'\n", {}, 'pnpm@8'],
    ['lockfile 5.4, no packageManager: pnpm 7', 'lockfileVersion: 5.4\n', {}, 'pnpm@7'],
    ['lockfile v9: corepack\'s latest reads it', "lockfileVersion: '9.0'\n", {}, undefined],
    ['packageManager names the version: no pin over it', "lockfileVersion: '6.0'\n", { packageManager: 'pnpm@8.15.9' }, undefined],
  ])('%s', (_name, lock, fields, pin) => {
    const project = detectProject({ texts: { 'package.json': packageJson({ scripts: { test: 'node --test' }, ...fields }), 'pnpm-lock.yaml': lock }, tracked: new Set(['package.json', 'pnpm-lock.yaml']) });
    const pipeline = parsePipeline(starterPipeline(project, images), 'x.yml');
    const bin = pin ?? 'pnpm';
    expect(pipeline.steps.map((step) => step.commands![0])).toEqual([`corepack ${bin} install --frozen-lockfile --store-dir .pnpm-store`, `corepack ${bin} test`]);
    // The version the commands name is in corepack's cache key, which no key file holds.
    expect(caches(pipeline)?.[1]).toEqual(corepackCache(pin ? `corepack-${pin.replace('@', '-')}` : 'corepack-pnpm'));
    if (pin) expect(project.notes).toEqual([expect.stringMatching(new RegExp(`^pnpm-lock.yaml is lockfileVersion [\\d.]+ and no packageManager names a pnpm: .*\\(\`corepack use ${pin}\` pins it\\)$`))]);
    else expect(project.notes).toEqual([]);
  });

  it('says in the file which version .corepack keeps, and what changes it', async () => {
    expect((await starterFor('pnpm8')).text).toContain('      # .corepack/node_modules keeps pnpm@8 between builds; the prefix names pnpm@8 as the commands do: change both together\n');
    expect((await starterFor('yarn')).text).toContain('      # .corepack/node_modules keeps yarn between builds: the version corepack chose first (its Known Good one');
    const signed = detectProject({ texts: { 'package.json': packageJson({ packageManager: 'pnpm@9.15.0+sha512.abc123' }), 'pnpm-lock.yaml': "lockfileVersion: '9.0'\n" }, tracked: new Set(['package.json', 'pnpm-lock.yaml']) });
    expect(starterPipeline(signed, images)).toContain('      # .corepack/node_modules keeps pnpm@9.15.0 (packageManager) between builds; corepack runs only the version\n');
  });

  it('keeps corepack in the workspace, with no cache of it, while package.json is not committed', () => {
    const project = detectProject({ texts: { 'package.json': packageJson({ scripts: { test: 'node --test' } }), 'pnpm-lock.yaml': "lockfileVersion: '9.0'\n" }, tracked: new Set(['pnpm-lock.yaml']) });
    const pipeline = parsePipeline(starterPipeline(project, images), 'x.yml');
    expect(caches(pipeline)?.map((cache) => cache.paths)).toEqual([['.pnpm-store']]);
    const env = { COREPACK_HOME: '/workspace/.corepack/node_modules', COREPACK_ENABLE_AUTO_PIN: '0' };
    expect(pipeline.steps.map((step) => step.env)).toEqual([env, env]);
  });

  it('says what it did not follow: several lock files, bun, a package.json it cannot read', () => {
    const several = detectProject({ texts: { 'package.json': packageJson({}), 'yarn.lock': '', 'package-lock.json': '{}' } });
    expect(several.notes).toEqual(['more than one lock file (package-lock.json, yarn.lock): package-lock.json is the one followed']);
    expect(detectProject({ texts: { 'package.json': packageJson({}), 'bun.lock': '' } }).notes[0]).toMatch(/^a bun lock file is there: .* installs with npm/);
    const broken = detectProject({ texts: { 'package.json': '{"scripts": {' } });
    expect(broken).toMatchObject({ kind: 'node', scripts: [] });
    expect(broken.notes[0]).toMatch(/^package.json could not be parsed \(.+\): its scripts and engines were not read$/);
  });

  it('keeps what the repository says on one line of the comment, however it is written', () => {
    const text = starterPipeline(detectProject({ texts: { 'package.json': packageJson({ engines: { node: '>=20\n  - name: injected' } }) } }), images);
    expect(() => parsePipeline(text, 'x.yml')).not.toThrow();
    expect(parsePipeline(text, 'x.yml').steps.map((step) => step.name)).toEqual(['install']);
  });
});

describe('nodeImage', () => {
  it('takes the catalog image for the version asked, else the next one it has and says so', () => {
    expect(nodeImage({ major: 22, from: '.nvmrc (22)' }, images).image).toBe('node:22-slim');
    const old = nodeImage({ major: 18, from: 'engines.node (>=18)' }, images);
    expect(old.image).toBe('node:20-slim');
    expect(old.comment).toContain('the embedded cluster has no node:18-slim: Node 20 instead');
    expect(nodeImage({ major: 30, from: '.nvmrc (30)' }, images).image).toBe('node:24-slim');
    expect(nodeImage(undefined, images).image).toBe('node:24-slim');
  });
});
