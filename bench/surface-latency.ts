/**
 * Surface latency: from the kubelet's first report of an image pull failure to the execution
 * ending FAILED. The real definition, the real handlers and the real poll schedule (no wait
 * override) on the embedded cluster at DEFAULT_TIMINGS.
 *
 * The start is when a watch on the namespace's events delivers the kubelet's first `Failed` event
 * about the step's pod (the kubelet records it and sets ErrImagePull in the same tick; the watch
 * adds under a millisecond on loopback, which makes the figure slightly smaller, not larger).
 * The end is the timestamp of the ExecutionFailed history event.
 */
import { Watch, type CoreV1Event, type KubeConfig } from '@kubernetes/client-node';
import { stepPodName } from '../lib/kube/index.js';
import { startLocalExecution } from '../lib/emulators/stepfunctions/executor.js';
import type { TaskRuntime } from '../lib/workflow/task-deps.js';

export interface SurfaceRun {
  latencyMs: number;
  error: string | null;
  polls: number;
}

const MISSING_IMAGE_PIPELINE = `version: 1
steps:
  - name: build
    image: alpine:3.99-does-not-exist
    # The kubelet's report is what this measures; the registry check would end the build before the pod.
    image-check: false
    commands: [make]
`;

/** Watches the namespace's events and remembers when each pod's first `Failed` arrived. */
async function watchFirstFailures(kubeConfig: KubeConfig, namespace: string) {
  const firstFailure = new Map<string, number>();
  const waiters = new Map<string, (at: number) => void>();
  const controller = await new Watch(kubeConfig).watch(
    `/api/v1/namespaces/${namespace}/events`,
    {},
    (_type, event: CoreV1Event) => {
      const arrived = Date.now();
      const pod = event.involvedObject?.name;
      if (event.reason !== 'Failed' || !pod || firstFailure.has(pod)) return;
      firstFailure.set(pod, arrived);
      waiters.get(pod)?.(arrived);
    },
    () => undefined,
  );
  return {
    firstFailureOf: (pod: string) =>
      firstFailure.has(pod)
        ? Promise.resolve(firstFailure.get(pod)!)
        : new Promise<number>((resolve) => waiters.set(pod, resolve)),
    stop: () => controller.abort(),
  };
}

export async function measureSurfaceLatency(kubeConfig: KubeConfig, runtime: TaskRuntime, runs: number): Promise<SurfaceRun[]> {
  const { namespace } = runtime.settings;
  const watch = await watchFirstFailures(kubeConfig, namespace);
  const results: SurfaceRun[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      const buildId = `surface-${run}-${Date.now().toString(36)}`;
      let endedAt: number | undefined;
      let polls = 0;
      const execution = startLocalExecution(
        { build: { id: buildId, trigger: 'benchmark' }, pipeline: { file: 'missing-image.yml', text: MISSING_IMAGE_PIPELINE }, namespace, withoutSource: 'the benchmark measures its steps' },
        {
          runtime,
          onEvent: (event) => {
            if (event.type === 'ExecutionFailed') endedAt = event.timestamp;
            if (event.type === 'StateEntered' && event.state?.name === 'PollStep') polls++;
          },
        },
      );
      const summary = await execution.result;
      const failedAt = await Promise.race([
        watch.firstFailureOf(stepPodName(buildId, 'build')),
        new Promise<number>((_, reject) => setTimeout(() => reject(new Error('no Failed event was seen')), 5000)),
      ]);
      if (summary.status !== 'FAILED' || endedAt === undefined) throw new Error(`run ${run} ended ${summary.status}, not FAILED`);
      results.push({ latencyMs: endedAt - failedAt, error: summary.error, polls });
    }
  } finally {
    watch.stop();
  }
  return results;
}
