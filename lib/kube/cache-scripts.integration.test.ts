/**
 * The cache containers' scripts, run as the pod runs them (`/bin/sh -c`) with this machine's sh,
 * curl, tar, gzip and sha256sum, against a real S3 protocol server (moto) through presigned URLs
 * as LaunchStep makes them. Temporary directories stand in for /workspace, /step-runner and the
 * Secret volume at /step-runner-urls.
 */
import { jest } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { startMotoServer, motoServerInstalled, type MotoServer } from '../../test/fixtures/moto-server.js';
import { describeRequiring } from '../../test/fixtures/requirements.js';
import { waitFor } from '../../test/fixtures/wait-for.js';
import { HOST_TOOLS, scriptToolboxes, startScript, urlsVolume, type Toolbox } from '../../test/fixtures/pod-scripts.js';
import { cacheRestoreScript, cacheSaveScript, CACHE_ENTRY_MAGIC, type CacheDirs, type CacheScriptEntry } from './cache-scripts.js';
import { stepScript } from './step-script.js';

jest.setTimeout(60_000);

let moto: MotoServer;
let s3: S3Client;
let bucket: string;
const temps: string[] = [];

function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `cache-scripts-${name}-`));
  temps.push(dir);
  return dir;
}

/** A step pod's directories: its workspace as the checkout left it (a `.git`, where the restore keeps its locks), its scratch. */
function pod(workspace = tempDir('workspace')): CacheDirs {
  mkdirSync(join(workspace, '.git'), { recursive: true });
  return { workspace, scratch: tempDir('scratch') };
}

/** What the steps see in a workspace: its files but the checkout's `.git`. */
const files = (workspace: string) => readdirSync(workspace).filter((name) => name !== '.git');

const getUrl = (key: string) => getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: 600 });
// The condition must reach S3 as a header: hoisted into the query string it would not be a condition.
const putUrl = (key: string) =>
  getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: key, IfNoneMatch: '*' }), { expiresIn: 600, unhoistableHeaders: new Set(['if-none-match']) });

const toolboxes = scriptToolboxes('the cache scripts');

let tools: Toolbox = HOST_TOOLS;

/** Only what a container has: PATH and the URLs' volume; the other directories come from the generators. */
function env(urls: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: tools.PATH, ...urlsVolume(urls).env };
}

