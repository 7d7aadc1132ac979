/**
 * `step-runner serve` with its embedded cluster on Docker: a clone container cannot read this
 * machine's work tree, so each GitHub delivery's source is sent to it through exec (BuildSource.upload,
 * lib/local/source/source-upload.ts). A signed push for a commit of --source is checked out in the git image
 * and read by a step in busybox; a push for a commit the repository lacks fails the checkout rather
 * than leaving the clone to wait. Afterwards nothing of this process's is left in Docker.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sign } from '@octokit/webhooks-methods';
import { FAST_TIMINGS } from '../lib/emulators/kubernetes/index.js';
import { DockerLabels, ownerLabel } from '../lib/emulators/kubernetes/runtime/docker/labels.js';
import { SANDBOX_IMAGE_ENV } from '../lib/emulators/kubernetes/runtime/runtime-choice.js';
import { startLocalServer, type LocalServer } from '../lib/local/server/local-server.js';
import { dockerDaemon, startTestImages, testImagesBuildable, type TestImages } from './fixtures/docker/test-images.js';
import { describeRequiring } from './fixtures/requirements.js';
import { waitFor } from './fixtures/wait-for.js';
import { branchPush } from './fixtures/webhooks/examples.js';

const run = promisify(execFile);
const SECRET = 'serve-docker-secret-4b1e';
const OWNER = `${DockerLabels.owner}=${ownerLabel({ hostname: hostname(), pid: process.pid })}`;

/** Every container, running or not, that this process's clusters made. */
async function ourContainers(): Promise<string[]> {
  const { stdout } = await run('docker', ['ps', '-a', '--filter', `label=${OWNER}`, '--format', '{{.Names}}']);
  return stdout.split('\n').filter(Boolean);
}

/** The repository deliveries check out from: one commit whose README says hello. */
async function sourceRepository(dir: string): Promise<string> {
  const git = (...args: string[]) =>
    run('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', ...args], { cwd: dir }).then((r) => r.stdout.trim());
  await git('init', '-q');
  await writeFile(path.join(dir, 'README'), 'hello\n');
  await git('add', 'README');
  await git('commit', '-q', '-m', 'readme');
  return git('rev-parse', 'HEAD');
}

interface Finished {
  status: string;
  error: string | null;
  cause: string | null;
  steps: { name: string; status: string; image?: string }[];
}

describeRequiring('step-runner serve on the Docker runtime', dockerDaemon, () => {
  describeRequiring('with the test images', testImagesBuildable, () => {
    let images: TestImages;
    let server: LocalServer;
    let scratch: string;
    let commit: string;
    const printed: string[] = [];
    const sandboxBefore = process.env[SANDBOX_IMAGE_ENV];

    beforeAll(async () => {
      images = await startTestImages();
      // The CLI's sandbox (registry.k8s.io/pause) is on no registry here; chooseRuntime reads this.
      process.env[SANDBOX_IMAGE_ENV] = images.sandbox;
      scratch = await mkdtemp(path.join(tmpdir(), 'serve-docker-'));
      const repo = path.join(scratch, 'repo');
      await mkdir(repo);
      commit = await sourceRepository(repo);
      // Outside the repository: the pipeline is served as a file, not read from the commit.
      const pipeline = path.join(scratch, 'pipeline.yml');
      await writeFile(pipeline, `version: 1\nsteps:\n  - name: read\n    image: ${images.busybox}\n    commands: [cat README]\n`);
      server = await startLocalServer({
        runtime: 'docker',
        cloneImage: images.git,
        source: repo,
        pipeline,
        port: 0,
        secret: SECRET,
        stateDir: path.join(scratch, 'state'),
        timings: FAST_TIMINGS,
        overrides: { waitMs: 50, retryMs: 50 },
        print: (line) => printed.push(line),
      });
    }, 120_000);

    afterAll(async () => {
      await server?.close();
      await images?.stop();
      if (sandboxBefore === undefined) delete process.env[SANDBOX_IMAGE_ENV];
      else process.env[SANDBOX_IMAGE_ENV] = sandboxBefore;
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    afterEach(async () => {
      // Deleted pods' containers go a moment after the build ends; none may stay.
      const left = await waitFor(async () => ((await ourContainers()).length === 0 ? [] : undefined), { timeoutMs: 20_000, what: 'no container of ours' }).catch(ourContainers);
      expect(left).toEqual([]);
    });

    /** Posts a signed push of `after` and waits for its execution to end. */
    async function buildPush(after: string, delivery: string): Promise<{ name: string; finished: Finished }> {
      const body = JSON.stringify({ ...branchPush(), after });
      const response = await fetch(`${server.url}/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': delivery, 'x-hub-signature-256': await sign(SECRET, body) },
        body,
      });
      expect(response.status).toBe(202);
      const name = ((await response.json()) as { executionName: string }).executionName;
      const finished = await waitFor(
        async () => {
          const detail = (await (await fetch(`${server.url}/executions/${encodeURIComponent(name)}`)).json()) as Finished;
          return detail.status === 'RUNNING' ? undefined : detail;
        },
        { timeoutMs: 90_000, intervalMs: 100, what: `execution ${name} to end` },
      );
      return { name, finished };
    }

    test('a push is checked out in the git image from the uploaded repository, and a busybox step reads its README', async () => {
      expect(printed[0]).toMatch(/^Steps run in their images through Docker at /);
      const { name, finished } = await buildPush(commit, 'a1b2c3d4-0000-4000-8000-00000000d0c1');
      expect({ status: finished.status, error: finished.error, cause: finished.cause }).toEqual({ status: 'SUCCEEDED', error: null, cause: null });
      // The busybox image has no git: the clone could only succeed in the git image.
      expect(finished.steps.map((s) => [s.name, s.status, s.image])).toEqual([
        ['clone', 'succeeded', images.git],
        ['read', 'succeeded', images.busybox],
      ]);
      expect(printed.some((line) => line.includes(`checked out ${commit}: readme`))).toBe(true);
      expect(printed.some((line) => /Sent the source to pod /.test(line))).toBe(true);
      expect(printed.some((line) => /(^|\s)hello$/.test(line))).toBe(true);
      expect(printed.some((line) => line.startsWith(`Execution ${name}`))).toBe(true);
    }, 120_000);

    test('a push for a commit the repository lacks fails the checkout (CheckoutFailed) instead of waiting for a source', async () => {
      const missing = '6113728f27ae82c7b1a177c8d03f9e96e0adf246';
      const { finished } = await buildPush(missing, 'a1b2c3d4-0000-4000-8000-00000000d0c2');
      expect(finished).toMatchObject({
        status: 'FAILED',
        error: 'CheckoutFailed',
        steps: [expect.objectContaining({ name: 'clone', status: 'failed' }), expect.objectContaining({ name: 'read', status: 'not-run' })],
      });
      expect(finished.cause).toContain(missing);
    }, 120_000);
  });
});
