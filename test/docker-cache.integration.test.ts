/**
 * The cache between builds on the embedded cluster's Docker runtime, through the real definition:
 * the checkout in the git image hashes the key files, the restore init container and the save
 * sidecar run in the cache image (the fixture's curl image, standing in for curlimages/curl) and
 * fetch and PUT through presigned URLs from the local stack's S3, which listens on the sandbox
 * network's gateway (the cluster's hostAddress): the pods reach it across the bridge as pods on a
 * node reach S3, not through loopback as the process runtime's do.
 */
import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DockerLabels, ownerLabel } from '../lib/emulators/kubernetes/runtime/docker/labels.js';
import { dockerSocket } from './fixtures/docker/engine-api.js';
import { dockerDaemon, startTestImages, testImagesBuildable, type TestImages } from './fixtures/docker/test-images.js';
import { localBuildsForFile } from './fixtures/local-builds.js';
import { describeRequiring } from './fixtures/requirements.js';
import { waitFor } from './fixtures/wait-for.js';

// Upper bounds for a hang on a loaded machine, not expectations of speed.
jest.setTimeout(120_000);

const run = promisify(execFile);
const OWNER = `${DockerLabels.owner}=${ownerLabel({ hostname: hostname(), pid: process.pid })}`;

async function ourContainers(): Promise<string[]> {
  const { stdout } = await run('docker', ['ps', '-a', '--filter', `label=${OWNER}`, '--format', '{{.Names}}']);
  return stdout.split('\n').filter(Boolean);
}

const pipeline = (image: string) => `version: 1
cache:
  - key:
      files: [package-lock.json]
      prefix: npm
    paths: [node_modules]
    fallback-keys: [npm-]
steps:
  - name: install
    image: ${image}
    commands:
      - 'if [ -f node_modules/lib.txt ]; then echo "from the cache: $(cat node_modules/lib.txt)"; else mkdir -p node_modules && echo "installed for $(cat package-lock.json)" > node_modules/lib.txt && echo installed; fi'
    artifacts:
      paths: [node_modules/lib.txt]
`;

describeRequiring('the cache on the Docker runtime', dockerDaemon, () => {
  describeRequiring('with the test images', testImagesBuildable, () => {
    let images: TestImages;
    // Registered before the fixture's, so the images exist when its cluster starts.
    beforeAll(async () => {
      images = await startTestImages();
    }, 120_000);
    afterAll(() => images?.stop());

    const builds = localBuildsForFile({
      prefix: 'docker-cache',
      repository: true,
      cache: true,
      runtime: () => ({ kind: 'docker', socketPath: dockerSocket(), sandboxImage: images.sandbox }),
      settings: () => ({ cloneImage: images.git, cacheImage: images.curl }),
    });

    let n = 0;
    let lastArtifacts: unknown;
    /** One build; its install step's log (and its artifacts in lastArtifacts). */
    async function install(): Promise<string> {
      const id = `docker-cache-${++n}`;
      const { summary } = await builds.build(id, pipeline(images.busybox));
      expect({ id, status: summary.status, error: summary.error, cause: summary.cause }).toEqual({ id, status: 'SUCCEEDED', error: null, cause: null });
      lastArtifacts = (summary.steps.find((step) => step.name === 'install') as { artifacts?: unknown } | undefined)?.artifacts;
      return readFile(path.join(builds.root, 'logs', id, 'install.log'), 'utf8');
    }

    beforeAll(() => builds.commit({ 'package-lock.json': 'lock v1\n' }));

    afterEach(async () => {
      // Deleted pods' containers go a moment after the build ends; none may stay.
      const left = await waitFor(async () => ((await ourContainers()).length === 0 ? [] : undefined), { timeoutMs: 20_000, what: 'no container of ours' }).catch(ourContainers);
      expect(left).toEqual([]);
    });

    test('the first build saves through the gateway, the next restores the exact key and its step sees the files', async () => {
      // Not loopback: a container's 127.0.0.1 is its own. The store listens on the sandbox network's gateway only.
      expect(new URL(builds.cache.endpoint).hostname).not.toBe('127.0.0.1');
      // The step's image (busybox) has no curl: what saved and restored ran in the cache image.
      const first = await install();
      expect(first).toMatch(/^cache npm-[0-9a-f]{40}: miss \(/m);
      expect(first).toContain('\ninstalled\n');
      expect(first).toMatch(/^cache npm-[0-9a-f]{40}: saved \(.+\)$/m);
      // The same sidecar keeps the step's artifacts, from inside the Docker network too.
      const bytes = Buffer.byteLength('installed for lock v1\n');
      expect(lastArtifacts).toEqual([{ path: 'node_modules/lib.txt', size: bytes, sha256: createHash('sha256').update('installed for lock v1\n').digest('hex'), location: expect.stringMatching(/^s3:\/\//) }]);

      const second = await install();
      expect(second).toMatch(/^cache npm-[0-9a-f]{40}: restored from npm-[0-9a-f]{12}… \(this branch\)/m);
      expect(second).toContain('from the cache: installed for lock v1');
      expect(second).not.toContain('\ninstalled\n');
      expect(second).not.toMatch(/: saved \(/);
    }, 60_000);

    test('a changed lock file misses the exact key and restores the fallback', async () => {
      await builds.commit({ 'package-lock.json': 'lock v2\n' });
      const log = await install();
      expect(log).toMatch(/restored from npm-[0-9a-f]{12}… \(fallback npm-, this branch\)/);
      expect(log).toContain('from the cache: installed for lock v1');
      expect(log).toMatch(/: saved \(/);
    }, 60_000);
  });
});
