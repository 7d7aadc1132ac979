/**
 * The real CLI on the Docker runtime, `node bin/step-runner.js run FILE --runtime docker`: a work
 * tree checked out in the `--clone-image` (its source sent into the clone container, which cannot
 * read this machine's files), and Ctrl-C of a step that would sleep for a minute in a registry
 * image: once the step's container runs, SIGINT must end the process with nothing of it left in
 * Docker, neither the step's container nor its pod's sandbox.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DockerLabels, ownerLabel } from '../lib/emulators/kubernetes/runtime/docker/labels.js';
import { SANDBOX_IMAGE_ENV } from '../lib/emulators/kubernetes/runtime/runtime-choice.js';
import { dockerDaemon, startTestImages, testImagesBuildable, type TestImages } from './fixtures/docker/test-images.js';
import { describeRequiring } from './fixtures/requirements.js';
import { waitFor } from './fixtures/wait-for.js';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../bin/step-runner.js', import.meta.url));

/** The containers (running or not) of the process `pid`, by the owner label its cluster gives them. */
async function containersOf(pid: number, ...filters: string[]): Promise<string[]> {
  const owner = `${DockerLabels.owner}=${ownerLabel({ hostname: hostname(), pid })}`;
  const { stdout } = await run('docker', ['ps', '-a', '--filter', `label=${owner}`, ...filters.flatMap((f) => ['--filter', f]), '--format', '{{.Names}}']);
  return stdout.split('\n').filter(Boolean);
}


function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describeRequiring('step-runner run --runtime docker', dockerDaemon, () => {
  describeRequiring('with the test images', testImagesBuildable, () => {
    let images: TestImages;
    let scratch: string;

    beforeAll(async () => {
      images = await startTestImages();
      scratch = await mkdtemp(path.join(tmpdir(), 'docker-cli-interrupt-'));
    }, 120_000);

    afterAll(async () => {
      await images?.stop();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    test('--clone-image: the checkout runs in that image from the work tree, and the next step reads it', async () => {
      const repo = path.join(scratch, 'repo');
      const git = (...args: string[]) => run('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', ...args], { cwd: repo });
      await run('git', ['init', '-q', '-b', 'main', repo]);
      await writeFile(path.join(repo, 'README'), 'hello\n');
      await writeFile(path.join(repo, '.step-runner.yml'), `version: 1\nsteps:\n  - name: read\n    image: ${images.busybox}\n    commands: [cat README]\n`);
      await git('add', '.');
      await git('commit', '-q', '-m', 'first');
      const { NODE_OPTIONS: _ignored, CLONE_IMAGE: _unset, ...inherited } = process.env;
      // The pause image is on no registry here: the fixture's sandbox image stands in for it.
      const env = { ...inherited, [SANDBOX_IMAGE_ENV]: images.sandbox };
      const { stdout } = await run(process.execPath, [BIN, 'run', '--runtime', 'docker', '--clone-image', images.git, '--state-dir', path.join(scratch, 'state'), '--json'], { cwd: repo, env });
      const summary = JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; steps: { name: string; status: string; image: string }[] };
      expect(summary.status).toBe('SUCCEEDED');
      expect(summary.steps.map((s) => [s.name, s.status, s.image])).toEqual([
        ['clone', 'succeeded', images.git],
        ['read', 'succeeded', images.busybox],
      ]);
    }, 60_000);

    test('Ctrl-C: the process exits and no container of it remains', async () => {
      const file = path.join(scratch, 'long.yml');
      // No checkout: the source upload is not what this test is about, and the clone image stays out of it.
      await writeFile(file, `version: 1\ncheckout: false\nsteps:\n  - name: long\n    image: ${images.busybox}\n    commands: ["echo started", "sleep 60", "echo never"]\n`);
      const { NODE_OPTIONS: _ignored, ...inherited } = process.env;
      const env = { ...inherited, [SANDBOX_IMAGE_ENV]: images.sandbox };
      const child = spawn(process.execPath, [BIN, 'run', file, '--runtime', 'docker', '--state-dir', path.join(scratch, 'state'), '--json'], {
        cwd: scratch,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = exitOf(child);
      const pid = child.pid!;
      try {
        await waitFor(
          async () => {
            if (child.exitCode !== null) throw new Error(`the CLI ended before its step ran (exit ${child.exitCode}): ${stderr}`);
            const running = await containersOf(pid, `label=${DockerLabels.containerName}=step`, 'status=running');
            return running.length === 1 ? running : undefined;
          },
          { timeoutMs: 30_000, what: "the step's container to run" },
        );
        expect((await containersOf(pid)).length).toBe(2);

        child.kill('SIGINT');
        const code = await exited;
        expect(code).toBe(1);
        const summary = JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string };
        expect(summary.status).toBe('ABORTED');
        expect(await containersOf(pid)).toEqual([]);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        await exited;
      }
    }, 90_000);
  });
});
