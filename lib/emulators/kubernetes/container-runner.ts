/**
 * A pod's containers as the kubelet runs them through its runtime (runtime/): each one's command
 * resolved against its image, the runAsNonRoot check, created and started in the pod's sandbox,
 * its log kept, and in the pod's status Created, Started, Running and finally terminated with the
 * exit code the runtime reports (OOMKilled when the kernel killed it for its memory limit).
 * Stopping them early is termination's job; this only hands over the containers that are running.
 */
import { containerArgv, expandReferences } from './container-command.js';
import { exitReason } from './container-exit.js';
import { LogBuffer } from './log-buffer.js';
import type { NodeContext } from './node-context.js';
import type { Container, ContainerStatus } from './objects.js';
import type { PodHandle } from './pod-handle.js';
import type { ContainerMount, PodSandbox, RunningContainer, RuntimeImage } from './runtime/container-runtime.js';
import { runAsNonRootViolation } from './security-context.js';
import { runStartupProbe, type Probe } from './startup-probe.js';
import { readTerminationMessage, terminationMessageMount } from './termination-message.js';

/** For a sidecar's runs: what its status carries over (restartCount, lastState), and its start and stop. */
export interface RunOptions {
  /** More status fields to set once it runs. */
  fields?: Partial<ContainerStatus>;
  /** Called once the container has started and the status says so. */
  onStarted?: () => void;
  /** Whether the kubelet no longer wants it started (its sidecars are being stopped). */
  cancelled?: () => boolean;
}

/** One run of a container whose log the node keeps: its container ID (none when the runtime gave it none) and its log. */
interface LoggedRun {
  containerID: string | undefined;
  log: LogBuffer;
}

/**
 * How many runs of a container keep their log: the running or newest one and the one before it.
 * The kubelet's container garbage collector keeps one dead container per container name
 * (MaxPerPodContainer, --maximum-dead-containers-per-container, default 1: kubernetes/kubernetes
 * pkg/kubelet/kuberuntime/kuberuntime_gc.go enforceMaxContainersPerEvictUnit), and its status's
 * lastState names the newest dead one, which `previous=true` reads (pod-logs.ts).
 */
const KEPT_RUNS = 2;

export class ContainerRunner {
  /** The runs of each container that have started, by container name, oldest first (KEPT_RUNS at most). */
  private readonly runs = new Map<string, LoggedRun[]>();
  private readonly containers = new Map<string, RunningContainer>();

  constructor(
    private readonly pod: PodHandle,
    private readonly node: Pick<NodeContext, 'runtime' | 'logLimitBytes' | 'now' | 'dirs'>,
  ) {}

  /**
   * The log of a container's newest run, or with `containerID` of the kept run of that ID (its
   * previous run for `previous=true`); undefined when it has not started or that run is gone.
   */
  logOf(name: string, containerID?: string): LogBuffer | undefined {
    const runs = this.runs.get(name) ?? [];
    if (containerID === undefined) return runs.at(-1)?.log;
    return runs.find((run) => run.containerID === containerID)?.log;
  }

  /** The containers running now, by container name (for termination and exec). */
  get running(): ReadonlyMap<string, RunningContainer> {
    return this.containers;
  }