/** `step`: the step's name, as its pod's restore container is told; `path` goes before the toolbox's (a clock of the test's). */
function restore(entries: CacheScriptEntry[], dirs: CacheDirs, urls: Record<string, string>, { step, path }: { step?: string; path?: string } = {}) {
  const result = spawnSync(tools.sh, ['-c', cacheRestoreScript(entries, dirs, step)], { encoding: 'utf8', env: { ...env(urls), ...(path ? { PATH: `${path}:${tools.PATH}` } : {}) }, timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The same, left to run beside others (the restore containers of steps side by side). */
function restoring(entries: CacheScriptEntry[], dirs: CacheDirs, urls: Record<string, string>, step: string): Promise<{ status: number | null; stdout: string }> {
  const volume = urlsVolume(urls);
  const child = spawn(tools.sh, ['-c', cacheRestoreScript(entries, dirs, step)], { env: { PATH: tools.PATH, ...volume.env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, stdout })));
}

/** Runs the save sidecar's script with the hand-over already made, until `saved`; then stops it as the kubelet does. */
async function save(entries: CacheScriptEntry[], dirs: CacheDirs, urls: Record<string, string>) {
  writeFileSync(join(dirs.scratch, 'succeeded'), '');
  return runSidecar(entries, dirs, urls, async () => {
    await waitFor(() => existsSync(join(dirs.scratch, 'saved')) || undefined, { timeoutMs: 30_000, what: 'the sidecar to write saved' });
  });
}

async function runSidecar(entries: CacheScriptEntry[], dirs: CacheDirs, urls: Record<string, string>, until: () => Promise<void>) {
  const sidecar = startScript(tools, cacheSaveScript(entries, dirs), urls);
  try {
    await until();
  } catch (error) {
    await sidecar.stop();
    throw error;
  }
  return sidecar.stop();
}

/** Every file under dir with its content, symlinks as `-> target`. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (at === dir && name === '.git') continue;
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else out[relative(dir, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return out;
}

function write(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

let keys = 0;
const newKey = (name: string) => `cache/acme%2Fweb/branch/main/0123456789abcdef/${name}-${++keys}`;

const built = {
  'node_modules/left-pad/index.js': 'module.exports = (s) => s;\n',
  'node_modules/left-pad/package.json': '{"name":"left-pad"}\n',
  '.npm/_cacache/index': 'x'.repeat(5000),
  'dir with space/it\'s here.txt': 'quoted\n',
  'src/not-cached.ts': 'export {};\n',
};

describeRequiring('the cache scripts against S3 (moto)', motoServerInstalled, () => {
  beforeAll(async () => {
    moto = await startMotoServer();
    s3 = moto.client();
    bucket = await moto.bucket();
  });
  afterAll(async () => {
    await moto?.stop();
  });

  describe.each(toolboxes)('with $name', (toolbox) => {
    beforeAll(() => {
      tools = toolbox;
    });

    it('saves an entry and restores the same files into another workspace', async () => {
      const key = newKey('npm');
      const paths = ['node_modules', '.npm', 'dir with space', 'absent'];
      const builder = pod();
      write(builder.workspace, built);
      const saved = await save([{ key: 'npm-abc', paths, restore: [], save: { urlKey: 'PUT_URL' } }], builder, { PUT_URL: await putUrl(key) });
      expect(saved.status).toBe(0);
      expect(saved.stdout).toMatch(/^cache npm-abc: absent does not exist, not saved\ncache npm-abc: saved \(\d+(\.\d)? (B|kB|MB), \d+ s\)\n$/);
      // Nothing left behind in the scratch directory but the hand-over.
      expect(readdirSync(builder.scratch).filter((f) => f.startsWith('save-')).sort()).toEqual([]);

      const stored = Buffer.from(await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToByteArray());
      const newline = stored.indexOf(0x0a);
      const [magic, version, format, sum, bytes] = stored.subarray(0, newline).toString().split(' ');
      expect(`${magic} ${version} ${format}`).toBe(CACHE_ENTRY_MAGIC);
      expect(Number(bytes)).toBe(stored.length - newline - 1);
      expect(createHash('sha256').update(stored.subarray(newline + 1)).digest('hex')).toBe(sum);

      const next = pod();
      const restored = restore([{ key: 'npm-abc', paths, restore: [{ label: 'npm-abc on main', urlKey: 'GET_URL' }] }], next, { GET_URL: await getUrl(key) });
      expect(restored).toMatchObject({ status: 0, stderr: '' });
      expect(restored.stdout).toMatch(/^cache npm-abc: restored from npm-abc on main \(\d+(\.\d)? (B|kB|MB), \d+ s\)\n$/);
      const { 'src/not-cached.ts': _, ...cached } = built;
      expect(tree(next.workspace)).toEqual(cached);
    });

    it('tries the candidates in order: a missing one is a miss, the next one restores', async () => {
      const key = newKey('fallback');
      const builder = pod();
      write(builder.workspace, { 'out/a.txt': 'a\n' });
      await save([{ key: 'k', paths: ['out'], restore: [], save: { urlKey: 'PUT' } }], builder, { PUT: await putUrl(key) });

      const next = pod();
      const entries = [{ key: 'k', paths: ['out'], restore: [{ label: 'exact', urlKey: 'A' }, { label: 'fallback k-', urlKey: 'B' }] }];
      const result = restore(entries, next, { A: await getUrl(newKey('never-saved')), B: await getUrl(key) });
      expect(result.status).toBe(0);
      expect(result.stdout).toMatch(/^cache k: restored from fallback k- \(/);
      expect(tree(next.workspace)).toEqual({ 'out/a.txt': 'a\n' });
    });

    it('logs a miss when no candidate exists, and never fails', async () => {
      const next = pod();
      const entries = [{ key: 'k', paths: ['out'], restore: [{ label: 'exact', urlKey: 'A' }, { label: 'on main', urlKey: 'B' }] }];
      const result = restore(entries, next, { A: await getUrl(newKey('none')), B: await getUrl(newKey('none')) });
      expect(result).toMatchObject({ status: 0, stdout: 'cache k: miss (tried exact, on main)\n' });
      expect(files(next.workspace)).toEqual([]);
    });

    it('a step with nothing to restore holds the workspace as a miss: the entry it then saves is not unpacked over its files by the next step', async () => {
      const key = newKey('first-build');
      const shared = tempDir('workspace');
      const first = restore([{ key: 'k', paths: ['out'], restore: [], restoreMiss: 'nothing saved as k on this branch' }], pod(shared), {}, { step: 'install' });
      expect(first.stdout).toBe('cache k: miss (nothing saved as k on this branch)\n');
      write(shared, { 'out/a.txt': 'installed\n' });
      await save([{ key: 'k', paths: ['out'], restore: [], save: { urlKey: 'PUT' } }], pod(shared), { PUT: await putUrl(key) });
      writeFileSync(join(shared, 'out/a.txt'), 'changed after the save\n');

      // The next step of the build: LaunchStep found the entry install saved.
      const next = restore([{ key: 'k', paths: ['out'], restore: [{ label: 'exact', urlKey: 'GET' }] }], pod(shared), { GET: await getUrl(key) }, { step: 'test' });
      expect(next.stdout).toBe('cache k: miss (step "install" found nothing to restore into this workspace)\n');
      expect(tree(shared)).toEqual({ 'out/a.txt': 'changed after the save\n' });
    });

    it.each([
      ['a payload that does not match its checksum', (payload: Buffer) => Buffer.concat([Buffer.from(`${CACHE_ENTRY_MAGIC} ${'0'.repeat(64)} ${payload.length}\n`), payload]), /^cache k: exact checksum mismatch \(sha256 [0-9a-f]{64}, its header says 0{64}\)$/],
      ['something that is not an entry', () => Buffer.from('<html>hello</html>\n'), /^cache k: exact unreadable \(not a step-runner cache entry of version 1 tar\+gzip\)$/],
      ['an entry cut short', (payload: Buffer) => Buffer.concat([Buffer.from(`${CACHE_ENTRY_MAGIC} ${sha256(payload)} ${payload.length + 10}\n`), payload]), /^cache k: exact unreadable \(\d+ bytes, its header says \d+\)$/],
      ['a payload that is not a gzip tar', () => Buffer.from(`${CACHE_ENTRY_MAGIC} ${sha256(Buffer.from('plain\n'))} 6\nplain\n`), /^cache k: exact unreadable \(.+\)$/],
    ])('takes %s for an unreadable entry: a logged miss', async (_what, body, line) => {
      const key = newKey('corrupt');
      const payload = spawnSync('/bin/sh', ['-c', 'printf hi > f && tar -cf - f | gzip -1'], { cwd: tempDir('payload') }).stdout;
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body(payload) }));
      const next = pod();
      const result = restore([{ key: 'k', paths: ['f'], restore: [{ label: 'exact', urlKey: 'A' }] }], next, { A: await getUrl(key) });
      expect(result.status).toBe(0);
      const [first, second, ...rest] = result.stdout.split('\n');
      expect(first).toMatch(line);
      expect(second).toBe('cache k: miss (tried exact)');
      expect(rest).toEqual(['']);
      expect(files(next.workspace)).toEqual([]);
    });

    it('restores an entry once into a workspace that three steps side by side restore it into at once: the others wait for it, and all see its files', async () => {
      const key = newKey('siblings');
      const builder = pod();
      write(builder.workspace, built);
      await save([{ key: 'npm-abc', paths: ['node_modules', '.npm'], restore: [], save: { urlKey: 'PUT' } }], builder, { PUT: await putUrl(key) });

      const shared = tempDir('workspace');
      const entries = [{ key: 'npm-abc', paths: ['node_modules', '.npm'], restore: [{ label: 'npm-abc on main', urlKey: 'GET' }] }];
      const url = await getUrl(key);
      const results = await Promise.all(['lint', 'unit', 'docs'].map((step) => restoring(entries, pod(shared), { GET: url }, step)));

      expect(results.map((r) => r.status)).toEqual([0, 0, 0]);
      const logs = results.map((r) => r.stdout);
      expect(logs.join('')).not.toMatch(/unreadable|miss|could not/);
      expect(logs.filter((log) => /^cache npm-abc: restored from npm-abc on main \(/m.test(log))).toHaveLength(1);
      const by = ['lint', 'unit', 'docs'][logs.findIndex((log) => /restored from/.test(log))];
      expect(logs.filter((log) => log.endsWith(`cache npm-abc: restored into this workspace by step "${by}" (from npm-abc on main; waited ${/waited (\d+) s/.exec(log)?.[1]} s)\n`))).toHaveLength(2);
      expect(tree(shared)).toEqual({ 'node_modules/left-pad/index.js': built['node_modules/left-pad/index.js'], 'node_modules/left-pad/package.json': built['node_modules/left-pad/package.json'], '.npm/_cacache/index': built['.npm/_cacache/index'] });
      // The lock stays with the workspace: a later step finds the entry there and leaves it as the steps before it made it.
      writeFileSync(join(shared, 'node_modules/left-pad/index.js'), 'changed by a step\n');
      expect(restore(entries, pod(shared), { GET: url }, { step: 'e2e' }).stdout).toMatch(new RegExp(`^cache npm-abc: restored into this workspace by step "${by}" \\(from npm-abc on main; waited \\d+ s\\)\n$`));
      expect(readFileSync(join(shared, 'node_modules/left-pad/index.js'), 'utf8')).toBe('changed by a step\n');
      expect(readdirSync(join(shared, '.git', 'step-runner-cache'))).toHaveLength(1);
    });

    it('takes over a restore its own earlier attempt left, and one whose step stopped giving signs of life', async () => {
      const key = newKey('taken-over');
      const builder = pod();
      write(builder.workspace, { 'out/a.txt': 'a\n' });
      await save([{ key: 'k', paths: ['out'], restore: [], save: { urlKey: 'PUT' } }], builder, { PUT: await putUrl(key) });
      const entries = [{ key: 'k', paths: ['out'], restore: [{ label: 'exact', urlKey: 'GET' }] }];
      const url = await getUrl(key);
      /** A lock as a restore leaves it when its pod goes mid-way: who, its last heartbeat, no `done`. */
      const leftBy = (step: string): CacheDirs => {
        const dirs = pod();
        const locks = join(dirs.workspace, '.git', 'step-runner-cache');
        const first = restore(entries, pod(dirs.workspace), { GET: url }, { step });
        expect(first.stdout).toMatch(/^cache k: restored from exact/);
        const [lock] = readdirSync(locks);
        rmSync(join(locks, lock!, 'done'));
        writeFileSync(join(locks, lock!, 'beat'), '7\n');
        return dirs;
      };

      const retried = restore(entries, leftBy('unit'), { GET: url }, { step: 'unit' });
      expect(retried.stdout).toMatch(/^cache k: an earlier attempt of this step stopped restoring it; restoring it again\ncache k: restored from exact \(/);

      // busybox sh runs its own date, never one on PATH: the clock below is the host sh's only.
      if (tools !== HOST_TOOLS) return;
      // A clock that moves 10 s each time it is read: the stopped heartbeat is 60 s old without waiting for it.
      const bin = tempDir('clock');
      writeFileSync(join(bin, 'now'), '1000');
      writeFileSync(join(bin, 'date'), `#!/bin/sh\nnow=$(cat ${bin}/now); echo "$now"; echo $((now + 10)) > ${bin}/now\n`, { mode: 0o755 });
      const stale = restore(entries, leftBy('lint'), { GET: url }, { step: 'unit', path: bin });
      expect(stale.stdout).toMatch(/^cache k: step "lint" is restoring it into this workspace; waiting for it\ncache k: step "lint" stopped restoring it \(no sign of it for \d+ s\); restoring it here\ncache k: restored from exact \(/);
    });

    it('says an entry it could not unpack into the workspace could not be unpacked there, not that it is unreadable, and tries no other', async () => {
      const key = newKey('unwritable');
      const builder = pod();
      write(builder.workspace, { 'out/a.txt': 'a\n' });
      await save([{ key: 'k', paths: ['out'], restore: [], save: { urlKey: 'PUT' } }], builder, { PUT: await putUrl(key) });
      // A folder, not empty, where the entry has a file: what the workspace holds is in the way, not the entry.
      const next = pod();
      write(next.workspace, { 'out/a.txt/in-the-way': 'x\n' });
      const result = restore([{ key: 'k', paths: ['out'], restore: [{ label: 'exact', urlKey: 'A' }, { label: 'fallback', urlKey: 'B' }] }], next, { A: await getUrl(key), B: await getUrl(key) });
      expect(result).toMatchObject({ status: 0, stdout: expect.stringMatching(/^cache k: exact could not be unpacked into the workspace \(.+\)\n$/) });
    });

    it('keeps the first build\'s entry when another saves the same key: the 412 is a log line', async () => {
      const key = newKey('race');
      const first = pod();
      write(first.workspace, { 'out/who': 'first\n' });
      const url = await putUrl(key);
      expect((await save([{ key: 'npm-1', paths: ['out'], restore: [], save: { urlKey: 'PUT' } }], first, { PUT: url })).stdout).toMatch(/saved/);
      const second = pod();
      write(second.workspace, { 'out/who': 'second\n' });
      const again = await save([{ key: 'npm-1', paths: ['out'], restore: [], save: { urlKey: 'PUT' } }], second, { PUT: await putUrl(key) });
      expect(again).toMatchObject({ status: 0, stdout: 'cache npm-1: another build saved npm-1 first; kept theirs\n' });

      const next = pod();
      restore([{ key: 'npm-1', paths: ['out'], restore: [{ label: 'exact', urlKey: 'A' }] }], next, { A: await getUrl(key) });
      expect(tree(next.workspace)).toEqual({ 'out/who': 'first\n' });
    });

    it('saves nothing when none of the paths exist, and still hands back', async () => {
      const dirs = pod();
      const result = await save([{ key: 'k', paths: ['node_modules'], restore: [], save: { urlKey: 'PUT' } }], dirs, { PUT: await putUrl(newKey('empty')) });
      expect(result).toMatchObject({
        status: 0,
        stdout: 'cache k: node_modules does not exist, not saved\ncache k: none of its paths exist, nothing saved\n',
      });
    });

    it('prints why an entry will not be saved, and skips entries without a save URL', async () => {
      const entries: CacheScriptEntry[] = [
        { key: 'npm-1', paths: ['node_modules'], restore: [], saveSkipped: 'the exact key was restored' },
        { key: 'pip', paths: ['.pip'], restore: [], saveSkipped: 'a pull request from a fork writes no cache' },
      ];
      expect(restore(entries, pod(), {})).toMatchObject({
        status: 0,
        stdout: 'cache npm-1: will not be saved: the exact key was restored\ncache pip: will not be saved: a pull request from a fork writes no cache\n',
      });
      const dirs = pod();
      expect(await save(entries, dirs, {})).toMatchObject({ status: 0, stdout: '' });
    });

    it('a save URL that S3 refuses is a log line with its code, not a failure', async () => {
      const dirs = pod();
      write(dirs.workspace, { 'out/a': 'a' });
      const url = (await putUrl(newKey('refused'))).replace(bucket, 'no-such-bucket-here');
      const result = await save([{ key: 'k', paths: ['out'], restore: [], save: { urlKey: 'PUT' } }], dirs, { PUT: url });
      expect(result).toMatchObject({ status: 0, stdout: 'cache k: not saved, HTTP 404 NoSuchBucket\n' });
    });

    it('hands over: the step script writes succeeded, the sidecar saves, the step exits 0 once saved', async () => {
      const key = newKey('handover');
      const dirs = pod();
      const sidecar = runSidecar([{ key: 'k', paths: ['out'], restore: [], save: { urlKey: 'PUT' } }], dirs, { PUT: await putUrl(key) }, async () => {
        await waitFor(() => existsSync(join(dirs.scratch, 'saved')) || undefined, { timeoutMs: 30_000, what: 'saved' });
      });
      const step = spawnSync(tools.sh, ['-c', stepScript(['mkdir out', 'echo built > out/result'], { awaitSave: true, scratch: dirs.scratch })], {
        cwd: dirs.workspace,
        encoding: 'utf8',
        env: { PATH: tools.PATH },
        timeout: 30_000,
      });
      // What the save said ends the step's own log.
      expect(step).toMatchObject({ status: 0, stdout: expect.stringMatching(/^\+ mkdir out\n\+ echo built > out\/result\n\+ saving the cache\ncache k: saved \(.+\)\n$/) });
      expect((await sidecar).stdout).toMatch(/^cache k: saved/);
      const next = pod();
      restore([{ key: 'k', paths: ['out'], restore: [{ label: 'exact', urlKey: 'A' }] }], next, { A: await getUrl(key) });
      expect(tree(next.workspace)).toEqual({ 'out/result': 'built\n' });
    });

    it('a failed step hands nothing over: the sidecar saves nothing', async () => {
      const dirs = pod();
      const step = spawnSync(tools.sh, ['-c', stepScript(['exit 3'], { awaitSave: true, scratch: dirs.scratch })], { cwd: dirs.workspace, env: { PATH: tools.PATH } });
      expect(step.status).toBe(3);
      expect(readdirSync(dirs.scratch)).toEqual([]);
    });
  });
});

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

describe('the step waiting for the save', () => {
  it('says every 30 s that it is still saving, and ends once saved', () => {
    // A clock that moves 10 s at each reading, and the save that ends at 70 s: no real waiting.
    const dirs = { scratch: tempDir('scratch'), bin: tempDir('bin') };
    const clock = join(dirs.bin, 'now');
    writeFileSync(clock, '0');
    writeFileSync(
      join(dirs.bin, 'date'),
      `#!/bin/sh\nnow=$(cat ${clock}); echo "$now"; echo $((now + 10)) > ${clock}; if [ "$now" -ge 70 ]; then : > ${dirs.scratch}/saved; fi\n`,
      { mode: 0o755 },
    );
    const step = spawnSync('/bin/sh', ['-c', stepScript(['true'], { awaitSave: true, scratch: dirs.scratch })], {
      encoding: 'utf8',
      env: { PATH: `${dirs.bin}:${process.env.PATH ?? '/usr/bin:/bin'}` },
      timeout: 30_000,
    });
    expect(step).toMatchObject({ status: 0, stdout: '+ true\n+ saving the cache\nstill saving the cache (30 s)\nstill saving the cache (60 s)\n' });
    expect(existsSync(join(dirs.scratch, 'succeeded'))).toBe(true);
  });
});
