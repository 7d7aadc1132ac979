/**
 * A pod's containers as the runtime runs them: each one created and started as a local process
 * (see process-runner.ts), its log kept, and in the pod's status Created, Started, Running and
 * finally terminated with the process's exit code. Stopping them early is termination's job; this
 * only hands over the processes that are running, and for exec their directory and environment.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { containerArgv } from './container-command.js';
import type { ExecTarget } from './exec-process.js';
import type { PulledImage } from './image-puller.js';
import { LogBuffer } from './log-buffer.js';
import type { NodeContext } from './node-context.js';
import type { Container, ContainerStatus } from './objects.js';
import type { PodHandle } from './pod-handle.js';
import { startProcess, type StepProcess } from './process-runner.js';
import { runStartupProbe, type Probe } from './startup-probe.js';

/** For a sidecar's runs: what its status carries over (restartCount, lastState), and its start and stop. */
export interface RunOptions {
  /** More status fields to set once it runs. */
  fields?: Partial<ContainerStatus>;
  /** Called once the process has started and the status says so. */
  onStarted?: () => void;
  /** Whether the kubelet no longer wants it started (its sidecars are being stopped). */
  cancelled?: () => boolean;
}

export class ContainerRunner {
  /** Logs of the containers that have started, by container name. */
  readonly logs = new Map<string, LogBuffer>();
  private readonly processes = new Map<string, StepProcess>();
  /** The running containers, as an exec into one needs them, by container name. */
  readonly execTargets = new Map<string, ExecTarget>();

  constructor(
    private readonly pod: PodHandle,
    private readonly node: Pick<NodeContext, 'timings' | 'baseEnv' | 'logLimitBytes' | 'now' | 'dirs'>,
  ) {}

  /** The processes running now, by container name. */
  get running(): ReadonlyMap<string, StepProcess> {
    return this.processes;
  }

  /** Creates, starts (in `cwd`) and waits for one container; its end is in the pod's status when this returns. */
  async run(container: Container, image: PulledImage, env: Record<string, string>, cwd: string, options: RunOptions = {}): Promise<void> {
    const { pod, node } = this;
    const containerID = `containerd://${randomBytes(32).toString('hex')}`;
    const argv = containerArgv(container, image.entry);
    if (argv.length === 0) {
      const message = `failed to generate container "${containerID.slice(13)}" spec: failed to generate spec: no command specified`;
      pod.setContainerState(container.name, { waiting: { reason: 'CreateContainerError', message } });
      pod.event({ type: 'Warning', reason: 'Failed', message: `Error: ${message}`, container: container.name });
      return;
    }
    await pod.wait(node.timings.createMs);
    const log = new LogBuffer(node.now, node.logLimitBytes);
    // A home of the container's own, as an image's root filesystem gives it one: never the user's,
    // whose ~/.npmrc, ~/.aws and ~/.ssh no pod on EKS can read. The pod's env may still set HOME.
    const home = join(node.dirs.containerRoot(pod.uid, container.name), 'home');
    await mkdir(home, { recursive: true });
    const processEnv = { ...node.baseEnv, HOME: home, HOSTNAME: pod.name, ...env };
    const started = await startProcess(argv, { cwd, env: processEnv, log });
    pod.event({ type: 'Normal', reason: 'Created', message: `Created container: ${container.name}`, container: container.name });
    this.logs.set(container.name, log);
    if (!started.ok) {
      log.end();
      pod.setContainerState(
        container.name,
        { terminated: { exitCode: 128, reason: 'StartError', message: started.message, startedAt: '1970-01-01T00:00:00Z', finishedAt: pod.stamp(), containerID } },
        { containerID, imageID: image.imageID },
      );
      pod.event({ type: 'Warning', reason: 'Failed', message: `Error: ${started.message}`, container: container.name });
      return;
    }
    // The pod began stopping while the process started: termination has already looked for it.
    if (pod.stopping || options.cancelled?.()) {
      await started.process.stop(0);
      return;
    }
    this.processes.set(container.name, started.process);
    this.execTargets.set(container.name, { cwd, env: processEnv, exited: started.process.exited });
    const startedAt = pod.stamp();
    // With a startup probe it is started (and ready) only once the probe passes.
    const probe = container.startupProbe as Probe | undefined;
    const ready = probe === undefined;
    pod.setContainerState(container.name, { running: { startedAt } }, { ...options.fields, containerID, imageID: image.imageID, ready, started: ready });
    pod.event({ type: 'Normal', reason: 'Started', message: `Started container ${container.name}`, container: container.name });
    const probing = probe ? this.probeStartup(container, probe, started.process, startedAt, options) : (options.onStarted?.(), Promise.resolve());

    const exit = await started.process.exited;
    await probing;
    this.processes.delete(container.name);
    this.execTargets.delete(container.name);
    pod.setContainerState(container.name, {
      terminated: {
        exitCode: exit.exitCode,
        ...(exit.signal !== undefined ? { signal: exit.signal } : {}),
        reason: exit.exitCode === 0 ? 'Completed' : 'Error',
        startedAt,
        finishedAt: pod.stamp(),
        containerID,
      },
    });
  }

  /**
   * Runs the container's startup probe beside its process: on success it is started and ready (and
   * the next init container may go); after failureThreshold failures the kubelet stops it, with the
   * probe's grace period or the pod's, and a sidecar is then restarted like one that exited.
   */
  private async probeStartup(container: Container, probe: Probe, process: StepProcess, startedAt: string, options: RunOptions): Promise<void> {
    const { pod } = this;
    let ended = false;
    void process.exited.then(() => (ended = true));
    const result = await runStartupProbe({
      probe,
      container,
      podIP: pod.current()?.status?.podIP ?? '127.0.0.1',
      wait: (ms) => pod.wait(ms),
      ended: () => ended || pod.stopping || options.cancelled?.() === true,
      failed: (output) => pod.event({ type: 'Warning', reason: 'Unhealthy', message: `Startup probe failed: ${output}`, container: container.name }),
    }).catch((error: unknown) => {
      if ((error as Error)?.name === 'AbortError') return 'ended' as const;
      throw error;
    });
    if (result === 'passed') {
      const current = [...(pod.current()?.status?.initContainerStatuses ?? []), ...(pod.current()?.status?.containerStatuses ?? [])].find((s) => s.name === container.name);
      // Only the run it probed: a container that ended meanwhile keeps its end.
      if (current?.state.running?.startedAt !== startedAt || ended) return;
      pod.setContainerState(container.name, { running: { startedAt } }, { ready: true, started: true });
      options.onStarted?.();
    } else if (result === 'failed') {
      const kind = pod.isSidecar(container.name) ? 'Init container' : 'Container';
      pod.event({ type: 'Normal', reason: 'Killing', message: `${kind} ${container.name} failed startup probe`, container: container.name });
      const graceSeconds = probe.terminationGracePeriodSeconds ?? pod.current()?.spec.terminationGracePeriodSeconds ?? 30;
      await process.stop(graceSeconds * 1000);
    }
  }
}
