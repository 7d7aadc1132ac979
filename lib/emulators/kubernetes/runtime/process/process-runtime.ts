/**
 * The process runner, for machines without Docker: images come from the image catalog (nothing is
 * pulled and their contents are never used), a container is its command run as a local process in
 * its own process group, the pod's "network" is the host's, and exec is a process with the
 * container's directory and environment. Paths the container names (workingDir, env values under a
 * mount) become the host folders behind them, since there is no mount namespace.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { ContainerExit, ContainerRuntime, ContainerSpec, ContainerStart, RuntimeImage } from '../container-runtime.js';
import { hostEnv, workingDirectory } from './container-paths.js';
import type { ImagePuller, PulledImage } from './image-puller.js';
import { ExecProcesses } from './process-exec.js';
import { startProcess } from './process-runner.js';
import { createSharedOutputs, type SharedOutputs } from './shared-output.js';

export interface ProcessRuntimeOptions {
  puller: ImagePuller;
  /** Working directory of a container that names none: there is no image to say where it starts. */
  workspace: string;
  /** What every process inherits from the host (PATH and friends); the container's env goes on top. */
  baseEnv: Record<string, string>;
  /** The host's address, which is the pod's too: its processes share the host's network. */
  nodeIP: string;
  /** How long a pull and a create appear to take, since nothing real happens. */
  timings: { pullMs: number; createMs: number };
}

function runtimeImage(pulled: PulledImage): RuntimeImage {
  // No `user`: a catalog entry does not say, so the runAsNonRoot check has nothing to judge.
  return { imageID: pulled.imageID, size: pulled.size, config: { entrypoint: pulled.entry.entrypoint, cmd: pulled.entry.cmd } };
}

export function createProcessRuntime(options: ProcessRuntimeOptions): ContainerRuntime {
  const execs = new ExecProcesses();
  const outputs = createSharedOutputs();
  return {
    kind: 'process',
    version: 'local-process://',
    hostAddress: '127.0.0.1',
    presentImage: async (image) => {
      const present = options.puller.presentImage(image);
      return present && runtimeImage(present);
    },
    pullImage: async (image) => {
      await delay(options.timings.pullMs);
      const outcome = options.puller.pull(image);
      return outcome.ok ? { ok: true, image: runtimeImage(outcome) } : outcome;
    },
    runPodSandbox: async () => ({ podIP: options.nodeIP, remove: async () => {} }),
    startContainer: async (spec) => startContainer(spec, options, execs, outputs),
    // The processes ran as this machine's user: whatever they wrote, it may remove.
    removeNodeTree: (path) => rm(path, { recursive: true, force: true }),
    removeLeftovers: async () => 0,
    close: async () => {
      await execs.stopAll();
      await outputs.close();
    },
  };
}

async function startContainer(spec: ContainerSpec, options: ProcessRuntimeOptions, execs: ExecProcesses, outputs: SharedOutputs): Promise<ContainerStart> {
  const { container, pod } = spec;
  await delay(options.timings.createMs);
  const { mounts } = spec;
  const cwd = workingDirectory(container, mounts, spec.root, options.workspace);
  // A runtime creates a missing working directory; if it cannot, the start fails as runc's chdir does.
  if (container.workingDir) await mkdir(cwd, { recursive: true }).catch(() => undefined);
  // A home of the container's own, as an image's root filesystem gives it one: never the user's,
  // whose ~/.npmrc, ~/.aws and ~/.ssh no pod on EKS can read. The pod's env may still set HOME.
  const home = join(spec.root, 'home');
  await mkdir(home, { recursive: true });
  const env = { ...options.baseEnv, HOME: home, HOSTNAME: pod.metadata.name ?? '', ...hostEnv(spec.env, mounts) };
  const started = await startProcess(spec.argv, { cwd, env, log: spec.log, outputs });
  if (!started.ok) return { ok: false, reason: 'StartError', message: started.message };
  const { process } = started;
  const exited: Promise<ContainerExit> = process.exited;
  return {
    ok: true,
    container: {
      containerID: `containerd://${randomBytes(32).toString('hex')}`,
      exited,
      stop: (graceMs) => process.stop(graceMs),
      exec: (argv, stdio) => execs.start({ cwd, env, exited }, argv, stdio),
    },
  };
}
