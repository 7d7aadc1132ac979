/**
 * The steps still running when an execution ended outside the definition (stopped, timed out,
 * failed where no Catch runs): no FinishStep recorded them, so their pods, which the ended-execution
 * cleanup is about to delete, are all that says they ran and how far they got. Read for the
 * build's trace, and only then: a list of the build's pods, and one look (the pod and its events)
 * at each unrecorded one.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { Annotations, buildSelector, Labels, podTimings } from '../kube/index.js';
import type { RunningStep } from './build-trace.js';
import type { StepRecord } from './step-log-store.js';
import type { TaskDeps } from './task-deps.js';

const SECOND = 1000;

/** A pod of the build that no record accounts for. */
export interface UnrecordedPod {
  name: string;
  step: string;
  /** Its creation (ISO 8601): the step's start. */
  created: string;
}

/**
 * The build's pods whose step has no record, or only an earlier attempt's (a record that ended
 * before the pod was made: `retry:` makes a new pod after it; the API server stamps a creation to
 * the second, so a record that ended within that second is taken for an earlier attempt's). A kept pod (a succeeded step that
 * others need, a failed combination of a matrix) has its record. As the cleanup deletes, a pod whose
 * annotation names another build is not this build's (cleanup.ts toDelete). Pure.
 */
export function unrecordedPods(pods: readonly V1Pod[], buildId: string, records: readonly StepRecord[]): UnrecordedPod[] {
  return pods.flatMap(({ metadata }) => {
    const exactBuild = metadata?.annotations?.[Annotations.build];
    const step = metadata?.annotations?.[Annotations.step] ?? metadata?.labels?.[Labels.step];
    const created = metadata?.creationTimestamp ? new Date(metadata.creationTimestamp).getTime() : NaN;
    if (!metadata?.name || !step || Number.isNaN(created) || (exactBuild !== undefined && exactBuild !== buildId)) return [];
    const record = records.find((r) => r.step === step);
    if (record && Date.parse(record.endedAt) >= created + SECOND) return [];
    return [{ name: metadata.name, step, created: new Date(created).toISOString() }];
  });
}

/**
 * The running steps of the build, with what their pods and events say (lib/kube/pod-timings.ts).
 * A cluster that cannot answer costs the trace those steps, never the cleanup: none, and a warning.
 */
export async function runningSteps(namespace: string, buildId: string, records: readonly StepRecord[], deps: Pick<TaskDeps, 'cluster' | 'log'>): Promise<RunningStep[]> {
  try {
    const unrecorded = unrecordedPods(await deps.cluster.listPods(namespace, buildSelector(buildId)), buildId, records);
    const steps: RunningStep[] = [];
    for (const pod of unrecorded) {
      const { pod: seen, events } = await deps.cluster.observePod(namespace, pod.name);
      steps.push({ step: pod.step, startedAt: pod.created, timings: podTimings(seen, events) });
    }
    return steps;
  } catch (error) {
    deps.log.warn("The build's running steps could not be read: its trace goes without them", { build: buildId, reason: (error as Error).message });
    return [];
  }
}
