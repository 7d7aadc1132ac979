/**
 * `step-runner run` as a user types it inside their own repository: no file named, so it builds
 * the `.step-runner.yml` at the work tree's root (and says so), keeps the step logs in the state
 * directory, and leaves `git status` of the repository exactly as it was: nothing written there
 * that the user would see, or that the next build's snapshot would pick up. And `step-runner init`
 * there: the starter it writes at the work tree's root validates and builds.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { main } from '../lib/cli/main.js';
import { capturedIO } from './fixtures/captured-io.js';

const exec = promisify(execFile);
let root: string;
let repo: string;
let state: string;

const PIPELINE = `version: 1
steps:
  - name: greet
    image: alpine:3.20
    commands:
      - echo "hello from the default file"
`;

const git = async (...args: string[]) => (await exec('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', ...args], { cwd: repo })).stdout;

/** `main` run from `dir`, as a shell in that directory would run the command. */
async function mainIn(dir: string, argv: string[]) {
  const io = capturedIO();
  const before = process.cwd();
  process.chdir(dir);
  try {
    return { code: await main(argv, io), io };
  } finally {
    process.chdir(before);
  }
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'run-from-repo-'));
  repo = path.join(root, 'app');
  state = path.join(root, 'state');
  await exec('git', ['init', '-q', '-b', 'main', repo]);
  await mkdir(path.join(repo, 'src'));
  await writeFile(path.join(repo, 'src', 'index.js'), 'console.log(1)\n');
  await writeFile(path.join(repo, '.step-runner.yml'), PIPELINE);
  await git('add', '.');
  await git('commit', '-q', '-m', 'first');
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('step-runner run from inside a repository', () => {
  it('builds the work tree root\'s .step-runner.yml, names it, keeps logs in the state directory, and leaves git status clean', async () => {
    // From a subdirectory: the default file is the work tree root's, not the current directory's.
    const { code, io } = await mainIn(path.join(repo, 'src'), ['run', '--state-dir', state]);
    const printed = io.outLines.join('\n');
    expect({ code, errors: io.errLines }).toEqual({ code: 0, errors: [] });
    expect(io.outLines).toContain(`Pipeline: ${await realRepoFile('.step-runner.yml')}`);
    expect(printed).toContain('hello from the default file');
    expect(printed).toContain('Execution SUCCEEDED');

    expect(await git('status', '--porcelain', '--ignored', '--untracked-files=all')).toBe('');
    // The logs are where the state directory says, one folder per build.
    const [build, ...others] = await readdir(path.join(state, 'logs'));
    expect(others).toEqual([]);
    expect(await readFile(path.join(state, 'logs', build!, 'greet.log'), 'utf8')).toContain('hello from the default file');
    expect(printed).toContain(path.join(state, 'logs', build!, 'greet.log'));
  }, 60_000);

  it('takes .step-runner.yaml when there is no .yml', async () => {
    const other = path.join(root, 'yaml-only');
    await mkdir(other);
    await writeFile(path.join(other, '.step-runner.yaml'), 'version: 1\ncheckout: false\nsteps:\n  - name: x\n    image: alpine:3.20\n    commands: ["true"]\n');
    const { code, io } = await mainIn(other, ['run', '--state-dir', state, '--json']);
    expect({ code, errors: io.errLines.filter((line) => /rror|problem/i.test(line)) }).toEqual({ code: 0, errors: [] });
    expect(io.errLines[0]).toBe(`Pipeline: ${path.join(await realpathOf(other), '.step-runner.yaml')}`);
  }, 60_000);

  it('is a usage error (exit 2) naming both paths it tried when there is no default file', async () => {
    const empty = path.join(root, 'empty');
    await mkdir(empty);
    const { code, io } = await mainIn(empty, ['run', '--state-dir', state]);
    const dir = await realpathOf(empty);
    expect(code).toBe(2);
    expect(io.errLines[0]).toContain(path.join(dir, '.step-runner.yml'));
    expect(io.errLines[0]).toContain(path.join(dir, '.step-runner.yaml'));
    expect(io.errLines.join('\n')).toContain('Usage: step-runner run');
    await expect(readdir(empty)).resolves.toEqual([]);
  });
});

