/**
 * This machine's Docker daemon as the runner finds and uses it, each subject below with its own
 * set-up as before (the test images come from the run's one registry either way): they used to
 * be a file each, which loaded the same modules again.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir, hostname } from 'node:os';
import path, { join } from 'node:path';
import { dockerDaemonRequirement, dockerSocket } from './fixtures/docker/engine-api.js';
import { describeRequiring } from './fixtures/requirements.js';
import { chooseRuntime, findDockerDaemon, type SocketCandidate, PROCESS_RUNTIME_NOTICE } from '../lib/emulators/kubernetes/runtime/runtime-choice.js';
import { main } from '../lib/cli/main.js';
import type { CommandIO } from '../lib/cli/commands/cluster.js';
import { classifyPullMessage } from '../lib/kube/image-pull.js';
import { distributionRegistryInstalled } from './fixtures/distribution-registry.js';
import { pullCases, runCase } from './fixtures/docker/pull-cases.js';
import { failedEvent, fromTemplate, loadDockerPullMessages, runtimeError } from './fixtures/docker/pull-wording.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { MARKER, MARKER_PATH, dockerDaemon, startTestImages, testImagesBuildable, type TestImages } from './fixtures/docker/test-images.js';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import Docker from 'dockerode';
import { DockerLabels } from '../lib/emulators/kubernetes/runtime/docker/labels.js';
import { removeNodeTree } from '../lib/emulators/kubernetes/runtime/docker/node-tree.js';

/**
 * The Docker probe against real unix sockets: stand-in daemons on sockets of a temporary folder
 * (one answering OK, one that accepts and never answers, one answering something else), a file
 * that is no socket and a path with nothing; then the machine's own daemon when there is one.
 */
