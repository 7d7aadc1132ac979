/**
 * A step's artifacts as its pod keeps them: the step script's hand-over (after a failure too) and
 * the save sidecar's uploads and manifest (and its test reports' bundle, report-scripts.ts), run as the pod runs them (`/bin/sh -c`) with this
 * machine's sh and tools and, where installed, busybox's (as in the cache image), against a real
 * S3 protocol server (moto) through presigned PUTs as LaunchStep makes them.
 */
import { jest } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { startMotoServer, motoServerInstalled, type MotoServer } from '../../test/fixtures/moto-server.js';
import { describeRequiring } from '../../test/fixtures/requirements.js';
import { scriptToolboxes, startScript, type Toolbox } from '../../test/fixtures/pod-scripts.js';
import { cacheSaveScript, type ArtifactScriptPlan, type CacheDirs, type CacheScriptEntry } from './cache-scripts.js';
import { shellQuote, stepScript } from './step-script.js';
import { parseReportBundle } from './report-scripts.js';

jest.setTimeout(60_000);

let moto: MotoServer;
let s3: S3Client;
let bucket: string;
const temps: string[] = [];

function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `artifact-scripts-${name}-`));
  temps.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const toolboxes = scriptToolboxes('the artifact scripts');

const putUrl = (key: string) => getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: 600 });
const cachePutUrl = (key: string) =>
  getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: key, IfNoneMatch: '*' }), { expiresIn: 600, unhoistableHeaders: new Set(['if-none-match']) });

