/**
 * What the Docker runtime costs next to the process runner, on two embedded clusters at
 * FAST_TIMINGS: each pod's way from created to its container started (sandbox, then create and
 * start), how fast a pull the daemon refuses shows as ErrImagePull, and a three-step build through
 * the real state machine. Images come from the Docker tests' fixture (test/fixtures/docker/, a
 * registry on loopback); this is dev-only code, as the rest of bench/ that reads test fixtures.
 *
 * Every moment is when the bench's own watch (plain HTTP, not the code under test) first delivers
 * it: the status's timestamps have whole seconds only. The pod's create request starts each clock.
 */
import type { IncomingMessage } from 'node:http';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CoreV1Api, type CoreV1Event, type V1Pod } from '@kubernetes/client-node';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalExecution } from '../lib/emulators/stepfunctions/executor.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { dockerSocket } from '../test/fixtures/docker/engine-api.js';
import { startTestImages, testImagesBuildable } from '../test/fixtures/docker/test-images.js';
import { openWatch } from '../test/fixtures/watch-events.js';

const NAMESPACE = 'default';
const STEP_TIMEOUT_MS = 60_000;
/** The process runner's stand-in for the busybox test image (and the build's image there). */
export const PROCESS_IMAGE = 'busybox:1.36';
export const PROCESS_BUILD_IMAGE = 'alpine:3.20';

/** One pod, in ms from its create request. */
export interface PodCost {
  /** Admitted: the node took the pod on (startTime, Initialized: no init containers). */
  admittedMs: number;
  /**
   * status.podIP set: the sandbox made (the process runner's is the node's network, made at once).
   */
  sandboxMs: number;
  /** containerStatuses[0] running or terminated (create and start done). */
  startedMs: number;
  succeededMs: number;
}

/** A pull the daemon refused: when its answer came (Pulling -> the first Failed event) and when the pod showed it. */
export interface PullFailureRun {
  /** Pulling event -> `Failed to pull image` event. */
  answerMs: number;
  /** That Failed event -> the pod's status with waiting.reason ErrImagePull (negative: the status came first). */
  surfacingMs: number;
  message: string;
}

export interface RuntimeRuns {
  image: string;
  buildImage: string;
  pods: PodCost[];
  pullFailures: PullFailureRun[];
  /** Three steps in sequence, wall time of each build (StartExecution to its end, cleanup included). */
  buildsMs: number[];
}

export type DockerRuntimeRuns = { skipped: string } | { docker: RuntimeRuns; process: RuntimeRuns; daemonVersion: string };

const Moments = { admitted: 'admitted', sandbox: 'sandbox', started: 'started', succeeded: 'succeeded', errImagePull: 'errImagePull', pulling: 'pulling', pullFailed: 'pullFailed' } as const;
type Moment = (typeof Moments)[keyof typeof Moments];

/** What a pod's status shows, as the moments it passes. */
function podMoments(pod: V1Pod): Moment[] {
  const status = pod.status;
  const container = status?.containerStatuses?.[0];
  return [
    ...(status?.startTime && status.conditions?.some((c) => c.type === 'Initialized' && c.status === 'True') ? [Moments.admitted] : []),
    ...(status?.podIP ? [Moments.sandbox] : []),
    ...(container?.state?.running || container?.state?.terminated ? [Moments.started] : []),
    ...(status?.phase === 'Succeeded' ? [Moments.succeeded] : []),
    ...(container?.state?.waiting?.reason === 'ErrImagePull' ? [Moments.errImagePull] : []),
  ];
}

function eventMoment(event: CoreV1Event): Moment | undefined {
  if (event.reason === 'Pulling') return Moments.pulling;
  if (event.reason === 'Failed' && event.message?.startsWith('Failed to pull image')) return Moments.pullFailed;
  return undefined;
}

