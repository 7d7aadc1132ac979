import type { V1Pod } from '@kubernetes/client-node';
import { ErrorNames } from '../../contract/index.js';
import { Annotations, disruptionCondition, finishedForDependants, isEvictedStatus, Labels, ownLimitEviction, stepPodName } from '../../kube/index.js';

/** Why a step's needs can never be met: which step of the build failed, in words naming the need. */
export interface UnmetNeeds {
  /** The step whose pod failed or went before it succeeded: a need, or any step of the build. */
  step: string;
  /** E.g. `it needs "a", which failed`; `it needs "b", which will not succeed: "a" failed`. */
  reason: string;
}

/** What earlier looks saw, kept across them (NeedsState): pods may go between two looks. */
export interface NeedsSeen {
  /** The needs seen succeeded. */
  done?: readonly string[];
  /** The steps seen with a pod that had not succeeded yet. */
  launched?: readonly string[];
  /** Of those, the ones whose pod had attempts left (a retry may follow it). */
  retrying?: readonly string[];
}

export type NeedsVerdict =
  | { met: true; done: string[]; launched: string[]; retrying?: string[] }
  | { met: false; done: string[]; waitingFor: string[]; launched: string[]; retrying?: string[]; unmet?: UnmetNeeds };

type Loss = { step: string; how: 'failed' | 'deleted' };

/**
 * Whether every step in `needs` has succeeded, by the build's pods: a needed step's pod is left in
 * place once it succeeded (Step.needed), and its FinishStep marks it once the step's results are
 * stored (step-finished.ts): a succeeded pod without the mark is not done yet. A step seen done once
 * stays done.
 *
 * And whether they never will: a step's pod that failed, is being deleted, or has gone since it was
 * seen (`launched`) without having succeeded. Only two things delete a step's pod before it has
 * succeeded, FinishFailedStep and the build's cleanup, so either way a step of the build failed and
 * fail fast stops every step that has not started: a need's loss is named first, else any step's.
 * Met wins over unmet: a step whose needs all succeeded starts as before, and the failing Map stops it.
 * Pure.
 */
export function needsVerdict(buildId: string, needs: readonly string[], pods: ReadonlyMap<string, V1Pod>, seen: NeedsSeen = {}): NeedsVerdict {
  const done = new Set(seen.done);
  const launched = new Set(seen.launched);
  const retrying = new Set(seen.retrying);
  const present = new Set<string>();
  const losses: Loss[] = [];
  const needOfPod = new Map(needs.map((need) => [stepPodName(buildId, need), need]));
  for (const [name, pod] of pods) {
    const step = needOfPod.get(name) ?? stepOf(pod) ?? name;
    present.add(step);
    if (pod.status?.phase === 'Succeeded') {
      // Done for the steps that need it once its FinishStep has stored its results: until then a
      // step after the clone would find no cache key hashes.
      if (needs.includes(step) && finishedForDependants(pod)) done.add(step);
      launched.delete(step);
      continue;
    }
    launched.add(step);
    // A failure its step's retry covers is followed by a retry's pod: not a loss. Should the step
    // fail for good after all, its iteration fails the Map, which stops this one too.
    if (retriedIfGone(pod)) retrying.add(step);
    else retrying.delete(step);
    if (pod.status?.phase === 'Failed') {
      if (!retriedIfFailed(pod)) losses.push({ step, how: 'failed' });
    } else if (pod.metadata?.deletionTimestamp && !retriedIfGone(pod)) {
      losses.push({ step, how: 'deleted' });
    }
  }
  for (const step of launched) if (!present.has(step) && !retrying.has(step)) losses.push({ step, how: 'deleted' });
  const all = needs.filter((need) => done.has(need));
  const waitingFor = needs.filter((need) => !done.has(need));
  const retried = retrying.size > 0 ? { retrying: [...retrying] } : {};
  if (waitingFor.length === 0) return { met: true, done: all, launched: [...launched], ...retried };
  const loss = losses.find((l) => waitingFor.includes(l.step)) ?? losses[0];
  const verdict = { met: false as const, done: all, waitingFor, launched: [...launched], ...retried };
  return loss ? { ...verdict, unmet: { step: loss.step, reason: unmetReason(loss, waitingFor) } } : verdict;
}

function unmetReason(loss: Loss, waitingFor: readonly string[]): string {
  const what = loss.how === 'failed' ? 'failed' : 'had its pod deleted before it succeeded';
  if (waitingFor.includes(loss.step)) return `it needs "${loss.step}", which ${what}`;
  return `it needs "${waitingFor[0]}", which will not succeed: "${loss.step}" ${what}`;
}

/** What the pod says of its step's retry (pod-manifest.ts): attempts left, and the Errors retried. */
function retryOf(pod: V1Pod): { left: number; on: string[] } {
  const annotations = pod.metadata?.annotations ?? {};
  const left = Number(annotations[Annotations.attemptsLeft] ?? 0);
  return { left: Number.isFinite(left) ? left : 0, on: (annotations[Annotations.retryOn] ?? '').split(',').filter(Boolean) };
}

/**
 * Evicted, preempted or its node gone: what the classifier calls StepInterrupted. Not an eviction
 * for the pod's own limits, which it calls StepFailed (classify.ts rule 3a).
 */
function disrupted(pod: V1Pod): boolean {
  return (isEvictedStatus(pod) && !ownLimitEviction(pod.status?.message)) || disruptionCondition(pod) !== undefined;
}

/**
 * A pod that went (deleted, evicted, its node gone): retried when its step retries StepInterrupted
 * or PodLost, or ContainerRuntimeTimeout, whose pod never fails but is deleted while still pending.
 */
function retriedIfGone(pod: V1Pod): boolean {
  const { left, on } = retryOf(pod);
  return left > 0 && [ErrorNames.StepInterrupted, ErrorNames.PodLost, ErrorNames.ContainerRuntimeTimeout].some((error) => on.includes(error));
}

/** A pod that failed: retried when its step retries what failed it, as far as the pod tells. */
function retriedIfFailed(pod: V1Pod): boolean {
  const { left, on } = retryOf(pod);
  if (left === 0) return false;
  if (disrupted(pod)) return on.includes(ErrorNames.StepInterrupted);
  return [ErrorNames.StepFailed, ErrorNames.StepTimedOut, ErrorNames.ServiceFailed, ErrorNames.PodLost].some((error) => on.includes(error));
}

/** The step a pod runs, as launch-step named it (the annotation keeps the exact name). */
function stepOf(pod: V1Pod): string | undefined {
  return pod.metadata?.annotations?.[Annotations.step] ?? pod.metadata?.labels?.[Labels.step];
}
