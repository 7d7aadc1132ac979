/**
 * Builds through the real state machine definition on the embedded cluster's Docker runtime, as
 * `run --runtime docker` runs them: the checkout in the clone image for real (its source uploaded
 * through exec, since a container cannot read this machine's files), steps in their images sharing
 * the workspace, and the failures a user meets on a real node (a tag the registry lacks, a step
 * past its memory limit) in the daemon's or the registry's words. After every build, nothing of
 * this process's is left in Docker.
 */
import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DockerLabels, ownerLabel } from '../lib/emulators/kubernetes/runtime/docker/labels.js';
import { dockerSocket } from './fixtures/docker/engine-api.js';
import { dockerDaemon, MARKER, MARKER_PATH, startTestImages, testImagesBuildable, type TestImages } from './fixtures/docker/test-images.js';
import { localBuildsForFile } from './fixtures/local-builds.js';
import { describeRequiring } from './fixtures/requirements.js';
import { waitFor } from './fixtures/wait-for.js';

// Docker's containers start in hundreds of milliseconds, and many times that on a loaded CI
// machine: the waits below are upper bounds for a hang, not expectations of speed.
jest.setTimeout(120_000);

const run = promisify(execFile);
const OWNER = `${DockerLabels.owner}=${ownerLabel({ hostname: hostname(), pid: process.pid })}`;

/** Every container, running or not, that this process's clusters made. */
async function ourContainers(): Promise<string[]> {
  const { stdout } = await run('docker', ['ps', '-a', '--filter', `label=${OWNER}`, '--format', '{{.Names}}']);
  return stdout.split('\n').filter(Boolean);
}

