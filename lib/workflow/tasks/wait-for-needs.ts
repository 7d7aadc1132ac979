import type { V1Pod } from '@kubernetes/client-node';
import { buildSelector, stepPodName } from '../../kube/index.js';
import type { NeedsState, StepInput } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';

/** Without a watch, how long to wait before looking again. */
export const NEEDS_POLL_SECONDS = 5;

export type NeedsVerdict = { met: true; done: string[] } | { met: false; done: string[]; waitingFor: string[] };

/**
 * Whether every step in `needs` has succeeded, by its pod: a needed step's pod is left in place
 * once it succeeded (Step.needed), so its phase says so. A step seen succeeded once stays done.
 * Pure.
 */
export function needsVerdict(buildId: string, needs: readonly string[], pods: ReadonlyMap<string, V1Pod>, done: readonly string[] = []): NeedsVerdict {
  const seen = new Set(done);
  for (const need of needs) {
    if (pods.get(stepPodName(buildId, need))?.status?.phase === 'Succeeded') seen.add(need);
  }
  const all = needs.filter((need) => seen.has(need));
  const waitingFor = needs.filter((need) => !seen.has(need));
  return waitingFor.length === 0 ? { met: true, done: all } : { met: false, done: all, waitingFor };
}

/**
 * Waits, within the invocation, until the steps this one needs have succeeded: one watch on the
 * build's pods answers the moment the last of them ends, so the step starts within about a second
 * of its needs. A need that fails fails the whole Map (fail fast), which stops this iteration.
 *
 * Unlike PollStep's, this watch has no `runningWatchUntilSeconds` limit. Looks a minute apart would
 * save little (an hour of watching at 128 MB costs about $0.006, a look a minute about $0.005) but
 * cost a minute of latency and three times the history events per hour of waiting, and many steps
 * may wait at once (a fan-out after a long build step), which is what PrepareBuild's history
 * budget refuses first.
 */
export async function waitForNeeds(input: StepInput, deps: TaskDeps, limits: { maxWatchMs?: number } = {}): Promise<NeedsState> {
  const needs = input.step.needs ?? [];
  const previous = input.needs;
  const checks = (previous?.checks ?? 0) + 1;
  const watchMs = Math.min((input.settings.runningWatchSeconds ?? 0) * 1000, limits.maxWatchMs ?? Infinity);
  const selector = buildSelector(input.build.id);
  let verdict: NeedsVerdict;
  // The next look is at once only after a watch that lasted: one that could not be opened, or
  // that the server ended early, must not make the loop spin (each pass is 9 history events).
  let watchedItsTime = false;
  if (deps.watchPods && watchMs >= 1000) {
    const started = deps.now().getTime();
    const watched = await deps.watchPods(input.namespace, selector, (pods) => needsVerdict(input.build.id, needs, pods, previous?.done).met, watchMs);
    watchedItsTime = watched !== undefined && deps.now().getTime() - started >= watchMs * 0.8;
    verdict = watched ? needsVerdict(input.build.id, needs, watched.pods, previous?.done) : await listed(input, needs, selector, deps);
  } else {
    verdict = await listed(input, needs, selector, deps);
  }
  if (verdict.met) {
    deps.log.info(`Step "${input.step.name}" may start: ${needs.map((need) => `"${need}"`).join(', ')} succeeded`, { step: input.step.name });
    return { met: true, done: verdict.done, waitingFor: [], nextPollSeconds: 0, checks };
  }
  return { met: false, done: verdict.done, waitingFor: verdict.waitingFor, nextPollSeconds: watchedItsTime ? 0 : NEEDS_POLL_SECONDS, checks };
}

async function listed(input: StepInput, needs: readonly string[], labelSelector: string, deps: TaskDeps): Promise<NeedsVerdict> {
  const api = await deps.kube();
  const list = await api.listNamespacedPod({ namespace: input.namespace, labelSelector });
  const pods = new Map(list.items.flatMap((pod) => (pod.metadata?.name ? [[pod.metadata.name, pod] as const] : [])));
  return needsVerdict(input.build.id, needs, pods, input.needs?.done);
}
