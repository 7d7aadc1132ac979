/**
 * The package as a user installs it: `npm pack`, then `npm install -g` of the tarball (into a
 * temporary prefix), and `step-runner` from that prefix's bin, in a fresh repository far from this
 * clone: its help, and a build of the repository's `.step-runner.yml` with no file named, after
 * which `git status` is clean and the logs are in the state directory. The install takes the
 * dependencies from npm's cache when it has them (--prefer-offline), else from the registry.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

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
  await exec('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', path.join(root, info.filename)], { cwd: root, env, maxBuffer: 16 * 1024 * 1024 });
}, 240_000);
afterAll(() => rm(root, { recursive: true, force: true }));

describe('npm pack', () => {
  it('packs what the CLI reads at run time, and no tests', () => {
    for (const needed of ['bin/step-runner.js', 'lib/cli/main.ts', 'serverless.yml', 'lib/workflow/state-machine.asl.yml', 'lib/emulators/kubernetes/images/catalog.json', 'lib/console/assets/console.js', 'lib/console/assets/console.css', 'examples/hello.yml']) {
      expect(packed).toContain(needed);
    }
    expect(packed.filter((file) => /\.test\.ts$|^test\/|^\.ci\/|^docs\//.test(file))).toEqual([]);
  });
});

describe('step-runner installed with npm install -g', () => {
  it('answers --help from another directory', async () => {
    const { stdout } = await exec('step-runner', ['--help'], { cwd: root, env });
    expect(stdout).toMatch(/^Usage: step-runner <command>/);
    expect(stdout).toContain('run ');
  });

  it('builds the repository\'s .step-runner.yml with no file named, and leaves git status clean', async () => {
    const repo = path.join(root, 'app');
    const git = (...args: string[]) => exec('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', ...args], { cwd: repo, env }).then((r) => r.stdout);
    await mkdir(repo);
    await git('init', '-q', '-b', 'main');
    await writeFile(path.join(repo, '.step-runner.yml'), 'version: 1\nsteps:\n  - name: hello\n    image: alpine:3.20\n    commands:\n      - echo "hello from the installed runner"\n');
    await git('add', '.');
    await git('commit', '-q', '-m', 'first');

    const { stdout } = await exec('step-runner', ['run'], { cwd: repo, env, maxBuffer: 16 * 1024 * 1024 });
    expect(stdout).toContain(`Pipeline: ${path.join(repo, '.step-runner.yml')}`);
    expect(stdout).toContain('│ hello from the installed runner');
    expect(stdout).toContain('Execution SUCCEEDED');
    expect(await git('status', '--porcelain', '--ignored', '--untracked-files=all')).toBe('');
    expect(await readdir(path.join(root, 'state', 'step-runner', 'logs'))).toHaveLength(1);
  }, 60_000);
});
