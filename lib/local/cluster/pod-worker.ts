/**
 * One pod's life on the simulated node, in the order a kubelet drives it: scheduling, taking the
 * pod on, then for each container its image, its environment and its process; and the pod's end
 * when it runs past its deadline, is deleted, or the cluster stops. Each step is its own module;
 * this only sequences them and owns the deadline.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { ContainerRunner } from './container-runner.js';
import { waitForContainerEnv } from './container-env.js';
import { ensureImage } from './image-manager.js';
import type { LogBuffer } from './log-buffer.js';
import type { NodeContext } from './node-context.js';
import type { Container, Pod } from './objects.js';
import { PodHandle } from './pod-handle.js';
import { admittedStatus } from './pod-status.js';
import { DEADLINE_MESSAGE, terminatePod, type TerminationCause } from './pod-termination.js';
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

  /** The pod is gone from the API already (deleted with grace 0): kill without writing anything. */
  async removed(): Promise<void> {
    await this.shutdown();
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
    await Promise.all(pod.spec.containers.map((c) => this.runContainer(c)));
    clearTimeout(this.deadline);
  }

  private async runContainer(container: Container): Promise<void> {
    const image = await ensureImage(this.pod, container, this.node);
    if (image === undefined) return;
    const env = await waitForContainerEnv(this.pod, container, this.node);
    if (env === undefined) return;
    await this.containers.run(container, image, env);
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
