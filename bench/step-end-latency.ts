/**
 * Completion latency: from a step's container exit to the next step's pod being created.
 *
 * Real time (steps of seconds): a two-step build (`sleep L`, then `true`) through
 * startLocalExecution, i.e. the real definition, the real handlers and the real schedule, on the
 * bench's embedded cluster at DEFAULT_TIMINGS. The bench's own watch on the namespace's pods (not
 * the code under test) gives both ends: the first event showing the first pod's container
 * terminated, and the second pod's ADDED event.
 *
 * Simulated time (minutes): orchestration-cost.ts's simulated build with two steps
 * (simulatedCompletionLatencyMs).
 */
import type { IncomingMessage } from 'node:http';
import type { V1Pod } from '@kubernetes/client-node';
import { stepPodName } from '../lib/kube/index.js';
import { startLocalExecution } from '../lib/emulators/stepfunctions/executor.js';
import type { TaskRuntime } from '../lib/workflow/task-deps.js';
import type { Design } from './orchestration-cost.js';
import { openWatch } from '../test/fixtures/watch-events.js';

/** The runtime each design runs with (localTaskRuntime with its settings), and a fixed wait if any. */
export type DesignRuntimes = Record<Design, { runtime: TaskRuntime; waitMs?: number }>;

export interface RealLatency {
  design: Design;
  sleepSeconds: number;
  latencyMs: number;
  runningPolls: number;
}

const BUILD_TIMEOUT_MS = 120_000;

const pipeline = (sleepSeconds: number) => `version: 1
checkout: false
steps:
  - name: first
    image: alpine:3.20
    commands: ["sleep ${sleepSeconds}"]
  - name: next
    image: alpine:3.20
    commands: ["true"]
`;

/** Watches the namespace's pods: when each was first seen ADDED, and first seen with a terminated container. */
async function watchPods(clusterUrl: string, namespace: string) {
  const addedAt = new Map<string, number>();
  const terminatedAt = new Map<string, number>();
  const stream: IncomingMessage = await openWatch<V1Pod>(`${clusterUrl}/api/v1/namespaces/${namespace}/pods?watch=true`, ({ type, object: pod }) => {
    const at = Date.now();
    const name = pod.metadata?.name;
    if (!name) return;
    if (type === 'ADDED' && !addedAt.has(name)) addedAt.set(name, at);
    if (pod.status?.containerStatuses?.some((c) => c.state?.terminated) && !terminatedAt.has(name)) terminatedAt.set(name, at);
  });
  return { addedAt, terminatedAt, stop: () => stream.destroy() };
}

/**
 * For each length, the three designs' builds run side by side (each its own build and pods), so a
 * design's samples see the same load as the others'.
 */
export async function measureRealCompletionLatency(clusterUrl: string, designs: DesignRuntimes, sleeps: readonly number[]): Promise<RealLatency[]> {
  const namespace = designs.watch.runtime.settings.namespace;
  const pods = await watchPods(clusterUrl, namespace);
  const results: RealLatency[] = [];
  try {
    for (const [run, sleepSeconds] of sleeps.entries()) {
      const measured = await Promise.all(
        (Object.keys(designs) as Design[]).map(async (design): Promise<RealLatency> => {
          const { runtime, waitMs } = designs[design];
          const buildId = `latency-${design}-${run}-${Date.now().toString(36)}`;
          let runningPolls = 0;
          const execution = startLocalExecution(
            { build: { id: buildId, trigger: 'benchmark' }, pipeline: { file: 'latency.yml', text: pipeline(sleepSeconds) }, namespace, withoutSource: 'the benchmark measures its steps' },
            {
              runtime,
              statuses: { report: async () => ({ posted: false, reason: 'benchmark' }) },
              ...(waitMs !== undefined ? { overrides: { waitMs } } : {}),
              onEvent: (event) => {
                const output = event.state?.output as { poll?: { phase?: string } } | undefined;
                if (event.type === 'StateExited' && event.state?.name === 'PollStep' && event.index === 0 && output?.poll?.phase === 'running') runningPolls++;
              },
            },
          );
          // A build that hangs must not hang the bench: it is stopped and reported.
          const timer = setTimeout(() => execution.abort(), BUILD_TIMEOUT_MS);
          const summary = await execution.result.finally(() => clearTimeout(timer));
          if (summary.status !== 'SUCCEEDED') throw new Error(`${design} build ${buildId} ended ${summary.status}: ${summary.cause}`);
          const exited = pods.terminatedAt.get(stepPodName(buildId, 'first'));
          const next = pods.addedAt.get(stepPodName(buildId, 'next'));
          if (exited === undefined || next === undefined) throw new Error(`${design} build ${buildId}: the bench's watch missed ${exited === undefined ? 'the first pod\'s exit' : 'the second pod'}`);
          return { design, sleepSeconds, latencyMs: next - exited, runningPolls };
        }),
      );
      results.push(...measured);
    }
  } finally {
    pods.stop();
  }
  return results;
}
