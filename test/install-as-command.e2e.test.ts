/**
 * The package as a user installs it: `npm pack`, then `npm install -g` of the tarball as the
 * README's line does (into a temporary prefix), and `step-runner` from that prefix's bin, in a
 * fresh repository far from this clone: its version, its help, and a build of the repository's
 * `.step-runner.yml` with no file named, after which `git status` is clean and the logs are in the
 * state directory. The install takes the dependencies from npm's cache when it has them
 * (--prefer-offline), else from the registry. bench/install.ts times the same path.
 */
import { execFile } from 'node:child_process';
import { builtinModules } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { INSTALL_ARGS } from '../bench/install.js';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };

interface PackedFile {
  path: string;
}

let root: string;
let prefix: string;
let packed: string[];
/** No npm_config_* of a surrounding `npm run`, no jest's NODE_OPTIONS: a user's plain shell. */
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'install-as-command-')));
  prefix = path.join(root, 'prefix');
  env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'NODE_OPTIONS'));
  Object.assign(env, { XDG_STATE_HOME: path.join(root, 'state'), PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env.PATH ?? ''}` });
  const pack = await exec('npm', ['pack', '--json', '--pack-destination', root], { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 });
  const [info] = JSON.parse(pack.stdout) as [{ filename: string; files: PackedFile[] }];
  packed = info.files.map((f) => f.path);
  await exec('npm', [...INSTALL_ARGS, '--prefix', prefix, '--prefer-offline', path.join(root, info.filename)], { cwd: root, env, maxBuffer: 16 * 1024 * 1024 });
}, 240_000);
afterAll(() => rm(root, { recursive: true, force: true }));

/** The packages a compiled module imports (static or dynamic, Node's built-ins aside: the bundled packages name them without `node:`). */
const importedPackages = (js: string) =>
  // Statements only: an import or export at the start of a line (its clause may span lines), and
  // import() and createRequire calls; text inside the modules' template strings (shell scripts) is not code.
  // Either quote: the compiler (esbuild, scripts/build.ts) writes double ones.
  [...js.matchAll(/^(?:import|export)\b[^'"]*?from\s*['"]([^.'"][^'"]*)['"]|^import\s*['"]([^.'"][^'"]*)['"]|\bimport\(\s*['"]([^.'"][^'"]*)['"]\s*\)|createRequire\([^)]*\)\(['"]([^'"]+)['"]\)/gm)]
    .map((m) => (m[1] ?? m[2] ?? m[3] ?? m[4])!)
    .filter((specifier) => !specifier.startsWith('node:') && !builtinModules.includes(specifier.split('/')[0]!))
    .map((specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/'));

const installed = () => path.join(prefix, 'lib', 'node_modules', 'serverless-step-runner');
/** The package's compiled modules: the command's own import closure (scripts/build.ts). */
const modules = () => packed.filter((file) => /^dist\/.*\.js$/.test(file));

describe('npm pack', () => {
  it('packs the compiled command, each file a module reads beside it, the lock of its dependencies, and no TypeScript', async () => {
    for (const needed of ['bin/step-runner.js', 'dist/lib/cli/main.js', 'dist/THIRD-PARTY-NOTICES.txt', 'npm-shrinkwrap.json', 'dist/lib/emulators/kubernetes/images/README.md', 'dist/lib/console/assets/console.js', 'dist/lib/console/assets/console.css']) {
      expect(packed).toContain(needed);
    }
    // What a compiled module reads by `new URL('./file', import.meta.url)` is packed where it looks
    // (serverless.yml, the definition, the image catalog, examples/hello.yml among them).
    const wanted = (
      await Promise.all(
        modules().map(async (file) =>
          [...(await readFile(path.join(installed(), file), 'utf8')).matchAll(/new URL\(['"](\.{1,2}\/[^'"$]+)['"], import\.meta\.url\)/g)].map((m) => path.posix.join(path.posix.dirname(file), m[1]!)),
        ),
      )
    ).flat();
    expect(wanted).toEqual(expect.arrayContaining(['dist/serverless.yml', 'dist/lib/workflow/state-machine.asl.yml', 'dist/lib/emulators/kubernetes/images/catalog.json', 'dist/examples/hello.yml']));
    expect(wanted.filter((file) => !packed.includes(file))).toEqual([]);
    expect(packed.filter((file) => /\.ts$|^test\/|^\.ci\/|^docs\//.test(file))).toEqual([]);
  });

  it('ships the licence and notice texts of the packages bundled into the command, and of no package it does not bundle', async () => {
    const text = await readFile(path.join(installed(), 'dist/THIRD-PARTY-NOTICES.txt'), 'utf8');
    // Each package's entry (scripts/third-party-notices.ts), by its heading: `name version`.
    const entries = new Map(text.split(`\n${'='.repeat(80)}\n`).slice(1).map((entry) => [entry.slice(0, entry.indexOf('\n')), entry]));
    const named = (name: string) => [...entries].filter(([heading]) => heading.startsWith(`${name} `)).map(([, entry]) => entry);
    /** The entry's text of `file`, given there or named as the same as one given above. */
    const textOf = (entry: string, file: string): string => {
      const same = new RegExp(`^----- ${file}: the same text as the ${file} of (\\S+ \\S+) above -----$`, 'm').exec(entry);
      return same ? textOf(entries.get(same[1]!) ?? '', file) : entry.slice(entry.indexOf(`----- ${file} -----\n`));
    };
    // The S3 client the cache and artifacts use: Apache-2.0, with the licence's text (section 4(a)).
    const [s3] = named('@aws-sdk/client-s3');
    expect(s3).toMatch(/^License: Apache-2\.0$/m);
    expect(textOf(s3!, 'LICENSE')).toMatch(/^----- LICENSE -----\n\n\s*Apache License\n\s*Version 2\.0, January 2004\n[^]*TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION/);
    // A NOTICE file's contents (section 4(d)): the one asl-validator ships, in the local executor.
    expect(named('asl-validator').join('\n')).toMatch(/\n----- NOTICE -----\n\nCopyright \d{4} Christophe Bougère\n/);
    // MIT: the copyright and permission notice.
    expect(textOf(named('ws')[0] ?? '', 'LICENSE')).toMatch(/Copyright \(c\) \d{4} Einar Otto Stangvik[^]*Permission is hereby granted, free of charge/);
    // Tools that build and test it, which the bundle holds nothing of.
    expect(['typescript', 'esbuild', 'jest', 'eslint', 'osls', 'tsx'].filter((tool) => named(tool).length > 0)).toEqual([]);
  });

  it("depends on exactly the packages the compiled command imports, TypeScript's tools none of them", async () => {
    const imported = new Set((await Promise.all(modules().map(async (file) => importedPackages(await readFile(path.join(installed(), file), 'utf8'))))).flat());
    expect([...imported].sort()).toEqual(Object.keys(PACKAGE.dependencies).sort());
    expect(['typescript', 'tsx', 'esbuild', 'osls', 'jest'].filter((tool) => existsSync(path.join(installed(), 'node_modules', tool)))).toEqual([]);
  });
});

describe('step-runner installed with npm install -g', () => {
  it("prints the package's version", async () => {
    expect((await exec('step-runner', ['--version'], { cwd: root, env })).stdout).toBe(`${PACKAGE.version}\n`);
  });

  it('answers --help from another directory, naming itself as the user types it', async () => {
    const { stdout } = await exec('step-runner', ['--help'], { cwd: root, env });
    expect(stdout).toMatch(/^Usage: step-runner <command>/);
    expect(stdout).toContain('run ');
    const runHelp = (await exec('step-runner', ['run', '--help'], { cwd: root, env })).stdout;
    expect(runHelp).toContain('step-runner run FILE --json');
    expect(runHelp).not.toMatch(/npm (start|run)/);
  });

  it("builds the repository's .step-runner.yml with no file named, with a cache and no third-party warning, and leaves git status clean", async () => {
    const repo = path.join(root, 'app');
    const git = (...args: string[]) => exec('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', ...args], { cwd: repo, env }).then((r) => r.stdout);
    await mkdir(repo);
    await git('init', '-q', '-b', 'main');
    // A cache makes the run start the local S3 and its AWS SDK client, which warns on Node 20.
    await writeFile(path.join(repo, '.step-runner.yml'), 'version: 1\ncache:\n  - key: {prefix: deps}\n    paths: [deps]\nsteps:\n  - name: hello\n    image: alpine:3.20\n    commands:\n      - mkdir -p deps\n      - echo "hello from the installed runner"\n');
    await git('add', '.');
    await git('commit', '-q', '-m', 'first');

    // Started from a process that ran local executions (a bench, a script), whose variable it inherits.
    const inherited = { ...env, AWS_LAMBDA_MAX_CONCURRENCY: '10' };
    const { stdout, stderr } = await exec('step-runner', ['run'], { cwd: repo, env: inherited, maxBuffer: 16 * 1024 * 1024 });
    expect(stdout).toContain(`Pipeline: ${path.join(repo, '.step-runner.yml')}`);
    expect(stdout).toContain('│ hello from the installed runner');
    expect(stdout).toContain('cache deps: saved');
    expect(`${stdout}${stderr}`).not.toMatch(/\(node:\d+\) \w*Warning/);
    expect(stdout).toContain('Execution SUCCEEDED');
    expect(await git('status', '--porcelain', '--ignored', '--untracked-files=all')).toBe('');
    expect(await readdir(path.join(root, 'state', 'step-runner', 'logs'))).toHaveLength(1);
  }, 60_000);
});
