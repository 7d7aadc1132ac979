/**
 * A stand-in for the Kubernetes API in simulated time, for the cost and completion-latency
 * benchmarks: step pods, each pending (scheduled, image pulling) for a while, then running for its
 * step's duration, then exiting 0; the n-th pod created follows the n-th timeline (the last one
 * for any further pods). It answers the calls the real task code makes (create, read, events,
 * log, delete) with the objects a kubelet would report at the simulated moment, so the real
 * classifier and the real poll schedule decide everything else.
 */
import type { CoreV1Api, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import type { TaskDeps } from '../lib/workflow/task-deps.js';
import type { SimulatedClock } from './simulated-clock.js';

export interface StepTimeline {
  /** Created -> running: scheduling, image pull, container start; with a `fate`, created -> the pull's failure. */
  pendingSeconds: number;
  /** Running -> exited 0. */
  runningSeconds: number;
  /** A pod that never runs: see PendingFates. */
  fate?: PendingFate;
}

/**
 * Pods that never run. `never-scheduled`: it names a scheduler that is not there (no node, no
 * condition, no event, ever). `pull-not-found`: its node's pull fails `pendingSeconds` after its
 * creation with the registry's "not found" (ImagePullFailed at once); `pull-rate-limited`: with
 * Docker Hub's 429 (transient: ImagePullFailed once imagePullGraceSeconds have passed).
 */
export const PendingFates = { neverScheduled: 'never-scheduled', pullNotFound: 'pull-not-found', pullRateLimited: 'pull-rate-limited' } as const;
export type PendingFate = (typeof PendingFates)[keyof typeof PendingFates];

/** The kubelet's words for each pull failure (as lib/kube/image-pull.test.ts quotes them). */
const PULL_FAILURES: Record<Exclude<PendingFate, 'never-scheduled'>, (image: string) => string> = {
  'pull-not-found': (image) =>
    `rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/${image}": failed to resolve reference "docker.io/library/${image}": docker.io/library/${image}: not found`,
  'pull-rate-limited': (image) =>
    `rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/library/${image}": failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/${image.split(':')[0]}/manifests/sha256:0000: 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit. You may increase the limit by authenticating and upgrading: https://www.docker.com/increase-rate-limit`,
};

/** A pod the simulated cluster created: when, and when its container exits (simulated ms). */
export interface SimulatedPod {
  name: string;
  createdAt: number;
  startsAt: number;
  endsAt: number;
}

export interface SimulatedCluster {
  api: CoreV1Api;
  /** Every pod created so far, in order of creation. */
  pods(): SimulatedPod[];
  /** TaskDeps.watchPod in simulated time: the clock moves to the pod's next change, or by the timeout. */
  watchPod: NonNullable<TaskDeps['watchPod']>;
  /** Simulated seconds spent inside watches (billed Lambda time). */
  watchedSeconds(): number;
}

interface Entry {
  pod: V1Pod;
  createdAt: number;
  timeline: StepTimeline;
}

export function simulatedCluster(clock: SimulatedClock, timelines: StepTimeline | readonly StepTimeline[]): SimulatedCluster {
  const pods = new Map<string, Entry>();
  const created: SimulatedPod[] = [];
  const claims = new Map<string, V1PersistentVolumeClaim>();
  const all = Array.isArray(timelines) ? timelines : [timelines as StepTimeline];
  const timelineOf = (index: number) => all[Math.min(index, all.length - 1)]!;

  /** A pod whose fate is never to run, as it stands at the simulated moment. */
  const fatedPod = (entry: Entry, fate: PendingFate): V1Pod => {
    if (fate === PendingFates.neverScheduled) {
      return { ...entry.pod, spec: { ...entry.pod.spec!, schedulerName: 'volcano' }, status: { phase: 'Pending', qosClass: 'BestEffort' } };
    }
    const image = entry.pod.spec!.containers[0]!.image!;
    const failed = clock.now().getTime() >= entry.createdAt + entry.timeline.pendingSeconds * 1000;
    const state = failed ? { waiting: { reason: 'ErrImagePull', message: PULL_FAILURES[fate](image) } } : { waiting: { reason: 'ContainerCreating' } };
    return {
      ...entry.pod,
      spec: { ...entry.pod.spec!, nodeName: 'sim-node' },
      status: {
        phase: 'Pending',
        startTime: new Date(entry.createdAt),
        conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: new Date(entry.createdAt) }],
        containerStatuses: [{ name: 'step', image, imageID: '', ready: false, restartCount: 0, state }],
      },
    };
  };

  /** The kubelet's events about a pod whose pull fails: Pulling, then Failed with the registry's words once it has. */
  const eventsOf = (entry: Entry) => {
    const fate = entry.timeline.fate;
    if (fate === undefined || fate === PendingFates.neverScheduled) return [];
    const image = entry.pod.spec!.containers[0]!.image!;
    const about = { kind: 'Pod', name: entry.pod.metadata!.name!, namespace: entry.pod.metadata!.namespace ?? 'default', uid: entry.pod.metadata!.uid!, fieldPath: 'spec.containers{step}' };
    const at = (seconds: number) => new Date(entry.createdAt + seconds * 1000);
    const failedAt = entry.createdAt + entry.timeline.pendingSeconds * 1000;
    const pulling = { metadata: { name: `${about.name}.pulling` }, involvedObject: about, reason: 'Pulling', type: 'Normal', message: `Pulling image "${image}"`, count: 1, firstTimestamp: at(1), lastTimestamp: at(1) };
    if (clock.now().getTime() < failedAt) return [pulling];
    const failed = { metadata: { name: `${about.name}.failed` }, involvedObject: about, reason: 'Failed', type: 'Warning', message: `Failed to pull image "${image}": ${PULL_FAILURES[fate](image)}`, count: 1, firstTimestamp: new Date(failedAt), lastTimestamp: new Date(failedAt) };
    return [pulling, failed];
  };

  const podAt = (entry: Entry): V1Pod => {
    const { timeline } = entry;
    if (timeline.fate) return fatedPod(entry, timeline.fate);
    const age = (clock.now().getTime() - entry.createdAt) / 1000;
    const startedAt = new Date(entry.createdAt + timeline.pendingSeconds * 1000);
    const finishedAt = new Date(startedAt.getTime() + timeline.runningSeconds * 1000);
    const base = { name: 'step', image: entry.pod.spec!.containers[0]!.image!, imageID: '', ready: false, restartCount: 0 };
    const scheduled = [{ type: 'PodScheduled', status: 'True' }];
    let status: V1Pod['status'];
    if (age < timeline.pendingSeconds) {
      status = {
        phase: 'Pending',
        conditions: scheduled,
        containerStatuses: [{ ...base, state: { waiting: { reason: 'ContainerCreating' } } }],
      };
    } else if (age < timeline.pendingSeconds + timeline.runningSeconds) {
      status = {
        phase: 'Running',
        startTime: startedAt,
        conditions: scheduled,
        containerStatuses: [{ ...base, ready: true, started: true, state: { running: { startedAt } } }],
      };
    } else {
      status = {
        phase: 'Succeeded',
        startTime: startedAt,
        conditions: scheduled,
        containerStatuses: [
          { ...base, state: { terminated: { exitCode: 0, reason: 'Completed', startedAt, finishedAt } } },
        ],
      };
    }
    return { ...entry.pod, spec: { ...entry.pod.spec!, nodeName: 'sim-node' }, status };
  };

  const api = {
    async createNamespacedPod({ body }: { body: V1Pod }) {
      const createdAt = clock.now().getTime();
      const timeline = timelineOf(created.length);
      const pod: V1Pod = {
        ...body,
        metadata: { ...body.metadata, uid: `uid-${created.length + 1}`, creationTimestamp: new Date(createdAt) },
      };
      const startsAt = createdAt + timeline.pendingSeconds * 1000;
      created.push({ name: pod.metadata!.name!, createdAt, startsAt, endsAt: startsAt + timeline.runningSeconds * 1000 });
      pods.set(pod.metadata!.name!, { pod, createdAt, timeline });
      return podAt({ pod, createdAt, timeline });
    },
    async readNamespacedPod({ name }: { name: string }) {
      const entry = pods.get(name);
      if (!entry) throw Object.assign(new Error('not found'), { code: 404, body: '{"reason":"NotFound"}', headers: {} });
      return podAt(entry);
    },
    async listNamespacedEvent() {
      return { items: [...pods.values()].flatMap(eventsOf) };
    },
    async readNamespacedPodLog() {
      return 'simulated step output\n';
    },
    async deleteNamespacedPod({ name }: { name: string }) {
      pods.delete(name);
      return {};
    },
    async listNamespacedPod() {
      return { items: [...pods.values()].map(podAt) };
    },
    // The build's workspace claim, bound at once; its first pod's node is where later pods go.
    async createNamespacedPersistentVolumeClaim({ body }: { body: V1PersistentVolumeClaim }) {
      claims.set(body.metadata!.name!, body);
      return body;
    },
    async readNamespacedPersistentVolumeClaim({ name }: { name: string }) {
      const claim = claims.get(name);
      if (!claim) throw Object.assign(new Error('not found'), { code: 404, body: '{"reason":"NotFound"}', headers: {} });
      return { ...claim, metadata: { ...claim.metadata, annotations: { ...claim.metadata?.annotations, 'volume.kubernetes.io/selected-node': 'sim-node' } } };
    },
    // PollStep reads the node once per pod, for its price: an EKS node carries its instance type.
    async readNode({ name }: { name: string }) {
      return { metadata: { name, labels: { 'node.kubernetes.io/instance-type': 'm7g.large' } } };
    },
    async listNamespacedPersistentVolumeClaim() {
      return { items: [...claims.values()] };
    },
    // FinishStep marks a step succeeded on it (a merge patch of annotations).
    async patchNamespacedPersistentVolumeClaim({ name, body }: { name: string; body: V1PersistentVolumeClaim }) {
      const claim = claims.get(name);
      if (!claim) throw Object.assign(new Error('not found'), { code: 404, body: '{"reason":"NotFound"}', headers: {} });
      const patched = { ...claim, metadata: { ...claim.metadata, annotations: { ...claim.metadata?.annotations, ...body.metadata?.annotations } } };
      claims.set(name, patched);
      return patched;
    },
    async deleteNamespacedPersistentVolumeClaim({ name }: { name: string }) {
      claims.delete(name);
      return {};
    },
    // The build's credential Secrets: the benchmark's builds have none (cleanup lists them).
    async listNamespacedSecret() {
      return { items: [] };
    },
    async deleteNamespacedSecret() {
      return {};
    },
  };
  let watchedSeconds = 0;
  // As lib/kube/watch-pod.ts: the watch first delivers the pod as it is (settled if `until` already
  // holds), then each change, until `until` holds or the time is up; it then resolves with the
  // last version seen, settled or not (so PollStep counts it as a watch, pending or running), and
  // undefined only when the pod does not exist. A running pod's only change is its end.
  const watchPod: SimulatedCluster['watchPod'] = async (_namespace, podName, until, timeoutMs) => {
    const entry = pods.get(podName);
    if (!entry) return undefined;
    const current = podAt(entry);
    if (until(current)) return { pod: current, settled: true };
    // The pod changes only when it starts and when it ends; a pull that fails, when it does; one never scheduled, never.
    const { timeline } = entry;
    const offsets = timeline.fate === PendingFates.neverScheduled ? [] : timeline.fate ? [timeline.pendingSeconds] : [timeline.pendingSeconds, timeline.pendingSeconds + timeline.runningSeconds];
    const changes = offsets.map((s) => entry.createdAt + s * 1000);
    const now = clock.now().getTime();
    const next = changes.find((at) => at > now);
    const waited = Math.min(timeoutMs, next === undefined ? timeoutMs : next - now) / 1000;
    clock.advance(waited);
    watchedSeconds += waited;
    const pod = podAt(entry);
    return { pod, settled: until(pod) };
  };
  return { api: api as unknown as CoreV1Api, pods: () => [...created], watchPod, watchedSeconds: () => watchedSeconds };
}
