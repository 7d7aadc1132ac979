/**
 * One pod's life on the simulated node, step by step as a kubelet drives it: scheduling, image
 * pulls with back-off, container configuration, the process itself, and its end (exit, deadline,
 * or deletion). Every change is written to the store, where clients see it.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { containerEnv } from './container-env.js';
import type { EventRecorder, EventSpec } from './events.js';
import { parseImageReference } from './image-catalog.js';
import type { ImagePuller, PullOutcome } from './image-puller.js';
import { LogBuffer } from './log-buffer.js';
import { formatTime, type Container, type ContainerStatus, type Pod, type Secret } from './objects.js';
import { defaultPullPolicy } from './pod-defaults.js';
import { derivePhase, nodeConditions, setCondition } from './pod-status.js';
import { startProcess, type StepProcess } from './process-runner.js';
import { invalidReferenceMessage } from './pull-errors.js';
import { fitPod, type NodeCapacity } from './scheduler.js';
import type { ObjectStore } from './store.js';
import { goDuration } from './time-format.js';
import type { KubeletTimings } from './timings.js';

export interface NodeContext {
  store: ObjectStore;
  events: EventRecorder;
  puller: ImagePuller;
  timings: KubeletTimings;
  nodeName: string;
  nodeIP: string;
  capacity: NodeCapacity;
  workspace: string;
  /** The environment every step process starts from (PATH and friends); the container's env goes on top. */
  baseEnv: Record<string, string>;
  logLimitBytes: number;
  now: () => Date;
}

const DEADLINE_MESSAGE = 'Pod was active on the node longer than the specified deadline';

