/**
 * One pod's life on the simulated node, in the order a kubelet drives it: scheduling, taking the
 * pod on, its volumes, then for each container its image, its environment and its process (in its
 * working directory, its env's mount paths turned into host paths); and the pod's end
 * when it runs past its deadline, is deleted, or the cluster stops. Sidecars (init containers with
 * restartPolicy Always, KEP-753) start in their place among the init containers, are restarted with
 * back-off when they exit, and are stopped in reverse order once the containers have ended. Each
 * step is its own module; this only sequences them and owns the deadline and the sidecars' lives.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { ContainerRunner, type RunOptions } from './container-runner.js';
import { waitForContainerEnv } from './container-env.js';
import type { ContainerExec } from './exec-process.js';
import { ensureImage } from './image-manager.js';
import { containerMounts } from './container-mounts.js';
import type { LogBuffer } from './log-buffer.js';
import type { NodeContext } from './node-context.js';
import type { Container, ContainerState, ContainerStatus, Pod } from './objects.js';
import { PodHandle } from './pod-handle.js';
import { admittedStatus } from './pod-status.js';
import { DEADLINE_MESSAGE, stopSidecars, terminatePod, type TerminationCause } from './pod-termination.js';
import { mountVolumes } from './pod-volumes.js';
import { hasPodIdentity } from './pod-identity-webhook.js';
import type { PodSandbox } from './runtime/container-runtime.js';
import { schedule } from './scheduler.js';
import { goDuration } from './time-format.js';

function ignoreAbort(error: unknown): void {
  if ((error as Error)?.name !== 'AbortError') throw error;
}

export class PodWorker {
  private readonly pod: PodHandle;
  private readonly containers: ContainerRunner;
  private deadline: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  /** Aborted when the kubelet stops the sidecars because the containers have ended (or an init container failed). */
  private readonly sidecarStop = new AbortController();
  private readonly sidecarLoops: Promise<void>[] = [];
  /** Made once the volumes are ready; removed when the pod is gone or the cluster stops. */
  private sandbox: PodSandbox | undefined;

  constructor(
    private readonly node: NodeContext,
    created: Pod,
  ) {
    this.pod = new PodHandle(node, created);
    this.containers = new ContainerRunner(this.pod, node);
  }

  /** A container's newest log, or the kept run's of that container ID (ContainerRunner.logOf). */
  logOf(container: string, containerID?: string): LogBuffer | undefined {
    return this.containers.logOf(container, containerID);
  }

  /** Starts commands in a running container, for exec; undefined when it is not running. */
  execInto(container: string): ContainerExec | undefined {
    const running = this.containers.running.get(container);
    return running && ((argv, stdio) => running.exec(argv, stdio));
  }

  start(): void {
    this.running = this.run().catch((error: unknown) => {
      if ((error as Error)?.name !== 'AbortError') throw error;
    });
  }

  /** A graceful delete: stop the processes (SIGTERM, SIGKILL after the grace), then the pod goes. */
  async deletionRequested(graceSeconds: number): Promise<void> {
    const stopped = await this.terminate(graceSeconds * 1000, 'deleted');
    // With nothing to stop, clients still get to see the pod Terminating for a moment.
    if (!stopped) await delay(this.node.timings.terminatingMs);
    this.pod.remove();
  }

  /** The pod is gone from the API: kill without writing anything, and drop its directories (emptyDirs). */
  async removed(): Promise<void> {
    await this.shutdown();
    await this.node.runtime.removeNodeTree(this.node.dirs.pod(this.pod.uid));
  }

  /** The cluster is stopping: kill everything at once (run() then removes the sandbox). */
  async shutdown(): Promise<void> {
    this.pod.markStopping();
    clearTimeout(this.deadline);
    await Promise.all([...this.containers.running.values()].map((p) => p.stop(0)));
    await this.running;
  }

  private async run(): Promise<void> {
    const pod = await schedule(this.pod, this.node);
    if (pod === undefined) return;
    const startTime = this.pod.stamp();
    this.pod.patch((p) => {
      p.status = admittedStatus(p, this.node.nodeIP, startTime);
    });
    const deadlineSeconds = pod.spec.activeDeadlineSeconds;
    if (deadlineSeconds !== undefined) {
      this.deadline = setTimeout(() => void this.deadlineExceeded(pod), deadlineSeconds * 1000);
    }
    // A pod worker stuck in a call that never returns (faults.ts holdCreating): ContainerCreating,
    // and not a word, until the pod is deleted or its deadline ends it.
    if (this.node.holdCreating?.(pod)) {
      await this.pod.waitForChange(() => false).catch(ignoreAbort);
      clearTimeout(this.deadline);
      return;
    }
    let stopVolumeUpdates = () => {};
    try {
      const mounted = await mountVolumes(this.pod, pod, this.node);
      if (mounted === undefined) return;
      stopVolumeUpdates = mounted.stopUpdates;
      const volumes = mounted.dirs;
      if (this.pod.stopping) return;
      const sandbox = await this.runSandbox(pod);
      if (sandbox === undefined) return;
      const init = await this.runInitContainers(pod, volumes);
      if (init === 'done') await Promise.all(pod.spec.containers.map((c) => this.runContainer(c, volumes)));
      // The pod is over (its containers ended, or an init container failed): its sidecars go too.
      if (init !== 'stuck') await this.stopSidecars(pod);
    } finally {
      stopVolumeUpdates();
      await Promise.all(this.sidecarLoops);
      clearTimeout(this.deadline);
      // Its containers have all ended: as the kubelet stops a finished pod's sandbox, the pod's
      // network goes (the pod object stays until it is deleted).
      const sandbox = this.sandbox;
      this.sandbox = undefined;
      await sandbox?.remove();
    }
  }

  /**
   * In order: an ordinary one to its end, a sidecar until it has started (then it runs on beside
   * the rest). 'done' when the containers may start, 'failed' when one exited non-zero, 'stuck'
   * when one never gets to run (its image, its config, or the pod stopping).
   */
  private async runInitContainers(pod: Pod, volumes: ReadonlyMap<string, string>): Promise<'done' | 'failed' | 'stuck'> {
    for (const container of pod.spec.initContainers ?? []) {
      if (this.pod.isSidecar(container.name)) {
        let started: () => void = () => {};
        const whenStarted = new Promise<boolean>((resolve) => (started = () => resolve(true)));
        const loop = this.runSidecar(container, volumes, started).catch(ignoreAbort);
        this.sidecarLoops.push(loop);
        if (!(await Promise.race([whenStarted, loop.then(() => false)]))) return 'stuck';
        continue;
      }
      await this.runContainer(container, volumes);
      const terminated = this.initStatus(container.name)?.state.terminated;
      if (terminated === undefined) return 'stuck';
      if (terminated.exitCode !== 0) return 'failed';
    }
    return 'done';
  }

  private initStatus(name: string): ContainerStatus | undefined {
    return this.pod.current()?.status?.initContainerStatuses?.find((s) => s.name === name);
  }

  /**
   * A sidecar for the pod's whole life: each time it exits on its own it is started again, at once
   * the first time, then after the kubelet's back-off (CrashLoopBackOff, doubling up to the
   * ceiling), restartCount counting the restarts and lastState the previous end.
   */
  private async runSidecar(container: Container, volumes: ReadonlyMap<string, string>, started: () => void): Promise<void> {
    const { name } = container;
    const { timings } = this.node;
    const cancelled = () => this.sidecarStop.signal.aborted;
    const podRef = `${this.pod.name}_${this.pod.namespace}(${this.pod.uid})`;
    let backoff = timings.backoffInitialMs;
    let lastState: ContainerState | undefined;
    for (let restarts = 0; ; restarts += 1) {
      await this.runContainer(container, volumes, { onStarted: started, cancelled, ...(lastState ? { fields: { restartCount: restarts, lastState } } : {}) });
      if (this.pod.stopping || cancelled()) return;
      const terminated = this.initStatus(name)?.state.terminated;
      // It could not even be created (no command, its config): it waits as its status says.
      if (terminated === undefined) return;
      lastState = { terminated };
      if (restarts === 0) continue;
      this.pod.setContainerState(
        name,
        { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${goDuration(backoff)} restarting failed container=${name} pod=${podRef}` } },
        { lastState },
      );
      this.pod.event({ type: 'Warning', reason: 'BackOff', message: `Back-off restarting failed container ${name} in pod ${podRef}`, container: name });
      await this.pod.wait(backoff, this.sidecarStop.signal);
      backoff = Math.min(backoff * 2, timings.backoffMaxMs);
    }
  }

  /** Once the containers have ended: SIGTERM to each sidecar in reverse order, SIGKILL after the grace period. */
  private async stopSidecars(pod: Pod): Promise<void> {
    if (this.pod.sidecars.length === 0 || this.pod.stopping) return;
    this.sidecarStop.abort();
    await stopSidecars(this.pod, this.containers.running, (pod.spec.terminationGracePeriodSeconds ?? 30) * 1000);
  }

  /**
   * The pod's sandbox (its network, hostname and /etc/hosts), and the pod's IP once it has one. A
   * runtime that cannot make it (its daemon away) leaves the pod ContainerCreating with a
   * FailedCreatePodSandBox event each try, retried with the kubelet's back-off, as the kubelet
   * does; undefined when the pod stops first.
   */
  private async runSandbox(pod: Pod): Promise<PodSandbox | undefined> {
    const { timings } = this.node;
    for (let backoff = timings.backoffInitialMs; ; backoff = Math.min(backoff * 2, timings.backoffMaxMs)) {
      const made = await this.node.runtime
        .runPodSandbox({
          pod,
          hostname: pod.metadata.name ?? '',
          hostAliases: (pod.spec.hostAliases ?? []) as { ip: string; hostnames: string[] }[],
          ...(this.node.podIdentityAgent && hasPodIdentity(pod) ? { podIdentityAgent: this.node.podIdentityAgent } : {}),
        })
        .catch((error: unknown) => {
          this.pod.event({ type: 'Warning', reason: 'FailedCreatePodSandBox', message: `Failed to create pod sandbox: ${(error as Error).message}` });
          return undefined;
        });
      if (this.pod.stopping) {
        await made?.remove();
        return undefined;
      }
      if (made !== undefined) {
        this.sandbox = made;
        const ip = made.podIP;
        this.pod.patch((p) => {
          if (p.status) p.status = { ...p.status, podIP: ip, podIPs: [{ ip }] };
        });
        return made;
      }
      await this.pod.wait(backoff);
    }
  }

  private async runContainer(container: Container, volumes: ReadonlyMap<string, string>, options: RunOptions = {}): Promise<void> {
    const image = await ensureImage(this.pod, container, this.node);
    if (image === undefined || this.sandbox === undefined) return;
    const env = await waitForContainerEnv(this.pod, container, this.node);
    if (env === undefined) return;
    await this.containers.run(container, image, env, { sandbox: this.sandbox, mounts: containerMounts(container.volumeMounts ?? [], volumes) }, options);
  }

  private async deadlineExceeded(pod: Pod): Promise<void> {
    this.pod.event({ type: 'Normal', reason: 'DeadlineExceeded', message: DEADLINE_MESSAGE });
    await this.terminate((pod.spec.terminationGracePeriodSeconds ?? 30) * 1000, 'deadline');
  }

  /** Returns whether any process was running; only the first termination does anything. */
  private async terminate(graceMs: number, cause: TerminationCause): Promise<boolean> {
    if (this.pod.stopping) return false;
    this.pod.markStopping();
    clearTimeout(this.deadline);
    return terminatePod(this.pod, this.containers.running, graceMs, cause);
  }
}
