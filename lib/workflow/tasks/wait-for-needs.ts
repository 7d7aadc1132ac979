import type { V1Pod } from '@kubernetes/client-node';
import { buildSelector } from '../../kube/index.js';
import type { NeedsState, StepInput } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';
import { needsVerdict, type NeedsSeen, type NeedsVerdict } from './needs-verdict.js';

export { needsVerdict, type NeedsVerdict, type UnmetNeeds } from './needs-verdict.js';

/** Without a watch, how long to wait before looking again. */
export const NEEDS_POLL_SECONDS = 5;

/**
 * Once the needs can never be met, how long a caller that looks again should wait first (the look
 * answers at once: `unmet` is kept). The definition does not look again: its NeedsMet ends the
 * iteration at NeedsNeverMet.
 */
export const NEEDS_UNMET_WAIT_SECONDS = 60;

/**
 * Waits, within the invocation, until the steps this one needs have succeeded: one watch on the
 * build's pods answers the moment the last of them ends, so the step starts within about a second
 * of its needs. It answers as soon, and without launching, when they never will: a step of the
 * build failed (needs-verdict.ts), and the definition ends this iteration (NeedsNeverMet) while the
 * failure fails the build: at once (fail fast), or once every step has ended (a combination of a
 * matrix with `fail-fast: false`).
 *
 * Unlike PollStep's, this watch has no `runningWatchUntilSeconds` limit. Looks a minute apart would
 * save little (an hour of watching at 128 MB costs about $0.006, a look a minute about $0.005) but
 * cost a minute of latency and three times the history events per hour of waiting, and many steps
 * may wait at once (a fan-out after a long build step), which is what PrepareBuild's history
 * budget refuses first.
 */
export async function waitForNeeds(input: StepInput, deps: TaskDeps, limits: { maxWatchMs?: number } = {}): Promise<NeedsState> {
  // The approval steps it needs have no pod: it has awaited them first, in AwaitApprovedNeeds (approval-waits.ts).
  const needs = (input.step.needs ?? []).filter((need) => !(input.step.awaits ?? []).includes(need));
  const previous = input.needs;
  const checks = (previous?.checks ?? 0) + 1;
  if (needs.length === 0) return { met: true, done: [], waitingFor: [], nextPollSeconds: 0, checks };
  // A failure does not un-happen, and its pod may be gone by now.
  if (previous?.unmet) return { ...previous, nextPollSeconds: NEEDS_UNMET_WAIT_SECONDS, checks };
  const watchMs = Math.min((input.settings.runningWatchSeconds ?? 0) * 1000, limits.maxWatchMs ?? Infinity);
  const selector = buildSelector(input.build.id);
  const before: NeedsSeen = { done: previous?.done ?? [], launched: previous?.launched ?? [], ...(previous?.retrying ? { retrying: previous.retrying } : {}) };
  // A watch delivers the pods there are, never which one has gone since the last look: when a need
  // was seen launched, one plain read first says whether its pod is still there.
  const read = before.launched!.length > 0 ? await listed(input, needs, selector, before, deps) : undefined;
  let verdict: NeedsVerdict;
  // The next look is at once only after a watch that lasted: one that could not be opened, or
  // that the server ended early, must not make the loop spin (each pass is 9 history events).
  let watchedItsTime = false;
  if (read && (read.met || read.unmet)) {
    verdict = read;
  } else if (deps.watchPods && watchMs >= 1000) {
    const started = deps.now().getTime();
    // Each event's verdict carries what it saw to the next, so a pod seen and then deleted within
    // the watch counts as gone; what was launched before is not carried in, since the watch delivers
    // the pods there are one event at a time (the read above has answered for those).
    let seen: NeedsSeen = { done: read?.done ?? before.done, launched: [], ...(before.retrying ? { retrying: before.retrying } : {}) };
    const until = (pods: ReadonlyMap<string, V1Pod>) => {
      const now = needsVerdict(input.build.id, needs, pods, seen);
      seen = { done: now.done, launched: now.launched, ...(now.retrying ? { retrying: now.retrying } : {}) };
      return now.met || now.unmet !== undefined;
    };
    const watched = await deps.watchPods(input.namespace, selector, until, watchMs);
    watchedItsTime = watched !== undefined && deps.now().getTime() - started >= watchMs * 0.8;
    verdict = watched ? needsVerdict(input.build.id, needs, watched.pods, seen) : await listed(input, needs, selector, before, deps);
  } else {
    verdict = read ?? (await listed(input, needs, selector, before, deps));
  }
  const launched = verdict.launched.filter((step) => needs.includes(step));
  // A need whose pod may be followed by a retry's: its going is no loss at the next look either.
  const retrying = (verdict.retrying ?? []).filter((step) => launched.includes(step));
  if (verdict.met) {
    deps.log.info(`Step "${input.step.name}" may start: ${needs.map((need) => `"${need}"`).join(', ')} succeeded`, { step: input.step.name });
    return { met: true, done: verdict.done, waitingFor: [], nextPollSeconds: 0, checks };
  }
  if (verdict.unmet) {
    deps.log.info(`Step "${input.step.name}" will not start: ${verdict.unmet.reason}`, { step: input.step.name });
    return { met: false, done: verdict.done, waitingFor: verdict.waitingFor, launched, unmet: verdict.unmet, nextPollSeconds: NEEDS_UNMET_WAIT_SECONDS, checks };
  }
  return {
    met: false,
    done: verdict.done,
    waitingFor: verdict.waitingFor,
    ...(launched.length > 0 ? { launched } : {}),
    ...(retrying.length > 0 ? { retrying } : {}),
    nextPollSeconds: watchedItsTime ? 0 : NEEDS_POLL_SECONDS,
    checks,
  };
}

async function listed(input: StepInput, needs: readonly string[], labelSelector: string, seen: NeedsSeen, deps: TaskDeps): Promise<NeedsVerdict> {
  const list = await deps.cluster.listPods(input.namespace, labelSelector);
  const pods = new Map(list.flatMap((pod) => (pod.metadata?.name ? [[pod.metadata.name, pod] as const] : [])));
  return needsVerdict(input.build.id, needs, pods, seen);
}