async function objectBytes(key: string): Promise<Buffer> {
  return Buffer.from(await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToByteArray());
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

let runs = 0;

/**
 * The step's artifacts as LaunchStep plans them: `dist/` (a folder by its `/`), `coverage/lcov.info`
 * and `report` (either), and `absent.txt`; their URLs by env variable.
 */
async function plan(): Promise<{ folder: string; artifacts: ArtifactScriptPlan; urls: Record<string, string>; manifest: string }> {
  const folder = `artifacts/30d/acme%2Fweb/build-${++runs}/test/`;
  const urls: Record<string, string> = {};
  const upload = async (env: string, object: string) => {
    urls[env] = await putUrl(`${folder}${object}`);
    return { urlKey: env, object: `${folder}${object}` };
  };
  const artifacts: ArtifactScriptPlan = {
    paths: [
      { path: 'dist/', folder: await upload('A0D', '0-dist.tar.gz') },
      { path: 'coverage/lcov.info', file: await upload('A1', '1-coverage_lcov.info'), folder: await upload('A1D', '1-coverage_lcov.info.tar.gz') },
      { path: 'report', file: await upload('A2', '2-report'), folder: await upload('A2D', '2-report.tar.gz') },
      { path: "absent's.txt", file: await upload('A3', '3-absent_s.txt'), folder: await upload('A3D', '3-absent_s.txt.tar.gz') },
    ],
    manifest: await upload('M', 'manifest.json'),
  };
  return { folder, artifacts, urls, manifest: `${folder}manifest.json` };
}

/** The sidecar, started before the step as the kubelet starts it; stopped once the step ended. */
function sidecar(tools: Toolbox, entries: CacheScriptEntry[], dirs: CacheDirs, artifacts: ArtifactScriptPlan, urls: Record<string, string>) {
  return startScript(tools, cacheSaveScript(entries, dirs, artifacts), urls);
}

function runStep(tools: Toolbox, commands: string[], dirs: CacheDirs) {
  return spawnSync(tools.sh, ['-c', stepScript(commands, { awaitSave: true, keepArtifacts: true, scratch: dirs.scratch })], {
    cwd: dirs.workspace,
    encoding: 'utf8',
    env: { PATH: tools.PATH },
    timeout: 30_000,
  });
}

const BUILD = ['mkdir -p dist/js coverage report', 'echo "console.log(1)" > dist/js/app.js', 'echo "TN:" > coverage/lcov.info', 'echo "<testsuite/>" > report/junit.xml'];

describeRequiring('the artifact scripts against S3 (moto)', motoServerInstalled, () => {
  beforeAll(async () => {
    moto = await startMotoServer();
    s3 = moto.client();
    bucket = await moto.bucket();
  });
  afterAll(async () => {
    await moto?.stop();
  });

  describe.each(toolboxes)('with $name', (tools) => {
    it('keeps each artifact after a step that succeeded, with a manifest of their sizes and sha256, and saves the cache with the URLs signed again meanwhile', async () => {
      const dirs = { workspace: tempDir('workspace'), scratch: tempDir('scratch') };
      const { artifacts, urls, manifest, folder } = await plan();
      const cacheKey = `cache/acme%2Fweb/branch/main/0123456789abcdef/k-${runs}`;
      const signedAgain = { PUT: await cachePutUrl(cacheKey), M: urls['M']! };
      // The sidecar starts with URLs S3 refuses (as it refuses those of a session that has ended);
      // while the step runs they are signed again and the volume's files swapped, as PollStep and
      // the kubelet do: the sidecar reads each when it uploads, so it uses the new ones.
      const refused = (url: string) => url.replace(bucket, 'no-such-bucket-here');
      const save = sidecar(tools, [{ key: 'k', paths: ['dist'], restore: [], save: { urlKey: 'PUT' } }], dirs, artifacts, { ...urls, PUT: refused(signedAgain.PUT), M: refused(signedAgain.M) });
      const swap = Object.entries(signedAgain).map(([key, url]) => `printf '%s' ${shellQuote(url)} > ${shellQuote(join(save.urls.dir, `.${key}.new`))} && mv ${shellQuote(join(save.urls.dir, `.${key}.new`))} ${shellQuote(join(save.urls.dir, key))}`);
      const step = runStep(tools, [...BUILD, ...swap], dirs);
      const { stdout } = await save.stop();
      expect(step.status).toBe(0);
      expect(stdout.split('\n')).toEqual([
        expect.stringMatching(/^cache k: saved \(/),
        expect.stringMatching(/^artifact dist\/: kept \(\d+ B, sha256 [0-9a-f]{12}…\)$/),
        expect.stringMatching(/^artifact coverage\/lcov\.info: kept \(4 B, sha256 [0-9a-f]{12}…\)$/),
        expect.stringMatching(/^artifact report: kept \(\d+ B, sha256 [0-9a-f]{12}…\)$/),
        "artifact absent's.txt: does not exist, not kept",
        '',
      ]);
      // What the sidecar said ends the step's own log.
      expect(step.stdout).toContain(`+ keeping the artifacts\ncache k: saved`);
      expect(step.stdout.endsWith(`artifact absent's.txt: does not exist, not kept\n`)).toBe(true);
      expect(readFileSync(join(dirs.scratch, 'ended'), 'utf8')).toBe('0\n');
      await expect(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: cacheKey }))).resolves.toBeDefined();

      const listed = JSON.parse((await objectBytes(manifest)).toString('utf8')) as { artifacts: { path: string; object: string; size: number; sha256: string }[]; missing: string[] };
      expect(listed.missing).toEqual(["absent's.txt"]);
      expect(listed.artifacts.map((a) => [a.path, a.object])).toEqual([
        ['dist/', `${folder}0-dist.tar.gz`],
        ['coverage/lcov.info', `${folder}1-coverage_lcov.info`],
        ['report', `${folder}2-report.tar.gz`],
      ]);
      for (const artifact of listed.artifacts) {
        const bytes = await objectBytes(artifact.object);
        expect({ size: bytes.length, sha256: sha256(bytes) }).toEqual({ size: artifact.size, sha256: artifact.sha256 });
      }
      expect((await objectBytes(`${folder}1-coverage_lcov.info`)).toString()).toBe('TN:\n');
      // A folder's tar.gz unpacks as the folder, relative to the workspace.
      const unpacked = tempDir('unpacked');
      writeFileSync(join(unpacked, 'dist.tar.gz'), await objectBytes(`${folder}0-dist.tar.gz`));
      expect(spawnSync('/bin/sh', ['-c', 'tar -xzf dist.tar.gz && cat dist/js/app.js'], { cwd: unpacked, encoding: 'utf8' }).stdout).toBe('console.log(1)\n');
    });

    it('keeps the artifacts of a step that failed, with its exit status, and saves no cache', async () => {
      const dirs = { workspace: tempDir('workspace'), scratch: tempDir('scratch') };
      const { artifacts, urls, manifest } = await plan();
      const cacheKey = `cache/acme%2Fweb/branch/main/0123456789abcdef/failed-${runs}`;
      const save = sidecar(tools, [{ key: 'k', paths: ['dist'], restore: [], save: { urlKey: 'PUT' } }], dirs, artifacts, { ...urls, PUT: await cachePutUrl(cacheKey) });
      const step = runStep(tools, [...BUILD, 'echo "tests failed"; exit 3', 'echo never'], dirs);
      const { stdout } = await save.stop();
      expect(step.status).toBe(3);
      expect(step.stdout).not.toContain('never\n');
      expect(step.stdout).toMatch(/\ntests failed\n\+ keeping the artifacts\nartifact dist\/: kept/);
      expect(stdout).not.toMatch(/^cache /m);
      expect(readFileSync(join(dirs.scratch, 'ended'), 'utf8')).toBe('3\n');
      expect(existsSync(join(dirs.scratch, 'succeeded'))).toBe(false);
      await expect(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: cacheKey }))).rejects.toThrow();
      const listed = JSON.parse((await objectBytes(manifest)).toString('utf8')) as { artifacts: { path: string }[] };
      expect(listed.artifacts.map((a) => a.path)).toEqual(['dist/', 'coverage/lcov.info', 'report']);
    });

    it('hands over after a command that fails under set -e too, and after none of the paths exist', async () => {
      const dirs = { workspace: tempDir('workspace'), scratch: tempDir('scratch') };
      const { artifacts, urls, manifest } = await plan();
      const save = sidecar(tools, [], dirs, artifacts, urls);
      const step = runStep(tools, ['false\necho after'], dirs);
      const { stdout } = await save.stop();
      expect(step.status).toBe(1);
      expect(stdout).toBe(["artifact dist/: does not exist, not kept", 'artifact coverage/lcov.info: does not exist, not kept', 'artifact report: does not exist, not kept', "artifact absent's.txt: does not exist, not kept", ''].join('\n'));
      expect(JSON.parse((await objectBytes(manifest)).toString('utf8'))).toEqual({ artifacts: [], missing: ['dist/', 'coverage/lcov.info', 'report', "absent's.txt"] });
    });

    it("sends the test reports its globs match after a failure, in a bundle FinishStep reads back, saying each glob that matched nothing", async () => {
      const dirs = { workspace: tempDir('workspace'), scratch: tempDir('scratch') };
      const { artifacts, urls } = await plan();
      const bundle = `artifacts/1d/acme%2Fweb/build-${runs}/test/test-reports-r0-a0.gz`;
      const reports = { junit: ['reports/**/*.xml', 'web/junit.xml', 'go/**/junit.xml'], urlKey: 'R' };
      const save = startScript(tools, cacheSaveScript([], dirs, artifacts, reports), { ...urls, R: await putUrl(bundle) });
      const step = runStep(tools, [
        'mkdir -p reports/unit node_modules/x/reports web',
        `printf '<testsuite name="a"/>' > reports/a.xml`,
        `printf '<testsuite name="b">\\n</testsuite>\\n' > "reports/unit/b c.xml"`,
        // Not a report of the step: a dependency's, and a file the glob does not name.
        `printf '<testsuite/>' > node_modules/x/reports/junk.xml`,
        `printf 'x' > reports/notes.txt`,
        `printf '<testsuites/>' > web/junit.xml`,
        'exit 1',
      ], dirs);
      const { stdout } = await save.stop();
      expect(step.status).toBe(1);
      expect(stdout.split('\n').slice(-5)).toEqual(['reports: no file matches go/**/junit.xml', 'report reports/a.xml: 21 B', 'report reports/unit/b c.xml: 34 B', 'report web/junit.xml: 13 B', '']);
      const read = parseReportBundle(await objectBytes(bundle));
      expect(read).toEqual({
        ok: true,
        records: [
          { kind: 'unmatched', glob: 'go/**/junit.xml' },
          { kind: 'file', path: 'reports/a.xml', text: '<testsuite name="a"/>' },
          { kind: 'file', path: 'reports/unit/b c.xml', text: '<testsuite name="b">\n</testsuite>\n' },
          { kind: 'file', path: 'web/junit.xml', text: '<testsuites/>' },
        ],
      });
    });

    it('does not keep a file where the path names a folder, and an upload S3 refuses is a line', async () => {
      const dirs = { workspace: tempDir('workspace'), scratch: tempDir('scratch') };
      mkdirSync(join(dirs.workspace, 'coverage'));
      writeFileSync(join(dirs.workspace, 'dist'), 'a file\n');
      writeFileSync(join(dirs.workspace, 'coverage', 'lcov.info'), 'TN:\n');
      const { artifacts, urls } = await plan();
      const refused = { ...urls, A1: urls['A1']!.replace(bucket, 'no-such-bucket-here') };
      const save = sidecar(tools, [], dirs, artifacts, refused);
      const step = runStep(tools, ['true'], dirs);
      const { stdout } = await save.stop();
      expect(step.status).toBe(0);
      expect(stdout.split('\n').slice(0, 2)).toEqual(['artifact dist/: not kept, it is a file, not the folder its / names', 'artifact coverage/lcov.info: not kept, HTTP 404 NoSuchBucket']);
    });
  });
});
