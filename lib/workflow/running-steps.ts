/**
 * The steps still running when an execution ended outside the definition (stopped, timed out,
 * failed where no Catch runs): no FinishStep recorded them, so their pods, which the ended-execution
 * cleanup is about to delete, are all that says they ran, how far they got and what they held: read
 * for the build's trace and its cost, with a list of the build's pods, and one look (the pod and its
 * events, its node's instance type) at each unrecorded one.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { Annotations, buildSelector, Labels, podTimings } from '../kube/index.js';
import type { RunningStep } from './build-trace.js';
import type { PodUsage } from './cost-model.js';
import { podPlacement, podUsage } from './pod-usage.js';
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

/** A step still running when its execution ended, and what its pod reserved until then (pod-usage.ts); no `pod`: never placed. */
export interface UnfinishedStep extends RunningStep {
  pod?: PodUsage;
}

/**
 * The running steps of the build, with what their pods and events say (lib/kube/pod-timings.ts)
 * and what they held until `endedAt` (the execution's stop), as FinishStep measures an ended step.
 * A cluster that cannot answer costs the trace and the cost those steps, never the cleanup: none,
 * and a warning.
 */
export async function runningSteps(namespace: string, buildId: string, records: readonly StepRecord[], endedAt: Date, deps: Pick<TaskDeps, 'cluster' | 'log'>): Promise<UnfinishedStep[]> {
  try {
    const unrecorded = unrecordedPods(await deps.cluster.listPods(namespace, buildSelector(buildId)), buildId, records);
    const steps: UnfinishedStep[] = [];
    for (const pod of unrecorded) {
      const { pod: seen, events } = await deps.cluster.observePod(namespace, pod.name);
      const usage = podUsage(pod.step, await podPlacement(seen, undefined, endedAt, deps), endedAt);
      steps.push({ step: pod.step, startedAt: pod.created, timings: podTimings(seen, events), ...(usage ? { pod: usage } : {}) });
    }
    return steps;
  } catch (error) {
    deps.log.warn("The build's running steps could not be read: its trace and cost go without them", { build: buildId, reason: (error as Error).message });
    return [];
  }
}
