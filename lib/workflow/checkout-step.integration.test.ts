import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { stepScript } from '../kube/index.js';
import { startGitHttpServer } from '../../test/fixtures/git-http-server.js';
import { UPLOADED_SOURCE, checkoutStep } from './checkout-step.js';
import { keyFileSets, keyFilesId, parseKeyHashes } from './cache-keys.js';
import { parseImageReference } from '../pipeline/index.js';

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
async function clone(commit: string, depth = 1, keyFiles?: Map<string, string[]>) {
  const step = checkoutStep({ url: origin, commit, ref: 'refs/heads/main' }, { depth, submodules: false }, parseImageReference('alpine/git:v2.54.0'), undefined, keyFiles);
  const workspace = await mkdtemp(path.join(root, 'workspace-'));
  try {
    const { stdout } = await run('/bin/sh', ['-c', stepScript(step.commands, { ...(step.shownAs ? { shownAs: step.shownAs } : {}) })], { cwd: workspace, env: { ...process.env, ...step.env } });
    return { ok: true as const, stdout, workspace };
  } catch (error) {
    return { ok: false as const, stdout: String((error as { stdout?: string }).stdout), stderr: String((error as { stderr?: string }).stderr), workspace };
  }
}

describe('the clone step', () => {
  it('is named clone and runs the pinned image', () => {
    const step = checkoutStep({ url: 'https://github.com/team/app.git', commit: second }, { depth: 1, submodules: false }, parseImageReference('alpine/git:v2.54.0'));
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

describe("the clone step's cache keys", () => {
  const readme = keyFileSets([{ key: { files: ['README'] }, paths: ['x'], fallbackKeys: [], policy: 'pull-push' }]);
  const id = keyFilesId(['README']);

  it("prints a hash of the key files' content at the commit, the same for the same content and another for other content", async () => {
    const [a, b, again] = [await clone(first, 1, readme), await clone(second, 1, readme), await clone(first, 1, readme)];
    const hashOf = (stdout: string) => parseKeyHashes(stdout).hashes[id];
    expect(hashOf(a.ok ? a.stdout : '')).toMatch(/^[0-9a-f]{40}$/);
    // The log says what the runner's own command does, not the shell one-liner that does it.
    expect(a.ok ? a.stdout : '').toContain("+ hash the cache's key files: README\n");
    expect(a.ok ? a.stdout : '').not.toContain('git ls-files');
    expect(hashOf(again.ok ? again.stdout : '')).toBe(hashOf(a.ok ? a.stdout : ''));
    expect(hashOf(b.ok ? b.stdout : '')).not.toBe(hashOf(a.ok ? a.stdout : ''));
  });

  it('names a pattern that matches no file of the commit', async () => {
    const sets = keyFileSets([{ key: { files: ['README', '**/package-lock.json'] }, paths: ['x'], fallbackKeys: [], policy: 'pull-push' }]);
    const result = await clone(first, 1, sets);
    expect(result.ok).toBe(true);
    const parsed = parseKeyHashes(result.ok ? result.stdout : '');
    expect(parsed.unmatched).toEqual([{ id: keyFilesId(['README', '**/package-lock.json']), pattern: '**/package-lock.json' }]);
  });
});

describe('the clone step of a private repository', () => {
  const TOKEN = 'ghs_privateRepoToken0123456789';

  /** The script with the token in the environment, as the Secret reference puts it there. */
  async function privateClone(url: string, commit: string, token: string) {
    const step = checkoutStep({ url, commit, ref: 'refs/heads/main', credentials: 'github' }, { depth: 1, submodules: false }, parseImageReference('alpine/git:v2.54.0'), 'b-1-git-credentials');
    const workspace = await mkdtemp(path.join(root, 'private-'));
    const env = { ...process.env, ...step.env, GIT_TOKEN: token, HOME: workspace };
    const result = await run('/bin/sh', ['-c', stepScript(step.commands)], { cwd: workspace, env, timeout: 20_000 }).then(
      (r) => ({ ok: true, output: r.stdout + r.stderr }),
      (e: { stdout?: string; stderr?: string; killed?: boolean }) => ({ ok: false, killed: e.killed, output: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
    );
    return { ...result, step, workspace };
  }

  it('takes the token from a Secret reference, checks out with it, and leaves it nowhere', async () => {
    const server = await startGitHttpServer(root, TOKEN);
    await run('git', ['clone', '-q', '--bare', origin, path.join(root, 'private.git')]);
    try {
      const result = await privateClone(server.url('private.git'), first, TOKEN);
      expect(result.ok).toBe(true);
      expect(result.step.secrets).toEqual([{ env: 'GIT_TOKEN', secret: 'b-1-git-credentials', key: 'token' }]);
      expect(await readFile(path.join(result.workspace, 'README'), 'utf8')).toBe('first\n');
      // Not in the spec's script, not in what it printed, not in the workspace's git config.
      expect(result.step.commands.join('\n')).not.toContain(TOKEN);
      expect(result.output).not.toContain(TOKEN);
      expect(await readFile(path.join(result.workspace, '.git', 'config'), 'utf8')).not.toContain(TOKEN);
    } finally {
      await server.close();
    }
  });

  it('fails at once, without waiting for a password, when the token is refused', async () => {
    const server = await startGitHttpServer(root, TOKEN);
    try {
      const result = await privateClone(server.url('private.git'), first, 'ghs_revokedToken');
      expect(result).toMatchObject({ ok: false, killed: false });
      expect(result.output).toMatch(/Authentication failed|could not read Username|401/);
      expect(result.output).not.toContain('ghs_revokedToken');
      expect(server.refused).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});

describe('the clone step of an uploaded source', () => {
  it('waits for the upload to be complete, fetches from it, and leaves a checkout like any other', async () => {
    const step = checkoutStep({ url: '/home/me/app', commit: first, upload: true }, { depth: 1, submodules: false }, parseImageReference('alpine/git:v2.54.0'));
    const workspace = await mkdtemp(path.join(root, 'upload-'));
    const cloning = run('/bin/sh', ['-c', stepScript(step.commands)], { cwd: workspace, env: { ...process.env, ...step.env }, timeout: 30_000 });
    // What the runner sends through exec: a bare repository, then the mark that it is complete.
    await run('git', ['clone', '-q', '--bare', '--no-tags', `file://${origin}`, path.join(workspace, UPLOADED_SOURCE.dir)]);
    await writeFile(path.join(workspace, UPLOADED_SOURCE.done), '');
    const { stdout } = await cloning;

    expect(stdout).toContain(`checked out ${first}: first`);
    expect(await readFile(path.join(workspace, 'README'), 'utf8')).toBe('first\n');
    expect(await git(workspace, 'rev-list', '--count', 'HEAD')).toBe('1');
    // Nothing of the upload is left: the work tree is clean and no remote points at a deleted folder.
    expect(await git(workspace, 'status', '--porcelain', '--ignored')).toBe('');
    expect(await git(workspace, 'remote')).toBe('');
  });
});
