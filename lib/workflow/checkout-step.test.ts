import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { stepScript } from '../kube/index.js';
import { checkoutStep } from './checkout-step.js';

const run = promisify(execFile);
const git = (cwd: string, ...args: string[]) =>
  run('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', ...args], { cwd }).then((r) => r.stdout.trim());

let root: string;
let origin: string;
let first: string;
let second: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'checkout-'));
  origin = path.join(root, 'origin');
  await run('git', ['init', '-q', '-b', 'main', origin]);
  await writeFile(path.join(origin, 'README'), 'first\n');
  await git(origin, 'add', '.');
  await git(origin, 'commit', '-q', '-m', 'first');
  first = await git(origin, 'rev-parse', 'HEAD');
  await writeFile(path.join(origin, 'README'), 'second\n');
  await git(origin, 'commit', '-q', '-am', 'second');
  second = await git(origin, 'rev-parse', 'HEAD');
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** The clone step's script as its container runs it: `sh -c`, in an empty workspace. */
async function clone(commit: string, depth = 1) {
  const step = checkoutStep({ url: origin, commit, ref: 'refs/heads/main' }, { depth, submodules: false }, 'alpine/git:v2.54.0');
  const workspace = await mkdtemp(path.join(root, 'workspace-'));
  try {
    const { stdout } = await run('/bin/sh', ['-c', stepScript(step.commands)], { cwd: workspace, env: { ...process.env, ...step.env } });
    return { ok: true as const, stdout, workspace };
  } catch (error) {
    return { ok: false as const, stdout: String((error as { stdout?: string }).stdout), stderr: String((error as { stderr?: string }).stderr), workspace };
  }
}

describe('the clone step', () => {
  it('is named clone and runs the pinned image', () => {
    const step = checkoutStep({ url: 'https://github.com/team/app.git', commit: second }, { depth: 1, submodules: false }, 'alpine/git:v2.54.0');
    expect(step).toMatchObject({ name: 'clone', image: 'alpine/git:v2.54.0', env: { GIT_TERMINAL_PROMPT: '0' } });
  });

  it('checks out exactly the commit it was given, not the branch tip, with the history asked for', async () => {
    const result = await clone(first);
    expect(result.ok).toBe(true);
    expect(await readFile(path.join(result.workspace, 'README'), 'utf8')).toBe('first\n');
    expect(await git(result.workspace, 'rev-parse', 'HEAD')).toBe(first);
    expect(await git(result.workspace, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(result.stdout).toContain(`checked out ${first}: first`);
  });

  it('fetches the whole history with depth 0', async () => {
    const result = await clone(second, 0);
    expect(await git(result.workspace, 'rev-list', '--count', 'HEAD')).toBe('2');
  });

  it('fails, with git\'s own words, for a commit the repository does not have', async () => {
    const result = await clone('0123456789abcdef0123456789abcdef01234567');
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.stderr).toMatch(/0123456789abcdef0123456789abcdef01234567|did not match|not our ref|unable to read tree/);
  });
});