describe('the runtime choice', () => {
  let dir: string;
  const servers: Server[] = [];
  const connections = new Set<Socket>();

  async function listenOn(path: string, answer: (res: import('node:http').ServerResponse) => void): Promise<string> {
    const server = createServer((_req, res) => answer(res));
    server.on('connection', (socket) => {
      connections.add(socket);
      socket.on('close', () => connections.delete(socket));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(path, resolve));
    return path;
  }

  const at = (socketPath: string): SocketCandidate => ({ socketPath, source: 'test' });
  let daemon: string;
  let otherDaemon: string;
  let silent: string;
  let notDocker: string;
  let plainFile: string;
  let nothing: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'runtime-choice-'));
    daemon = await listenOn(join(dir, 'docker.sock'), (res) => res.end('OK'));
    otherDaemon = await listenOn(join(dir, 'other.sock'), (res) => res.end('OK'));
    // Accepts the request and never answers: a daemon stuck at start, or a stale proxy.
    silent = await listenOn(join(dir, 'silent.sock'), () => {});
    notDocker = await listenOn(join(dir, 'web.sock'), (res) => {
      res.statusCode = 404;
      res.end('page not found');
    });
    plainFile = join(dir, 'plain.sock');
    writeFileSync(plainFile, '');
    nothing = join(dir, 'missing.sock');
  });

  afterAll(async () => {
    for (const socket of connections) socket.destroy();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * How long a daemon that answers may take: this file's stand-ins answer at once, but on a loaded
   * machine 300 ms was not enough for them (or for this machine's own daemon), and a silent socket
   * costs this much once per case that has one.
   */
  const ANSWER_MS = 3000;

  describe('findDockerDaemon', () => {
    it('takes the first socket that answers OK, and says why each other one failed', async () => {
      const search = await findDockerDaemon([at(nothing), at(plainFile), at(silent), at(notDocker), at(daemon)], { timeoutMs: ANSWER_MS });
      expect(search.found).toEqual(at(daemon));
      expect(search.failed.map(({ socketPath, reason }) => [socketPath, reason])).toEqual([
        [nothing, 'no such file'],
        [plainFile, 'connection refused: nothing listening'],
        [silent, `no answer within ${ANSWER_MS} ms`],
        [notDocker, 'answered HTTP 404 "page not found" to /_ping, not OK'],
      ]);
    });

    it('keeps the candidates\' order: a daemon listed first wins over one listed after it, a silent socket before both does not block them', async () => {
      expect((await findDockerDaemon([at(silent), at(otherDaemon), at(daemon)], { timeoutMs: ANSWER_MS })).found).toEqual(at(otherDaemon));
      expect((await findDockerDaemon([at(daemon), at(otherDaemon)], { timeoutMs: ANSWER_MS })).found).toEqual(at(daemon));
    });

    it('finds nothing when nothing answers', async () => {
      const search = await findDockerDaemon([at(silent), at(nothing)], { timeoutMs: 200 });
      expect(search.found).toBeUndefined();
      expect(search.failed.map((attempt) => attempt.reason)).toEqual(['no answer within 200 ms', 'no such file']);
    });
  });

  describe('chooseRuntime', () => {
    it('uses the daemon DOCKER_HOST names, as asked or by default', async () => {
      const env = { DOCKER_HOST: `unix://${daemon}` };
      expect(await chooseRuntime('docker', env, { homedir: dir, timeoutMs: ANSWER_MS })).toEqual({ kind: 'docker', socketPath: daemon });
      expect(await chooseRuntime(undefined, env, { homedir: dir, timeoutMs: ANSWER_MS })).toEqual({ kind: 'docker', socketPath: daemon });
    });

    it('--runtime process does not use a daemon that answers', async () => {
      expect(await chooseRuntime('process', { DOCKER_HOST: `unix://${daemon}` }, { homedir: dir })).toEqual({ kind: 'process' });
    });
  });

  describeRequiring('chooseRuntime on this machine', dockerDaemonRequirement(), () => {
    it('finds its Docker daemon with nothing asked', async () => {
      expect(await chooseRuntime(undefined, { DOCKER_HOST: process.env.DOCKER_HOST ?? '' })).toEqual({ kind: 'docker', socketPath: dockerSocket() });
    });
  });
});

/**
 * What the commands say first on the embedded cluster: in process mode, that steps are local
 * processes and not their images; in Docker mode, the runtime and its socket. In-process through
 * the CLI's `main`, with a stop signal that has already come (the command stops once it is up).
 */
describe("the commands' first line", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cli-runtime-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function cli(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const io: CommandIO = { out: (line) => void out.push(line), err: (line) => void err.push(line), stopSignal: Promise.resolve('SIGINT') };
    const code = await main(args, io);
    return { code, out, err };
  }

  test('cluster --runtime process: its first line says containers are local processes, not their images', async () => {
    const { code, out, err } = await cli(['cluster', '--runtime', 'process', '--kubeconfig-out', join(dir, 'kubeconfig')]);
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(out[0]).toBe(PROCESS_RUNTIME_NOTICE);
    expect(out[1]).toMatch(/^Embedded Kubernetes API listening on http:/);
    expect(out.filter((line) => line === PROCESS_RUNTIME_NOTICE)).toHaveLength(1);
  });

  test('STEP_RUNNER_RUNTIME=process without a flag is process mode too', async () => {
    // The same value test/setup/runtime.ts gives every test, set here so that this test says it.
    const before = process.env.STEP_RUNNER_RUNTIME;
    process.env.STEP_RUNNER_RUNTIME = 'process';
    try {
      const { code, out } = await cli(['cluster', '--kubeconfig-out', join(dir, 'kubeconfig')]);
      expect(code).toBe(0);
      expect(out[0]).toBe(PROCESS_RUNTIME_NOTICE);
    } finally {
      if (before === undefined) delete process.env.STEP_RUNNER_RUNTIME;
      else process.env.STEP_RUNNER_RUNTIME = before;
    }
  });

  test('run --runtime process: the notice is the run\'s first line, before its source', async () => {
    const file = join(dir, 'ci.yml');
    writeFileSync(file, 'version: 1\ncheckout: false\nsteps:\n  - {name: build, image: alpine:3.20, commands: [echo built]}\n');
    const { code, out } = await cli(['run', file, '--runtime', 'process']);
    expect(out[0]).toBe(PROCESS_RUNTIME_NOTICE);
    expect(out[1]).toMatch(/^Source: /);
    expect(out.filter((line) => line.includes('not inside their images'))).toHaveLength(1);
    expect(code).toBe(0);
  }, 30_000);

  describeRequiring('on a machine with Docker', dockerDaemonRequirement(), () => {
    test('cluster --runtime docker: its first line names Docker and its socket', async () => {
      const { out } = await cli(['cluster', '--runtime', 'docker', '--kubeconfig-out', join(dir, 'kubeconfig')]);
      expect(out[0]).toBe(`Steps run in their images through Docker at ${dockerSocket()}.`);
      expect(out).not.toContain(PROCESS_RUNTIME_NOTICE);
    });
  });
});

