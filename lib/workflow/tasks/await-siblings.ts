import type { V1Pod } from '@kubernetes/client-node';
import { Annotations, buildSelector, finishedForDependants, Labels, labelValue } from '../../kube/index.js';
import type { StepInput } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';

/**
 * Thrown while a sibling still runs: the definition's AwaitSiblings retries it (its Retry is the
 * loop, so the iteration has no third loop of states), and each attempt holds a watch again.
 */
export class SiblingsRunning extends Error {
  override readonly name = 'SiblingsRunning';
}

/** What AwaitSiblings returns once no sibling runs any more. */
export interface SiblingsEnded {
  /** The siblings whose pods were seen still running at the first look, then seen end. */
  running: [];
}

/**
 * AwaitSiblings: a combination of a `matrix:` with `fail-fast: false` has failed; before its
 * iteration fails the Map (which stops every step still running, as fail fast does), it waits
 * until none of its siblings' pods is pending or running, so that those finish and their logs and
 * results are kept. Its siblings are the pods of the build labelled with the same matrix
 * (Labels.matrix). A sibling whose iteration has not launched its pod yet (the Map's
 * `max-parallel` holds it back) is not waited for: the slot this iteration holds could be the one
 * it needs, and waiting for it could wait for ever.
 *
 * One watch on those pods answers the moment the last one ends; when the invocation's time is up
 * first, SiblingsRunning, and the definition's Retry calls again. Served by the WaitForNeeds
 * function (handlers.ts): the same reads of the same pods, with the same permissions.
 */
export async function awaitSiblings(input: StepInput, deps: TaskDeps, limits: { maxWatchMs?: number } = {}): Promise<SiblingsEnded> {
  const matrix = input.step.matrix?.of;
  if (matrix === undefined) return { running: [] };
  const selector = `${buildSelector(input.build.id)},${Labels.matrix}=${labelValue(matrix)}`;
  const own = input.step.name;
  const watchMs = limits.maxWatchMs ?? 0;
  let pods: ReadonlyMap<string, V1Pod> | undefined;
  if (deps.watchPods && watchMs >= 1000) {
    pods = (await deps.watchPods(input.namespace, selector, (seen) => runningSiblings(seen, own).length === 0, watchMs))?.pods;
  }
  pods ??= new Map((await deps.cluster.listPods(input.namespace, selector)).flatMap((pod) => (pod.metadata?.name ? [[pod.metadata.name, pod] as const] : [])));
  const running = runningSiblings(pods, own);
  if (running.length > 0) throw new SiblingsRunning(`"${own}" failed; its fail-fast: false lets ${running.map((name) => `"${name}"`).join(', ')} finish first`);
  deps.log.info(`Step "${own}" failed; no other step of its matrix "${matrix}" is running now`, { step: own });
  return { running: [] };
}

/**
 * The steps among `pods` not finished yet, but `own`: a sibling has finished once its FinishStep
 * has stored its log and result and marked its pod, the last thing it does (a combination of a
 * `fail-fast: false` matrix keeps its succeeded pod for this: Step.needed), or its
 * FinishFailedStep has deleted it. A pod pending, running, or ended but not marked yet is a
 * sibling to wait for; a deleted one, or one being deleted, is not. Pure.
 */
export function runningSiblings(pods: ReadonlyMap<string, V1Pod>, own: string): string[] {
  const running = new Set<string>();
  for (const pod of pods.values()) {
    const step = pod.metadata?.annotations?.[Annotations.step] ?? pod.metadata?.labels?.[Labels.step];
    if (step === undefined || step === own || pod.metadata?.deletionTimestamp) continue;
    if (!finishedForDependants(pod)) running.add(step);
  }
  return [...running];
}