export class PodWorker {
  /** Logs of the containers that have started, by container name. */
  readonly logs = new Map<string, LogBuffer>();
  private readonly processes = new Map<string, StepProcess>();
  private readonly abort = new AbortController();
  private readonly namespace: string;
  private readonly name: string;
  private readonly uid: string;
  private deadline: NodeJS.Timeout | undefined;
  private terminating = false;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly node: NodeContext,
    private readonly pod: Pod,
  ) {
    this.namespace = pod.metadata.namespace ?? 'default';
    this.name = pod.metadata.name ?? '';
    this.uid = pod.metadata.uid ?? '';
  }

  start(): void {
    this.running = this.run().catch((error: unknown) => {
      if ((error as Error)?.name !== 'AbortError') throw error;
    });
  }

  /** A graceful delete: stop the processes (SIGTERM, SIGKILL after the grace), then the pod goes. */
  async deletionRequested(graceSeconds: number): Promise<void> {
    const stopped = await this.terminate(graceSeconds * 1000, 'deleted');
    if (!stopped) await delay(this.node.timings.terminatingMs);
    this.node.store.remove('pods', this.namespace, this.name, this.uid);
  }

  /** The pod is gone from the API already (deleted with grace 0): kill without writing anything. */
  async removed(): Promise<void> {
    this.terminating = true;
    await this.shutdown();
  }

  /** The cluster is stopping: kill everything at once. */
  async shutdown(): Promise<void> {
    this.terminating = true;
    this.abort.abort();
    clearTimeout(this.deadline);
    await Promise.all([...this.processes.values()].map((p) => p.stop(0)));
    await this.running;
  }

  private async run(): Promise<void> {
    await this.sleep(this.node.timings.scheduleMs);
    const pod = this.current();
    if (pod === undefined) return;
    const fit = fitPod(pod, this.node.capacity);
    if (!fit.fits) {
      // The real scheduler retries; with one node of fixed capacity the answer would not change.
      this.patch((p) => {
        p.status = {
          ...p.status,
          phase: 'Pending',
          conditions: setCondition([], 'PodScheduled', 'False', this.stamp(), 'Unschedulable', fit.message),
        };
      });
      this.event({ type: 'Warning', reason: 'FailedScheduling', message: fit.message, component: 'default-scheduler' });
      return;
    }
    this.patch((p) => {
      p.spec.nodeName = this.node.nodeName;
      p.status = { ...p.status, phase: 'Pending', conditions: setCondition(p.status?.conditions ?? [], 'PodScheduled', 'True', this.stamp()) };
    });
    this.event({
      type: 'Normal',
      reason: 'Scheduled',
      message: `Successfully assigned ${this.namespace}/${this.name} to ${this.node.nodeName}`,
      component: 'default-scheduler',
    });

    const startTime = this.stamp();
    const ip = this.node.nodeIP;
    this.patch((p) => {
      const statuses = p.spec.containers.map((c) => this.creatingStatus(c));
      p.status = {
        ...p.status,
        phase: 'Pending',
        hostIP: ip,
        hostIPs: [{ ip }],
        podIP: ip,
        podIPs: [{ ip }],
        startTime,
        containerStatuses: statuses,
        conditions: nodeConditions(p.status?.conditions ?? [], statuses, 'Pending', startTime),
      };
    });
    const deadlineSeconds = pod.spec.activeDeadlineSeconds;
    if (deadlineSeconds !== undefined) {
      this.deadline = setTimeout(() => void this.deadlineExceeded(pod), deadlineSeconds * 1000);
    }
    await Promise.all(pod.spec.containers.map((c) => this.runContainer(c)));
    clearTimeout(this.deadline);
  }

  private async runContainer(container: Container): Promise<void> {
    const image = await this.ensureImage(container);
    if (image === undefined) return;
    const env = await this.configure(container);
    if (env === undefined) return;

    const containerID = `containerd://${randomBytes(32).toString('hex')}`;
    const argv = [
      ...(container.command ?? image.entry.entrypoint ?? []),
      ...(container.args ?? (container.command ? [] : (image.entry.cmd ?? []))),
    ];
    if (argv.length === 0) {
      const message = `failed to generate container "${containerID.slice(13)}" spec: failed to generate spec: no command specified`;
      this.setState(container.name, { waiting: { reason: 'CreateContainerError', message } });
      this.event({ type: 'Warning', reason: 'Failed', message: `Error: ${message}`, container: container.name });
      return;
    }
    await this.sleep(this.node.timings.createMs);
    const log = new LogBuffer(this.node.logLimitBytes);
    const started = await startProcess(argv, { cwd: this.node.workspace, env: { ...this.node.baseEnv, HOSTNAME: this.name, ...env }, log });
    this.event({ type: 'Normal', reason: 'Created', message: `Created container: ${container.name}`, container: container.name });
    this.logs.set(container.name, log);
    if (!started.ok) {
      log.end();
      this.setState(
        container.name,
        { terminated: { exitCode: 128, reason: 'StartError', message: started.message, startedAt: '1970-01-01T00:00:00Z', finishedAt: this.stamp(), containerID } },
        { containerID, imageID: image.imageID },
      );
      this.event({ type: 'Warning', reason: 'Failed', message: `Error: ${started.message}`, container: container.name });
      return;
    }
    if (this.terminating) {
      await started.process.stop(0);
      return;
    }
    this.processes.set(container.name, started.process);
    const startedAt = this.stamp();
    this.setState(container.name, { running: { startedAt } }, { containerID, imageID: image.imageID, ready: true, started: true });
    this.event({ type: 'Normal', reason: 'Started', message: `Started container ${container.name}`, container: container.name });

    const exit = await started.process.exited;
    this.processes.delete(container.name);
    if (this.terminating) return;
    this.setState(container.name, {
      terminated: {
        exitCode: exit.exitCode,
        ...(exit.signal !== undefined ? { signal: exit.signal } : {}),
        reason: exit.exitCode === 0 ? 'Completed' : 'Error',
        startedAt,
        finishedAt: this.stamp(),
        containerID,
      },
    });
  }

  /** Pulls (or finds) the container's image; undefined while it cannot be had. */
  private async ensureImage(container: Container): Promise<Extract<PullOutcome, { ok: true }> | undefined> {
    const { image, name } = container;
    const parsed = parseImageReference(image);
    if (!parsed.ok) {
      const message = invalidReferenceMessage(image, parsed.message);
      this.setState(name, { waiting: { reason: 'InvalidImageName', message } });
      this.event({ type: 'Warning', reason: 'InspectFailed', message, container: name });
      this.event({ type: 'Warning', reason: 'Failed', message: 'Error: InvalidImageName', container: name });
      return undefined;
    }
    const policy = container.imagePullPolicy ?? defaultPullPolicy(image);
    const { timings, puller } = this.node;
    let backoff = timings.backoffInitialMs;
    for (;;) {
      const present = policy === 'Always' ? undefined : puller.presentImage(image);
      if (present !== undefined) {
        this.event({ type: 'Normal', reason: 'Pulled', message: `Container image "${image}" already present on machine`, container: name });
        return present;
      }
      if (policy === 'Never') {
        const message = `Container image "${image}" is not present with pull policy of Never`;
        this.setState(name, { waiting: { reason: 'ErrImageNeverPull', message } });
        this.event({ type: 'Warning', reason: 'ErrImageNeverPull', message, container: name });
        this.event({ type: 'Warning', reason: 'Failed', message: 'Error: ErrImageNeverPull', container: name });
        return undefined;
      }
      this.event({ type: 'Normal', reason: 'Pulling', message: `Pulling image "${image}"`, container: name });
      const began = Date.now();
      await this.sleep(timings.pullMs);
      const outcome = puller.pull(image);
      if (outcome.ok) {
        const took = goDuration(Date.now() - began);
        this.event({
          type: 'Normal',
          reason: 'Pulled',
          message: `Successfully pulled image "${image}" in ${took} (${took} including waiting). Image size: ${outcome.size} bytes.`,
          container: name,
        });
        return outcome;
      }
      this.event({ type: 'Warning', reason: 'Failed', message: `Failed to pull image "${image}": ${outcome.error}`, container: name });
      this.event({ type: 'Warning', reason: 'Failed', message: 'Error: ErrImagePull', container: name });
      this.setState(name, { waiting: { reason: 'ErrImagePull', message: outcome.error } });
      await this.sleep(Math.min(timings.syncMs, backoff));
      this.setState(name, { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}": ErrImagePull: ${outcome.error}` } });
      this.event({ type: 'Normal', reason: 'BackOff', message: `Back-off pulling image "${image}"`, container: name });
      this.event({ type: 'Warning', reason: 'Failed', message: 'Error: ImagePullBackOff', container: name });
      await this.sleep(Math.max(0, backoff - timings.syncMs));
      backoff = Math.min(backoff * 2, timings.backoffMaxMs);
    }
  }

  /** The container's environment; retried while a Secret it needs is missing, as the kubelet does. */
  private async configure(container: Container): Promise<Record<string, string> | undefined> {
    const secrets = (namespace: string, name: string) => this.node.store.get('secrets', namespace, name) as Secret | undefined;
    for (;;) {
      const pod = this.current();
      if (pod === undefined) return undefined;
      const result = containerEnv(pod, container, secrets);
      if (result.ok) return result.env;
      this.setState(container.name, { waiting: { reason: 'CreateContainerConfigError', message: result.message } });
      this.event({ type: 'Warning', reason: 'Failed', message: `Error: ${result.message}`, container: container.name });
      await this.sleep(this.node.timings.configRetryMs);
    }
  }

  private async deadlineExceeded(pod: Pod): Promise<void> {
    this.event({ type: 'Normal', reason: 'DeadlineExceeded', message: DEADLINE_MESSAGE });
    await this.terminate((pod.spec.terminationGracePeriodSeconds ?? 30) * 1000, 'deadline');
  }

  /**
   * Stops everything the pod runs and records how each container ended. Returns whether any
   * process was running.
   */
  private async terminate(graceMs: number, why: 'deleted' | 'deadline'): Promise<boolean> {
    if (this.terminating) return false;
    this.terminating = true;
    this.abort.abort();
    clearTimeout(this.deadline);
    const running = [...this.processes.entries()];
    for (const [name] of running) this.event({ type: 'Normal', reason: 'Killing', message: `Stopping container ${name}`, container: name });
    const exits = new Map(await Promise.all(running.map(async ([name, p]) => [name, await p.stop(graceMs)] as const)));
    const finishedAt = this.stamp();
    this.patch((p) => {
      const statuses = (p.status?.containerStatuses ?? []).map((s): ContainerStatus => {
        const exit = exits.get(s.name);
        if (exit !== undefined) {
          const startedAt = s.state.running?.startedAt ?? null;
          return { ...s, ready: false, started: false, state: { terminated: { exitCode: exit.exitCode, ...(exit.signal ? { signal: exit.signal } : {}), reason: 'Error', startedAt, finishedAt, containerID: s.containerID } } };
        }
        if (s.state.terminated) return s;
        // Never started: the kubelet reports such containers as lost when the pod ends.
        return { ...s, ready: false, started: false, state: { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', startedAt: null, finishedAt } } };
      });
      const phase = why === 'deadline' ? 'Failed' : derivePhase(statuses);
      p.status = {
        ...p.status,
        phase,
        ...(why === 'deadline' ? { reason: 'DeadlineExceeded', message: DEADLINE_MESSAGE } : {}),
        containerStatuses: statuses,
        conditions: nodeConditions(p.status?.conditions ?? [], statuses, phase, finishedAt),
      };
    });
    return running.length > 0;
  }

  private creatingStatus(container: Container): ContainerStatus {
    return {
      name: container.name,
      image: container.image,
      imageID: '',
      ready: false,
      started: false,
      restartCount: 0,
      state: { waiting: { reason: 'ContainerCreating' } },
      lastState: {},
    };
  }

  /** Replaces one container's state (and some status fields), then re-derives phase and conditions. */
  private setState(name: string, state: ContainerStatus['state'], fields: Partial<ContainerStatus> = {}): void {
    if (this.terminating) return;
    const now = this.stamp();
    this.patch((p) => {
      const statuses = (p.status?.containerStatuses ?? []).map((s) =>
        s.name === name ? { ...s, ...fields, state, ...(state.running ? {} : { ready: false, started: fields.started ?? false }) } : s,
      );
      const phase = derivePhase(statuses);
      p.status = {
        ...p.status,
        phase,
        containerStatuses: statuses,
        conditions: nodeConditions(p.status?.conditions ?? [], statuses, phase, now),
      };
    });
  }

  private patch(change: (pod: Pod) => void): void {
    this.node.store.update('pods', this.namespace, this.name, (draft) => change(draft as Pod), this.uid);
  }

  private current(): Pod | undefined {
    const pod = this.node.store.get('pods', this.namespace, this.name) as Pod | undefined;
    return pod?.metadata.uid === this.uid ? pod : undefined;
  }

  private event(spec: EventSpec): void {
    const pod = this.current() ?? this.pod;
    this.node.events.record(pod, spec);
  }

  private stamp(): string {
    return formatTime(this.node.now());
  }

  private sleep(ms: number): Promise<void> {
    return delay(ms, undefined, { signal: this.abort.signal });
  }
}