/**
 * The Docker daemon still says what test/fixtures/kube/docker-pull-messages.json records, for the
 * cases marked `rechecked`: provoked again against the daemon on the socket (Engine API, POST
 * /images/create) with Debian's docker-registry and small stub registries on loopback. The unit
 * tables (lib/kube/image-pull-docker.test.ts) judge the recorded words; this catches a daemon
 * upgrade that changes them. When it fails, re-record (npx tsx
 * test/fixtures/docker/record-pull-wording.ts) and see whether the classifier still agrees.
 */
describe("the daemon's pull wording", () => {
  const recorded = loadDockerPullMessages();
  const rechecked = recorded.cases.filter((c) => c.rechecked);

  describeRequiring('the Docker daemon pull wording', dockerDaemonRequirement(), () => {
    describeRequiring('against registries on loopback', distributionRegistryInstalled, () => {
      it('rechecks the refusals and the network failures the classifier tells apart', () => {
        expect(new Set(rechecked.map((c) => c.verdict))).toEqual(new Set(['permanent', 'transient']));
        expect(rechecked.some((c) => c.auth)).toBe(true);
      });

      it.each(rechecked.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
        const pullCase = pullCases.find((p) => p.name === c.name);
        expect(pullCase).toBeDefined();
        const run = await runCase(pullCase!);

        expect(run.image).toBe(fromTemplate(c.template.image, run.bindings));
        expect({ via: run.failure.via, status: run.failure.status, message: run.failure.message }).toEqual({
          via: c.via,
          status: c.status,
          message: fromTemplate(c.template.daemonMessage, run.bindings),
        });
        const event = failedEvent(run.image, runtimeError(run.failure.via, run.failure.message, run.failure.code));
        expect(classifyPullMessage(event, run.image)).toBe(c.verdict);
      });
    });
  });
});

/**
 * The Docker test images (test/fixtures/docker/test-images.ts) come from the loopback registry
 * and behave as the runtime tests rely on: each is pulled, then run with no network.
 */
describe('the test images', () => {
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
});

/**
 * Emptying a node folder that a container filled as root. This machine's tests run as root, who
 * may remove anything, so the refusal a laptop's user meets is stood in for by a remover that
 * refuses once; the container that empties the folder, and what it leaves, are real.
 */
describe('a node folder', () => {
  const socketPath = dockerSocket();
  const docker = new Docker({ socketPath });
  const labels = { [DockerLabels.owner]: `${hostname()}:${process.pid}` };

  describeRequiring('removing a node folder', dockerDaemon, () => {
    describeRequiring('with the test images', testImagesBuildable, () => {
      let images: TestImages;
      let scratch: string;

      beforeAll(async () => {
        images = await startTestImages();
        scratch = await mkdtemp(path.join(tmpdir(), 'node-tree-'));
      }, 120_000);

      afterAll(async () => {
        await images?.stop();
        if (scratch) await rm(scratch, { recursive: true, force: true });
      });

      test('a folder this machine may not empty is emptied by a container as root, then goes, its siblings kept', async () => {
        const victim = path.join(scratch, 'pvc-1');
        await mkdir(path.join(victim, '.git', 'objects'), { recursive: true });
        await writeFile(path.join(victim, '.git', 'objects', 'pack'), 'x');
        await writeFile(path.join(scratch, 'sibling'), 'kept');
        let refusals = 0;
        const remover = async (target: string, options: { recursive: true; force: true }) => {
          if (refusals === 0) {
            refusals += 1;
            throw Object.assign(new Error(`EACCES: permission denied, rmdir '${target}/.git/objects'`), { code: 'EACCES' });
          }
          await rm(target, options);
        };
        // The helper image is the fixture's busybox, pulled from the registry (not present before).
        await removeNodeTree(docker, socketPath, victim, images.busybox, labels, remover);
        expect(refusals).toBe(1);
        expect(await readdir(scratch)).toEqual(['sibling']);
        const left = await docker.listContainers({ all: true, filters: { label: [`${DockerLabels.owner}=${labels[DockerLabels.owner]}`] } });
        expect(left).toEqual([]);
      });

      test('other errors are not papered over', async () => {
        const remover = async () => {
          throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
        };
        await expect(removeNodeTree(docker, socketPath, path.join(scratch, 'x'), images.busybox, labels, remover)).rejects.toThrow('EIO');
      });
    });
  });
});