/** When the bench's watches first delivered each moment of each pod, and a way to wait for one. */
async function watchMoments(clusterUrl: string) {
  const seen = new Map<string, number>();
  const waiters = new Map<string, (at: number) => void>();
  const key = (pod: string, moment: Moment) => `${pod}\n${moment}`;
  const mark = (pod: string, moment: Moment, at: number) => {
    const k = key(pod, moment);
    if (seen.has(k)) return;
    seen.set(k, at);
    waiters.get(k)?.(at);
  };
  const base = `${clusterUrl}/api/v1/namespaces/${NAMESPACE}`;
  const streams: IncomingMessage[] = [
    await openWatch<V1Pod>(`${base}/pods?watch=true`, ({ object }) => {
      const at = performance.now();
      const name = object.metadata?.name;
      if (name) for (const moment of podMoments(object)) mark(name, moment, at);
    }),
    await openWatch<CoreV1Event>(`${base}/events?watch=true`, ({ object }) => {
      const at = performance.now();
      const moment = eventMoment(object);
      const name = object.involvedObject?.name;
      if (moment && name) mark(name, moment, at);
    }),
  ];
  return {
    seen: (pod: string, moment: Moment): number | undefined => seen.get(key(pod, moment)),
    when(pod: string, moment: Moment): Promise<number> {
      const k = key(pod, moment);
      if (seen.has(k)) return Promise.resolve(seen.get(k)!);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the bench's watch never saw pod ${pod} reach ${moment}`)), STEP_TIMEOUT_MS);
        waiters.set(k, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
    stop: () => streams.forEach((s) => s.destroy()),
  };
}

type Watched = Awaited<ReturnType<typeof watchMoments>>;

const podOf = (name: string, image: string, command: string[]): V1Pod => ({
  metadata: { name, namespace: NAMESPACE },
  spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image, imagePullPolicy: 'IfNotPresent', command }] },
});

