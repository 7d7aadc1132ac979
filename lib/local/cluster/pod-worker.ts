/**
 * One pod's life on the simulated node, in the order a kubelet drives it: scheduling, taking the
 * pod on, its volumes, then for each container its image, its environment and its process (in its
 * working directory, its env's mount paths turned into host paths); and the pod's end
 * when it runs past its deadline, is deleted, or the cluster stops. Each step is its own module;
 * this only sequences them and owns the deadline.
 */
import { mkdir, rm } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { hostEnv, hostMounts, workingDirectory } from './container-paths.js';
import { ContainerRunner } from './container-runner.js';
import { waitForContainerEnv } from './container-env.js';
import type { ExecTarget } from './exec-process.js';
import { ensureImage } from './image-manager.js';
import type { LogBuffer } from './log-buffer.js';
import type { NodeContext } from './node-context.js';
import type { Container, Pod } from './objects.js';
import { PodHandle } from './pod-handle.js';
import { admittedStatus } from './pod-status.js';
import { DEADLINE_MESSAGE, terminatePod, type TerminationCause } from './pod-termination.js';
import { mountVolumes } from './pod-volumes.js';
import { schedule } from './scheduler.js';

export class PodWorker {
  private readonly pod: PodHandle;
  private readonly containers: ContainerRunner;
  private deadline: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly node: NodeContext,
    created: Pod,
  ) {
    this.pod = new PodHandle(node, created);
    this.containers = new ContainerRunner(this.pod, node);
  }

  /** Logs of the containers that have started, by container name. */
  get logs(): ReadonlyMap<string, LogBuffer> {
    return this.containers.logs;
  }

  /** A running container's directory, environment and life, for exec; undefined when it is not running. */
  execTarget(container: string): ExecTarget | undefined {
    return this.containers.execTargets.get(container);
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
    await rm(this.node.dirs.pod(this.pod.uid), { recursive: true, force: true });
  }

  /** The cluster is stopping: kill everything at once. */
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
    const volumes = await mountVolumes(this.pod, pod, this.node);
    if (volumes !== undefined && (await this.runInitContainers(pod, volumes))) {
      await Promise.all(pod.spec.containers.map((c) => this.runContainer(c, volumes)));
    }
    clearTimeout(this.deadline);
  }

  /** In order, each to its end; whether they all exited 0, so the containers may start. */
  private async runInitContainers(pod: Pod, volumes: ReadonlyMap<string, string>): Promise<boolean> {
    for (const container of pod.spec.initContainers ?? []) {
      await this.runContainer(container, volumes);
      const status = this.pod.current()?.status?.initContainerStatuses?.find((s) => s.name === container.name);
      if (status?.state.terminated?.exitCode !== 0) return false;
    }
    return true;
  }

  private async runContainer(container: Container, volumes: ReadonlyMap<string, string>): Promise<void> {
    const image = await ensureImage(this.pod, container, this.node);
    if (image === undefined) return;
    const env = await waitForContainerEnv(this.pod, container, this.node);
    if (env === undefined) return;
    const mounts = hostMounts(container.volumeMounts ?? [], volumes);
    const root = this.node.dirs.containerRoot(this.pod.uid, container.name);
    const cwd = workingDirectory(container, mounts, root, this.node.workspace);
    // A runtime creates a missing working directory; if it cannot, the start fails as runc's chdir does.
    if (container.workingDir) await mkdir(cwd, { recursive: true }).catch(() => undefined);
    await this.containers.run(container, image, hostEnv(env, mounts), cwd);
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