describe('step-runner init', () => {
  it("writes a starter for an npm project at the work tree's root that validates and builds, and never over an existing one without --force", async () => {
    const project = path.join(root, 'npm-project');
    await cp(fileURLToPath(new URL('./fixtures/init/npm/', import.meta.url)), project, { recursive: true });
    await mkdir(path.join(project, 'src'));
    const inProject = async (...args: string[]) => (await exec('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', ...args], { cwd: project })).stdout;
    await inProject('init', '-q', '-b', 'main');
    await inProject('add', '.');
    await inProject('commit', '-q', '-m', 'first');

    const first = await mainIn(path.join(project, 'src'), ['init']);
    expect({ code: first.code, errors: first.io.errLines }).toEqual({ code: 0, errors: [] });
    expect(first.io.outLines[0]).toBe('Wrote ../.step-runner.yml (4 steps: install, lint, build, test):');
    expect(first.io.outLines.at(-1)).toBe('Next: step-runner run');
    const written = await readFile(path.join(project, '.step-runner.yml'), 'utf8');
    // It prints what it wrote, line for line.
    expect(first.io.outLines.slice(2, -2).map((line) => line.replace(/^ {2}/, '')).join('\n')).toBe(written.trimEnd());

    await writeFile(path.join(project, '.step-runner.yml'), `${written}# mine\n`);
    const again = await mainIn(project, ['init']);
    expect({ code: again.code, err: again.io.errLines }).toEqual({ code: 1, err: ['step-runner init: .step-runner.yml exists already; nothing written (--force writes over it)'] });
    expect(await readFile(path.join(project, '.step-runner.yml'), 'utf8')).toBe(`${written}# mine\n`);
    const forced = await mainIn(project, ['init', '--force']);
    expect(forced.code).toBe(0);
    expect(await readFile(path.join(project, '.step-runner.yml'), 'utf8')).toBe(written);

    expect((await mainIn(project, ['validate'])).io.outLines).toEqual(['.step-runner.yml: valid, 4 steps']);
    const built = await mainIn(project, ['run', '--state-dir', state]);
    const printed = built.io.outLines.join('\n');
    expect({ code: built.code, errors: built.io.errLines }).toEqual({ code: 0, errors: [] });
    for (const line of ['lint: ok', 'tests: 3 passed', 'Execution SUCCEEDED']) expect(printed).toContain(line);
    expect(printed).toMatch(/cache npm-[0-9a-f]+: saved/);
  }, 60_000);
});

describe('step-runner cluster', () => {
  it('writes its kubeconfig into the state directory, not the current directory', async () => {
    const here = path.join(root, 'cluster-cwd');
    await mkdir(here);
    const lines: string[] = [];
    let stop!: (signal: string) => void;
    const stopSignal = new Promise<string>((resolve) => (stop = resolve));
    const io = {
      out: (line: string) => {
        lines.push(line);
        // Stopped as Ctrl-C would, once it says where the kubeconfig is.
        if (line.startsWith('Kubeconfig written to ')) stop('SIGINT');
      },
      err: (line: string) => void lines.push(line),
      stopSignal,
    };
    const before = process.cwd();
    process.chdir(here);
    let code;
    try {
      code = await main(['cluster', '--state-dir', state], io);
    } finally {
      process.chdir(before);
    }
    expect(code).toBe(0);
    expect(lines).toContain(`Kubeconfig written to ${path.join(state, 'kubeconfig')}`);
    expect(await readFile(path.join(state, 'kubeconfig'), 'utf8')).toContain('clusters:');
    await expect(readdir(here)).resolves.toEqual([]);
  });
});

/** git reports the work tree's real path (/tmp may be a symlink, as on macOS). */
async function realpathOf(dir: string): Promise<string> {
  return (await import('node:fs/promises')).realpath(dir);
}
async function realRepoFile(name: string): Promise<string> {
  return path.join(await realpathOf(repo), name);
}
