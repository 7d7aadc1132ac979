/**
 * Superseded builds (issue 27): a build claims its concurrency group before anything of it is
 * made. The newer of two builds of a group wins, decided by the order the forge took their pushes
 * (BuildRef.pushedAt), never by which delivery came first: GitHub does not promise to deliver in
 * order. The winner is recorded with a conditional write (concurrency-store.ts), so of two claims
 * at once one write lands and the other claim reads it and decides again: exactly one of two
 * racing builds keeps running, never both, never neither.
 *
 * The loser is stopped with StopExecution, `error` Superseded and a `cause` naming the winner's
 * commit and execution: the older running build by the newer one, or the newer-arrived but older
 * build by itself (then no step of it runs). Its pods go as on any abort (the ended-execution
 * rule), which also reports it: a check run `neutral`, a commit status that is no failure.
 */
import { ErrorNames, type BuildRef } from '../contract/index.js';
import { concurrencyGroupOf, type ConcurrencySetting } from '../pipeline/index.js';
import type { ConcurrencyStore, GroupRecord } from './concurrency-store.js';
import type { TaskLog } from './task-log.js';

/** StopExecution: on AWS Step Functions' own, locally the executions registry's. */
export interface ExecutionStopper {
  /** Stops a running execution; one that has already ended is left as it is (no error). */
  stop(executionArn: string, error: string, cause: string): Promise<void>;
}

/** What superseding needs: the record's store and StopExecution. Absent: no build is superseded. */
export interface SupersedingDeps {
  store: ConcurrencyStore;
  executions: ExecutionStopper;
}

/** A claim contended this often means something keeps writing the record: the build fails rather than loop. */
const MAX_CLAIM_ATTEMPTS = 10;

export type ClaimOutcome =
  | { kind: 'won'; previous?: GroupRecord }
  | { kind: 'lost'; winner: GroupRecord };

/**
 * Whether `a` is newer than `b`: the later push; for one second (GitHub's timestamps have no
 * finer grain) with two commits, the greater sha, which is arbitrary but the same answer for every
 * claimant; for one commit (a re-run, a redelivery that started a build), the later claim.
 */
export function isNewer(a: GroupRecord, b: GroupRecord): boolean {
  const order = Date.parse(a.pushedAt) - Date.parse(b.pushedAt);
  if (order !== 0 && !Number.isNaN(order)) return order > 0;
  if ((a.commit ?? '') !== (b.commit ?? '')) return (a.commit ?? '') > (b.commit ?? '');
  return a.claimedAt > b.claimedAt || (a.claimedAt === b.claimedAt && a.executionArn > b.executionArn);
}

/** Claims the group for `me`, or finds the newer build that has it. */
export async function claimGroup(me: GroupRecord, store: ConcurrencyStore): Promise<ClaimOutcome> {
  for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
    const current = await store.read(me.group);
    if (!current) {
      if (await store.create(me)) return { kind: 'won' };
      continue;
    }
    // PrepareBuild retried after its claim landed: the group is still this build's.
    if (current.record.executionArn === me.executionArn) return { kind: 'won' };
    if (current.record.executionArn !== '' && !isNewer(me, current.record)) return { kind: 'lost', winner: current.record };
    if (await store.replace(me, current.version)) return { kind: 'won', ...(current.record.executionArn !== '' ? { previous: current.record } : {}) };
  }
  throw new Error(`The concurrency group "${me.group}" changed hands ${MAX_CLAIM_ATTEMPTS} times while this build claimed it`);
}

/** The last part of an execution ARN: its name. */
export function executionNameOf(executionArn: string): string {
  return executionArn.split(':').at(-1) ?? executionArn;
}

/** StopExecution's `cause` for the build `winner` superseded. */
export function supersededCause(winner: Pick<GroupRecord, 'commit' | 'executionArn' | 'group'>): string {
  const commit = winner.commit ? winner.commit.slice(0, 7) : 'a newer build';
  return `Superseded by ${commit} (execution ${executionNameOf(winner.executionArn)}), a newer build of the concurrency group "${winner.group}"`;
}

/** The newer commit's short sha, back from a Superseded cause (for the commit status). */
export function supersedingCommit(cause: string | undefined): string | undefined {
  return /^Superseded by ([0-9a-f]{7,40})\b/.exec(cause ?? '')?.[1];
}

/**
 * Claims the build's group, if it has one, and stops the loser. Returns why this build ends here
 * (it was the older one and has stopped itself), or undefined when it goes on.
 */
export async function supersede(
  build: BuildRef,
  setting: ConcurrencySetting | false | undefined,
  executionArn: string | undefined,
  deps: { superseding?: SupersedingDeps; log: TaskLog; now(): Date },
): Promise<string | undefined> {
  const group = concurrencyGroupOf(setting, build);
  if (!group) return undefined;
  if (!deps.superseding || !executionArn) {
    deps.log.info(`Concurrency group "${group.group}": this runtime records no groups, so no build of it is superseded`);
    return undefined;
  }
  const claimedAt = deps.now().toISOString();
  const me: GroupRecord = {
    group: group.group,
    executionArn,
    buildId: build.id,
    ...(build.commit ? { commit: build.commit } : {}),
    pushedAt: build.pushedAt ?? claimedAt,
    claimedAt,
  };
  const outcome = await claimGroup(me, deps.superseding.store);
  if (outcome.kind === 'lost') {
    const cause = supersededCause(outcome.winner);
    deps.log.info(`Concurrency group "${group.group}": ${cause}; this build stops before any step runs`);
    try {
      await deps.superseding.executions.stop(executionArn, ErrorNames.Superseded, cause);
    } catch (error) {
      // Not stopped: it still ends here, through NotBuilt, having run nothing.
      deps.log.warn(`Could not stop this build as Superseded (${(error as Error).message}); it ends without running a step`);
    }
    return cause;
  }
  deps.log.info(`Concurrency group "${group.group}" (${group.from === 'default' ? 'the pull request default' : 'the pipeline\'s concurrency'}): this build is its newest`);
  if (outcome.previous) {
    const cause = supersededCause(me);
    deps.log.info(`Stopping the older build of the group, execution ${executionNameOf(outcome.previous.executionArn)}${outcome.previous.commit ? ` (${outcome.previous.commit.slice(0, 7)})` : ''}`);
    try {
      await deps.superseding.executions.stop(outcome.previous.executionArn, ErrorNames.Superseded, cause);
    } catch (error) {
      // This build is the group's now whatever became of the older one; it must not fail for it.
      deps.log.warn(`Could not stop the older build ${executionNameOf(outcome.previous.executionArn)}: ${(error as Error).message}`);
    }
  }
  return undefined;
}
