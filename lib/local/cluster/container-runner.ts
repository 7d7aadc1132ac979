/**
 * A pod's containers as the runtime runs them: each one created and started as a local process
 * (see process-runner.ts), its log kept, and in the pod's status Created, Started, Running and
 * finally terminated with the process's exit code. Stopping them early is termination's job; this
 * only hands over the processes that are running, and for exec their directory and environment.
 */
import { randomBytes } from 'node:crypto';
import { containerArgv } from './container-command.js';
import type { ExecTarget } from './exec-process.js';
import type { PulledImage } from './image-puller.js';
import { LogBuffer } from './log-buffer.js';
import type { NodeContext } from './node-context.js';
import type { Container, ContainerStatus } from './objects.js';
import type { PodHandle } from './pod-handle.js';
import { startProcess, type StepProcess } from './process-runner.js';

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
    private readonly node: Pick<NodeContext, 'timings' | 'baseEnv' | 'logLimitBytes' | 'now'>,
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
    const processEnv = { ...node.baseEnv, HOSTNAME: pod.name, ...env };
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
    pod.setContainerState(container.name, { running: { startedAt } }, { ...options.fields, containerID, imageID: image.imageID, ready: true, started: true });
    pod.event({ type: 'Normal', reason: 'Started', message: `Started container ${container.name}`, container: container.name });
    options.onStarted?.();

    const exit = await started.process.exited;
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
}
