/**
 * The Docker test images (test/fixtures/docker/test-images.ts) come from the loopback registry
 * and behave as the runtime tests rely on: each is pulled, then run with no network.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { MARKER, MARKER_PATH, dockerDaemon, startTestImages, testImagesBuildable, type TestImages } from './fixtures/docker/test-images.js';
import { describeRequiring } from './fixtures/requirements.js';

const run = promisify(execFile);

async function docker(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('docker', args);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** Pulls image (so the test proves the registry has it), then runs it once without a network. */
async function pullAndRun(image: string, ...command: string[]): Promise<string> {
  const pulled = await docker('pull', image);
  expect({ code: pulled.code, stderr: pulled.stderr }).toEqual({ code: 0, stderr: '' });
  const ran = await docker('run', '--rm', '--network', 'none', image, ...command);
  expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
  return ran.stdout.trim();
}

describeRequiring('the Docker test images', dockerDaemon, () => {
  describeRequiring('built from busybox and git, served by a loopback registry', testImagesBuildable, () => {
    let images: TestImages;
    const pulled: string[] = [];

    beforeAll(async () => {
      images = await startTestImages();
    }, 120_000);

    afterAll(async () => {
      // The pulled registry names point at a registry that is about to stop; the imports stay.
      if (pulled.length > 0) await docker('rmi', ...pulled);
      await images?.stop();
    });

    const use = (image: string) => {
      pulled.push(image);
      return image;
    };

    it('leaves no registry-named copy behind, so a run has to pull', async () => {
      const listed = await docker('image', 'ls', '--format', '{{.Repository}}:{{.Tag}}', `${images.registry}/*/*`);
      expect(listed.stdout.trim()).toBe('');
    });

    it('carries the marker file in busybox', async () => {
      expect(await pullAndRun(use(images.busybox), 'cat', MARKER_PATH)).toBe(MARKER);
    });

    it('has the applets on PATH and a sticky /tmp', async () => {
      expect(await pullAndRun(use(images.busybox), 'sh', '-c', 'which echo cat sleep nc wget tar id hostname && stat -c %a /tmp')).toBe(
        ['echo', 'cat', 'sleep', 'nc', 'wget', 'tar', 'id', 'hostname'].map((applet) => `/bin/${applet}`).join('\n') + '\n1777',
      );
    });

    it('runs configured with its entrypoint and default command', async () => {
      expect(await pullAndRun(use(images.configured))).toBe('entrypoint cmd-default');
    });

    it('gives configured its environment and working directory', async () => {
      expect(await pullAndRun(use(images.configured), '$GREETING')).toBe('entrypoint $GREETING');
      const ran = await docker('run', '--rm', '--network', 'none', '--entrypoint', '/bin/sh', images.configured, '-c', 'echo $GREETING; pwd');
      expect(ran.stdout.trim()).toBe('from-image\n/srv/app');
    });

    it('runs nonRoot as uid 1000', async () => {
      expect(await pullAndRun(use(images.nonRoot), 'id', '-u')).toBe('1000');
    });

    it('runs namedUser as nobody', async () => {
      expect(await pullAndRun(use(images.namedUser), 'id', '-un')).toBe('nobody');
    });

    it('runs git, with its http helper loadable', async () => {
      expect(await pullAndRun(use(images.git), 'git', '--version')).toMatch(/^git version \d/);
      // As a checkout does it: fetch over a local path (git-upload-pack on the other side), then check out, as a user with no home.
      const checkout = [
        'cd /tmp && git init -q src && cd src && echo fetched > f && git add f && git -c user.name=t -c user.email=t@example.com commit -qm one',
        'cd /tmp && git init -q dst && cd dst && git fetch -q /tmp/src HEAD && git checkout -q FETCH_HEAD && cat f',
      ].join(' && ');
      const ran = await docker('run', '--rm', '--network', 'none', '--user', '1000:1000', '--env', 'HOME=/nonexistent', images.git, 'sh', '-c', checkout);
      expect({ code: ran.code, stdout: ran.stdout.trim() }).toEqual({ code: 0, stdout: 'fetched' });
      // No network: the helper starts and fails to connect, rather than being missing.
      const http = await docker('run', '--rm', '--network', 'none', images.git, 'git', 'ls-remote', 'http://127.0.0.1:1/repo.git');
      expect(http.code).not.toBe(0);
      expect(http.stderr).toMatch(/unable to access|Failed to connect|Could not connect/i);
      expect(http.stderr).not.toMatch(/remote helper|not a git command|error while loading shared libraries/i);
    });

    it('runs sandbox until it is killed', async () => {
      await docker('pull', use(images.sandbox));
      const started = await docker('run', '-d', '--network', 'none', images.sandbox);
      expect(started.code).toBe(0);
      const id = started.stdout.trim();
      try {
        expect((await docker('inspect', '--format', '{{.State.Running}}', id)).stdout.trim()).toBe('true');
      } finally {
        await docker('rm', '-f', id);
      }
    });

    it('fails to pull the missing tag, saying the manifest is unknown', async () => {
      const pull = await docker('pull', images.missingTag);
      expect(pull.code).not.toBe(0);
      expect(pull.stderr).toMatch(/manifest unknown|not found/i);
    });
  });
});