describeRequiring('builds on the Docker runtime', dockerDaemon, () => {
  describeRequiring('with the test images', testImagesBuildable, () => {
    let images: TestImages;
    // Registered before the fixture's, so the images exist when its cluster starts.
    beforeAll(async () => {
      images = await startTestImages();
    }, 120_000);
    afterAll(() => images?.stop());

    const builds = localBuildsForFile({
      prefix: 'docker-builds',
      repository: true,
      runtime: () => ({ kind: 'docker', socketPath: dockerSocket(), sandboxImage: images.sandbox }),
      settings: () => ({ cloneImage: images.git }),
    });
    const logOf = (build: string, step: string) => readFile(path.join(builds.root, 'logs', build, `${step}.log`), 'utf8');

    afterEach(async () => {
      // Deleted pods' containers go a moment after the build ends; none may stay.
      const left = await waitFor(async () => ((await ourContainers()).length === 0 ? [] : undefined), { timeoutMs: 20_000, what: 'no container of ours' }).catch(ourContainers);
      expect(left).toEqual([]);
    });

    test('the checkout runs in the git image from the uploaded work tree, and a later step in busybox reads the committed README from the shared workspace', async () => {
      const { summary } = await builds.build(
        'checkout',
        `version: 1
steps:
  - name: read
    image: ${images.busybox}
    commands: [cat README]
`,
      );
      expect({ status: summary.status, cause: summary.cause }).toEqual({ status: 'SUCCEEDED', cause: null });
      // The busybox image has no git: the clone could only succeed in the git image.
      expect(summary.steps.map((s) => [s.name, s.status, s.image])).toEqual([
        ['clone', 'succeeded', images.git],
        ['read', 'succeeded', images.busybox],
      ]);
      expect(await logOf('checkout', 'read')).toContain('+ cat README\nhello\n');
    }, 60_000);

    test("a step sees its image's files and not the host's home", async () => {
      const hostFile = `.step-runner-docker-build-${process.pid}`;
      await writeFile(path.join(homedir(), hostFile), 'host secret\n');
      try {
        const { summary } = await builds.build(
          'in-image',
          `version: 1
checkout: false
steps:
  - name: look
    image: ${images.busybox}
    commands: [cat ${MARKER_PATH}, 'ls -a "$HOME"']
`,
        );
        expect(summary.status).toBe('SUCCEEDED');
        const log = await logOf('in-image', 'look');
        expect(log).toContain(MARKER);
        expect(log).not.toContain(hostFile);
      } finally {
        await rm(path.join(homedir(), hostFile), { force: true });
      }
    }, 60_000);

    test("a tag the registry lacks, left to the kubelet (image-check: false): ImagePullFailed in the daemon's words, at once", async () => {
      const { summary } = await builds.build(
        'missing-unchecked',
        `version: 1
checkout: false
steps:
  - name: pull
    image: ${images.missingTag}
    image-check: false
    commands: ['true']
`,
      );
      // The Cause quotes the daemon: `... could not be pulled (ErrImagePull). The registry said: Error response from
      // daemon: manifest for 127.0.0.1:PORT/test/busybox:no-such-tag not found: manifest unknown: manifest unknown.`
      // PollStep judges it permanent, so the build ends without waiting out the pull grace period.
      expect(summary.error).toBe('ImagePullFailed');
      expect(summary.cause).toMatch(/manifest unknown|not found/);
      expect(summary.steps.find((s) => s.name === 'pull')?.status).toBe('failed');
    }, 60_000);

    test("a tag the registry lacks, checked by PrepareBuild: ImagePullFailed in the registry's words, no step run", async () => {
      const { summary } = await builds.build(
        'missing-checked',
        `version: 1
checkout: false
steps:
  - name: pull
    image: ${images.missingTag}
    commands: ['true']
`,
      );
      // PrepareBuild asks the loopback registry over HTTP; the Cause: `Step "pull": image "..." was not found; its
      // registry answered: 404 MANIFEST_UNKNOWN: manifest unknown.` then `No step ran: ...`.
      expect(summary.error).toBe('ImagePullFailed');
      expect(summary.cause).toContain(`image "${images.missingTag}" was not found`);
      expect(summary.cause).toMatch(/404 MANIFEST_UNKNOWN/);
      expect(summary.steps).toEqual([]);
    }, 60_000);

    test('a step past its memory limit fails OOMKilled', async () => {
      const { summary } = await builds.build(
        'oom',
        `version: 1
checkout: false
steps:
  - name: hog
    image: ${images.busybox}
    resources: { memory: 16Mi }
    # It allocates a second in, as a real step does after its start; the runtime reads the kill from State.OOMKilled or, when containerd reported it after the exit, from the daemon's oom event (oom-events.ts).
    commands: ['sleep 1', 'x=$(head -c 67108864 /dev/zero | tr "\\000" a); echo \${#x}']
`,
      );
      // `Step "hog" (image "...") ran out of memory and was killed (OOMKilled, exit code 137). Its memory limit is 16Mi; ...`
      expect(summary.error).toBe('StepFailed');
      expect(summary.cause).toContain('(OOMKilled, exit code 137)');
      expect(summary.steps.find((s) => s.name === 'hog')).toMatchObject({ status: 'failed', exitCode: 137 });
    }, 60_000);

    test('a step reaches its service by name and on localhost; the service runs its entrypoint and command, not the image\'s', async () => {
      // The image's ENTRYPOINT (/bin/echo entrypoint) would print and exit: the service would fail.
      // Its own: listening on, one `echo pong` per connection (busybox nc -ll -e), no gap between listens.
      const { summary } = await builds.build(
        'service',
        `version: 1
checkout: false
steps:
  - name: talk
    image: ${images.busybox}
    services:
      - { name: db, image: ${images.configured}, entrypoint: nc, command: [-ll, -p, 7000, -e, echo, pong], ports: [7000] }
    commands:
      # Until an answer comes: the client may give up on a reply that is still on its way.
      - 'ask() { until out=$(nc -w 2 "$1" 7000 </dev/null 2>/dev/null) && [ -n "$out" ]; do sleep 0.1; done; echo "$out"; }'
      - ask db
      - ask 127.0.0.1
`,
      );
      expect({ status: summary.status, cause: summary.cause }).toEqual({ status: 'SUCCEEDED', cause: null });
      const log = await logOf('service', 'talk');
      expect(log).toContain('+ ask db\npong\n');
      expect(log).toContain('+ ask 127.0.0.1\npong\n');
    }, 60_000);
  });
});