async function deleteAndWait(api: CoreV1Api, name: string): Promise<void> {
  await api.deleteNamespacedPod({ name, namespace: NAMESPACE, gracePeriodSeconds: 0 });
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const left = await api.readNamespacedPod({ name, namespace: NAMESPACE }).then(
      () => true,
      () => false,
    );
    if (!left) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Pods one after another, each deleted before the next: the first pulls (not counted), the rest find the image present. */
async function podCosts(api: CoreV1Api, watched: Watched, prefix: string, image: string, count: number): Promise<PodCost[]> {
  const costs: PodCost[] = [];
  for (let n = -1; n < count; n++) {
    const name = `${prefix}-${n < 0 ? 'pull' : n}`;
    const command = n % 2 === 0 ? ['true'] : ['echo', 'hi'];
    const created = performance.now();
    await api.createNamespacedPod({ namespace: NAMESPACE, body: podOf(name, image, command) });
    const succeeded = await watched.when(name, Moments.succeeded);
    if (n >= 0) {
      const [admitted, started] = await Promise.all([Moments.admitted, Moments.started].map((m) => watched.when(name, m)));
      const sandbox = watched.seen(name, Moments.sandbox) ?? started!;
      costs.push({ admittedMs: admitted! - created, sandboxMs: sandbox - created, startedMs: started! - created, succeededMs: succeeded - created });
    }
    await deleteAndWait(api, name);
  }
  return costs;
}

async function pullFailures(api: CoreV1Api, watched: Watched, prefix: string, image: string, count: number): Promise<PullFailureRun[]> {
  const runs: PullFailureRun[] = [];
  for (let n = 0; n < count; n++) {
    const name = `${prefix}-${n}`;
    await api.createNamespacedPod({ namespace: NAMESPACE, body: podOf(name, image, ['true']) });
    const [pulling, failed, shown] = await Promise.all([Moments.pulling, Moments.pullFailed, Moments.errImagePull].map((m) => watched.when(name, m)));
    const pod = await api.readNamespacedPod({ name, namespace: NAMESPACE });
    runs.push({ answerMs: failed! - pulling!, surfacingMs: shown! - failed!, message: pod.status?.containerStatuses?.[0]?.state?.waiting?.message ?? '' });
    await deleteAndWait(api, name);
  }
  return runs;
}

const threeSteps = (image: string) => `version: 1
steps:
  - name: one
    image: ${image}
    commands: [echo one]
  - name: two
    image: ${image}
    needs: [one]
    commands: [echo two]
  - name: three
    image: ${image}
    needs: [two]
    commands: [echo three]
`;

/** Builds as test/fixtures/local-builds.ts runs them: the real definition and handlers, no source, no image check. */
async function buildTimes(cluster: EmbeddedCluster, dir: string, label: string, image: string, count: number): Promise<number[]> {
  const kubeconfig = path.join(dir, `kubeconfig-${label}`);
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  const runtime = localTaskRuntime({ kubeconfig, namespace: NAMESPACE, logsDir: path.join(dir, `logs-${label}`), settings: { imageCheck: false } });
  const times: number[] = [];
  for (let n = 0; n < count; n++) {
    const id = `three-${label}-${n}-${Date.now().toString(36)}`;
    const started = performance.now();
    const execution = startLocalExecution(
      { build: { id, trigger: 'benchmark' }, pipeline: { file: 'three.yml', text: threeSteps(image) }, namespace: NAMESPACE, withoutSource: 'the benchmark times its steps' },
      { runtime, statuses: { report: async () => ({ posted: false, reason: 'benchmark' }) }, overrides: { waitMs: 50, retryMs: 10 } },
    );
    const timer = setTimeout(() => execution.abort(), 5 * STEP_TIMEOUT_MS);
    const summary = await execution.result.finally(() => clearTimeout(timer));
    if (summary.status !== 'SUCCEEDED') throw new Error(`${label} build ${id} ended ${summary.status}: ${summary.cause}`);
    times.push(performance.now() - started);
  }
  return times;
}

interface Counts {
  pods: number;
  pullFailures: number;
  builds: number;
}

async function measureOn(cluster: EmbeddedCluster, dir: string, label: string, images: { pod: string; build: string; missing: string }, counts: Counts): Promise<RuntimeRuns> {
  const api = cluster.kubeConfig().makeApiClient(CoreV1Api);
  const watched = await watchMoments(cluster.url);
  try {
    const pods = await podCosts(api, watched, `cost-${label}`, images.pod, counts.pods);
    const failures = await pullFailures(api, watched, `missing-${label}`, images.missing, counts.pullFailures);
    const buildsMs = await buildTimes(cluster, dir, label, images.build, counts.builds);
    return { image: images.pod, buildImage: images.build, pods, pullFailures: failures, buildsMs };
  } finally {
    watched.stop();
  }
}

/** Both runtimes, Docker first; `skipped` with the reason when no daemon answers or the test images cannot be built. */
export async function measureDockerRuntime(dir: string, counts: Counts): Promise<DockerRuntimeRuns> {
  if (!testImagesBuildable.present) return { skipped: `${testImagesBuildable.missing} (${testImagesBuildable.remedy})` };
  const images = await startTestImages();
  try {
    const docker = await startEmbeddedCluster({ timings: FAST_TIMINGS, runtime: { kind: 'docker', socketPath: dockerSocket(), sandboxImage: images.sandbox } });
    let dockerRuns: RuntimeRuns;
    let daemonVersion = '';
    try {
      dockerRuns = await measureOn(docker, dir, 'docker', { pod: images.busybox, build: images.busybox, missing: images.missingTag }, counts);
      const node = (await docker.kubeConfig().makeApiClient(CoreV1Api).listNode()).items[0];
      daemonVersion = node?.status?.nodeInfo?.containerRuntimeVersion ?? '';
    } finally {
      await docker.stop();
    }
    const processCluster = await startEmbeddedCluster({ workspace: dir, timings: FAST_TIMINGS });
    try {
      const processRuns = await measureOn(processCluster, dir, 'process', { pod: PROCESS_IMAGE, build: PROCESS_BUILD_IMAGE, missing: `${PROCESS_IMAGE.split(':')[0]}:no-such-tag` }, counts);
      return { docker: dockerRuns, process: processRuns, daemonVersion };
    } finally {
      await processCluster.stop();
    }
  } finally {
    await images.stop();
  }
}