  /** Creates, starts and waits for one container; its end is in the pod's status when this returns. */
  async run(
    container: Container,
    image: RuntimeImage,
    env: Record<string, string>,
    placement: { sandbox: PodSandbox; mounts: ContainerMount[] },
    options: RunOptions = {},
  ): Promise<void> {
    const { pod, node } = this;
    const spec = pod.current();
    if (spec === undefined) return;
    const refused = runAsNonRootViolation(spec, container, image.config.user);
    if (refused !== undefined) {
      pod.setContainerState(container.name, { waiting: { reason: 'CreateContainerConfigError', message: refused } });
      pod.event({ type: 'Warning', reason: 'Failed', message: `Error: ${refused}`, container: container.name });
      return;
    }
    const argv = containerArgv(container, image.config).map((arg) => expandReferences(arg, env));
    if (argv.length === 0) {
      const message = 'failed to generate container spec: failed to generate spec: no command specified';
      pod.setContainerState(container.name, { waiting: { reason: 'CreateContainerError', message } });
      pod.event({ type: 'Warning', reason: 'Failed', message: `Error: ${message}`, container: container.name });
      return;
    }
    const log = new LogBuffer(node.now, node.logLimitBytes);
    const root = node.dirs.containerRoot(pod.uid, container.name);
    // The termination message file, mounted where the container writes it (termination-message.ts).
    const message = node.runtime.kind === 'docker' ? await terminationMessageMount(node.dirs.pod(pod.uid), container) : undefined;
    const mounts = message ? [...placement.mounts, message].sort((a, b) => b.containerPath.length - a.containerPath.length) : placement.mounts;
    const started = await node.runtime.startContainer({ pod: spec, container, sandbox: placement.sandbox, image, argv, env, mounts, root, log });
    if (!started.ok && started.reason !== 'StartError') {
      log.end();
      pod.setContainerState(container.name, { waiting: { reason: started.reason, message: started.message } });
      pod.event({ type: 'Warning', reason: 'Failed', message: `Error: ${started.message}`, container: container.name });
      return;
    }
    pod.event({ type: 'Normal', reason: 'Created', message: `Created container: ${container.name}`, container: container.name });
    this.keep(container.name, { containerID: started.ok ? started.container.containerID : started.containerID, log });
    if (!started.ok) {
      log.end();
      const containerID = started.containerID;
      pod.setContainerState(
        container.name,
        { terminated: { exitCode: 128, reason: 'StartError', message: started.message, startedAt: '1970-01-01T00:00:00Z', finishedAt: pod.stamp(), ...(containerID ? { containerID } : {}) } },
        { ...(containerID ? { containerID } : {}), imageID: image.imageID },
      );
      pod.event({ type: 'Warning', reason: 'Failed', message: `Error: ${started.message}`, container: container.name });
      return;
    }
    const running = started.container;
    const { containerID } = running;
    // The pod began stopping while the container started: termination has already looked for it,
    // so it is stopped here, and its end recorded as a real runtime would report it.
    if (pod.stopping || options.cancelled?.()) {
      const exit = await running.stop(0);
      if (pod.stopping) pod.recordLateEnd(container.name, { exitCode: exit.exitCode, reason: exitReason(exit), startedAt: pod.stamp(), finishedAt: pod.stamp(), containerID });
      return;
    }
    this.containers.set(container.name, running);
    const startedAt = pod.stamp();
    // With a startup probe it is started (and ready) only once the probe passes.
    const probe = container.startupProbe as Probe | undefined;
    const ready = probe === undefined;
    pod.setContainerState(container.name, { running: { startedAt } }, { ...options.fields, containerID, imageID: image.imageID, ready, started: ready });
    pod.event({ type: 'Normal', reason: 'Started', message: `Started container ${container.name}`, container: container.name });
    const probing = probe ? this.probeStartup(container, probe, running, startedAt, options) : (options.onStarted?.(), Promise.resolve());

    const exit = await running.exited;
    await probing;
    this.containers.delete(container.name);
    if (exit.lost !== undefined) this.nodeLost(exit.lost);
    const written = message && exit.lost === undefined ? await readTerminationMessage(message.file, container, exit.exitCode, () => log.read()) : undefined;
    pod.setContainerState(container.name, {
      terminated: {
        exitCode: exit.exitCode,
        reason: exitReason(exit),
        ...(exit.lost !== undefined ? { message: exit.lost } : written !== undefined ? { message: written } : {}),
        startedAt,
        finishedAt: pod.stamp(),
        containerID,
      },
    });
  }

  /** A new run's log; the oldest kept goes, as the kubelet's garbage collector removes its container. */
  private keep(name: string, run: LoggedRun): void {
    this.runs.set(name, [...(this.runs.get(name) ?? []), run].slice(-KEPT_RUNS));
  }

  /**
   * Runs the container's startup probe beside its process: on success it is started and ready (and
   * the next init container may go); after failureThreshold failures the kubelet stops it, with the
   * probe's grace period or the pod's, and a sidecar is then restarted like one that exited.
   */
  private async probeStartup(container: Container, probe: Probe, running: RunningContainer, startedAt: string, options: RunOptions): Promise<void> {
    const { pod } = this;
    let ended = false;
    void running.exited.then(() => (ended = true));
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
      await running.stop(graceSeconds * 1000);
    }
  }

  /**
   * The runtime can no longer say what became of its containers (the Docker daemon went away): the
   * pod has failed on a lost node, as the node controller reports a node that stopped answering.
   */
  private nodeLost(why: string): void {
    this.pod.patch((p) => {
      if (p.status) p.status = { ...p.status, reason: 'NodeLost', message: `The node's container runtime stopped answering: ${why}` };
    });
  }
}
