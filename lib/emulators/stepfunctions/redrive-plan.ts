/**
 * Where a redrive of an ended execution goes on, read off its history as Step Functions does
 * (RedriveExecution): "it continues the failed execution from the unsuccessful step and uses the
 * same input", and the steps that succeeded are not run again. A state is unsuccessful when the
 * history holds its StateEntered and no StateExited after it ("A parent workflow redrives
 * unsuccessful states if there's no <stateType>Exited event corresponding to the
 * <stateType>Entered event": https://docs.aws.amazon.com/step-functions/latest/dg/redrive-map-run.html).
 * What each kind of state then does is the table "Redrive behavior of individual states"
 * (https://docs.aws.amazon.com/step-functions/latest/dg/redrive-executions.html#redrive-behavior-states);
 * this module only says where and with what, redrive-definition.ts makes the engine do it.
 */
import type { AslDefinition, AslState } from '../../workflow/definition.js';
import { ExecutionControlError } from './execution-errors.js';
import type { ExecutionEvent } from './execution-history.js';

/** As Step Functions names the refusal of RedriveExecution. */
export class ExecutionNotRedrivable extends ExecutionControlError {
  override readonly name = 'ExecutionNotRedrivable';
  readonly statusCode = 409;
}

/** A redrive Step Functions would run but this emulator does not (said, never done wrong). */
export class RedriveNotEmulated extends ExecutionControlError {
  override readonly name = 'RedriveNotEmulated';
  readonly statusCode = 501;
}

/** One iteration of the Map a redrive goes on in. */
export type IterationPlan =
  /** It succeeded: its output is kept and it is not run again. */
  | { kind: 'kept'; output: unknown }
  /** It failed or was aborted: it goes on at the state it had entered and not exited, with that state's input. */
  | { kind: 'resume'; state: string; input: unknown };

/** One branch of the Parallel a redrive goes on in: as an iteration, or run from its StartAt if it never started. */
export type BranchPlan = IterationPlan | { kind: 'start' };

export interface RedrivePlan {
  /** The top-level state the execution goes on at, entered again... */
  state: string;
  /** ...with the input it was entered with. */
  input: unknown;
  /**
   * When `state` is an inline Map whose iterations are redriven one by one: by iteration index,
   * those that started. An iteration that never started runs from its ItemProcessor's StartAt.
   */
  iterations?: ReadonlyMap<number, IterationPlan>;
  /** When `state` is a Parallel whose branches are redriven one by one: by branch, in order. */
  branches?: readonly BranchPlan[];
}

export interface RedrivePlanOptions {
  /** Default: now. */
  now?: number;
  /**
   * The Map's own iteration index of an event the history shows with `shown` (the local history
   * numbers some Maps' iterations its own way: execution-history.ts). Default: `shown`.
   */
  iterationIndex?: (map: string, shown: number | undefined) => number | undefined;
}

/**
 * RedriveExecution's eligibility (https://docs.aws.amazon.com/step-functions/latest/apireference/API_RedriveExecution.html),
 * with DescribeExecution's redriveStatusReason wording for each refusal.
 */
export const RedriveLimits = {
  /**
   * "The execution event history count is less than 24,999." Counted on the local history, which
   * holds fewer events than Step Functions records for the same run (history-budget.ts).
   */
  MAX_EVENTS: 24_999,
  /** "hasn't exceeded the redrivable period of 14 days ... from the day a state machine completes its execution." */
  REDRIVABLE_MS: 14 * 24 * 3600 * 1000,
  /** "hasn't exceeded the maximum open time of one year." */
  MAX_OPEN_MS: 365 * 24 * 3600 * 1000,
} as const;

const EXECUTION_ENDS: Record<string, string> = { ExecutionFailed: 'FAILED', ExecutionAborted: 'ABORTED', ExecutionTimeout: 'TIMED_OUT' };

/** The ended execution's status, as DescribeExecution would give it. */
export function endedStatus(events: readonly ExecutionEvent[]): 'FAILED' | 'ABORTED' | 'TIMED_OUT' | 'SUCCEEDED' | 'RUNNING' {
  const last = events.at(-1)?.type ?? '';
  if (last === 'ExecutionSucceeded') return 'SUCCEEDED';
  return (EXECUTION_ENDS[last] as 'FAILED' | 'ABORTED' | 'TIMED_OUT' | undefined) ?? 'RUNNING';
}

interface Entered {
  name: string;
  input: unknown;
}

interface IterationRecord {
  succeeded?: { output: unknown };
  /** The state it has entered and not exited. */
  open?: Entered;
}

/** Where a redrive of this ended execution goes on; throws ExecutionNotRedrivable as RedriveExecution refuses. */
export function planRedrive(definition: AslDefinition, events: readonly ExecutionEvent[], options: RedrivePlanOptions = {}): RedrivePlan {
  refuseIneligible(events, options.now ?? Date.now());
  const parents = parentMaps(definition);
  const branches = new Map<string, ReadonlyMap<string, number>>();
  const branchesIn = (parallel: string) => branches.get(parallel) ?? branches.set(parallel, branchesOf(definition.States[parallel]!)).get(parallel)!;
  const iterationIndex = options.iterationIndex ?? ((_map: string, shown: number | undefined) => shown);

  let open: Entered | undefined;
  let failure: string | undefined;
  let redriving = false;
  // By Map: its iterations since it was last entered (a redrive's entry goes on with the same ones).
  const ledgers = new Map<string, Map<number, IterationRecord>>();
  const ledger = (map: string) => ledgers.get(map) ?? ledgers.set(map, new Map()).get(map)!;
  // Maps some of whose iteration events came without an index: refused only if the redrive needs them.
  const unindexed = new Set<string>();

  for (const event of events) {
    if (event.type === 'ExecutionRedriven') redriving = true;
    const map = event.parentState?.name ?? parents.get(event.state?.name ?? '');
    if (map === undefined) {
      if (!event.state || !(event.state.name in definition.States)) continue;
      if (event.type === 'StateEntered') {
        if (!redriving) ledgers.delete(event.state.name);
        redriving = false;
        open = { name: event.state.name, input: event.state.input };
        failure = undefined;
      } else if (event.type === 'StateExited' && open?.name === event.state.name) {
        open = undefined;
      } else if (event.type === 'StateFailed') {
        failure = event.Error;
      }
      continue;
    }
    // A Parallel's events carry no branch: the branch is the one whose state it is (names are unique).
    const parallel = definition.States[map]?.Type === 'Parallel' ? branchesIn(map) : undefined;
    const index = parallel ? parallel.get(event.state?.name ?? '') : iterationIndex(map, event.index);
    if (parallel && index === undefined) continue;
    if (index === undefined) {
      unindexed.add(map);
      continue;
    }
    const iterations = ledger(map);
    const record = iterations.get(index) ?? {};
    iterations.set(index, record);
    if (event.type === 'MapIterationStarted') delete record.succeeded;
    else if (event.type === 'MapIterationSucceeded') record.succeeded = { output: event.output };
    else if (event.type === 'StateEntered' && event.state) record.open = { name: event.state.name, input: event.state.input };
    else if (event.type === 'StateExited' && record.open?.name === event.state?.name) {
      delete record.open;
      // A branch has ended once its last state has (a Parallel has no event of its own for it).
      const ended = parallel && processorsOf(definition.States[map]!)[index]?.States[event.state!.name];
      if (ended && (ended.End === true || ended.Type === 'Succeed')) record.succeeded = { output: event.state!.output };
    }
  }

  if (!open) {
    throw new RedriveNotEmulated('The execution ended between two states (no state entered and not exited): the state a redrive would enter is not in its history.');
  }
  const state = definition.States[open.name]!;
  if (state.Type !== 'Map' && state.Type !== 'Parallel') return { state: open.name, input: open.input };
  // "If the state failed because of a States.DataLimitExceeded error, the Inline Map state is
  // rerun, including the iterations that were successful" (the Parallel state likewise, "including
  // the branches that were successful").
  if (failure === 'States.DataLimitExceeded') return { state: open.name, input: open.input };
  const ledgerOf = ledgers.get(open.name) ?? new Map<number, IterationRecord>();
  if (state.Type === 'Parallel') return { state: open.name, input: open.input, branches: branchPlans(open.name, state, ledgerOf) };
  if (unindexed.has(open.name)) throw new RedriveNotEmulated(`The history shows iterations of ${open.name} without their index: which ones to redrive cannot be told.`);
  return { state: open.name, input: open.input, iterations: iterationPlans(open.name, state, ledgerOf) };
}

/** Parallel: "Reschedules and redrives only those branches that failed or aborted." */
function branchPlans(name: string, parallel: AslState, ledger: ReadonlyMap<number, IterationRecord>): BranchPlan[] {
  return processorsOf(parallel).map((branch, index) => {
    const record = ledger.get(index);
    const plan = record && planOf(branch, record);
    if (record && !plan) throw new RedriveNotEmulated(`Branch ${index} of ${name} holds a nested Map or Parallel: this emulator does not redrive a branch that holds one.`);
    return plan ?? { kind: 'start' };
  });
}

/** Inline Map: "Reschedules and redrives only those iterations that failed or aborted." */
function iterationPlans(name: string, map: AslState, ledger: ReadonlyMap<number, IterationRecord>): Map<number, IterationPlan> {
  const processor = processorOf(map)!;
  if ((processor.ProcessorConfig as { Mode?: string } | undefined)?.Mode === 'DISTRIBUTED') {
    throw new RedriveNotEmulated(`${name} is a Distributed Map: Step Functions would redrive its Map Run's unsuccessful child workflows, which this emulator does not do.`);
  }
  const plans = new Map<number, IterationPlan>();
  for (const [index, record] of ledger) {
    const plan = planOf(processor, record);
    if (plan === undefined) throw new RedriveNotEmulated(`${name}'s iterations hold a nested Map or Parallel: this emulator does not redrive an iteration that holds one.`);
    // Started and ended before entering any state: it runs from the start, as one never started.
    if (plan.kind !== 'start') plans.set(index, plan);
  }
  return plans;
}

/**
 * One iteration's or branch's plan; undefined when it holds a nested Map or Parallel that did not
 * succeed, whose events carry the outer iteration's index only (aws-local-stepfunctions) and
 * which Step Functions would redrive in turn: not emulated.
 */
function planOf(machine: AslDefinition, record: IterationRecord): BranchPlan | undefined {
  if (record.succeeded) return { kind: 'kept', output: record.succeeded.output };
  if (Object.values(machine.States).some((state) => state.Type === 'Map' || state.Type === 'Parallel')) return undefined;
  if (record.open && machine.States[record.open.name]) return { kind: 'resume', state: record.open.name, input: record.open.input };
  return { kind: 'start' };
}

function refuseIneligible(events: readonly ExecutionEvent[], now: number): void {
  const status = endedStatus(events);
  if (status === 'RUNNING' || status === 'SUCCEEDED') throw new ExecutionNotRedrivable(`Execution is ${status} and cannot be redriven.`);
  if (events.length >= RedriveLimits.MAX_EVENTS) throw new ExecutionNotRedrivable('Execution history event limit exceeded.');
  const started = events.find((e) => e.type === 'ExecutionStarted')?.timestamp ?? now;
  const ended = events.at(-1)!.timestamp;
  if (ended - started > RedriveLimits.MAX_OPEN_MS) throw new ExecutionNotRedrivable('Execution has exceeded the max execution time.');
  if (now - ended > RedriveLimits.REDRIVABLE_MS) throw new ExecutionNotRedrivable('Execution redrivable period exceeded.');
}

export function processorOf(state: AslState): AslDefinition | undefined {
  return state.ItemProcessor ?? (state.Iterator as AslDefinition | undefined);
}

/** A Map's ItemProcessor, or a Parallel's Branches. */
function processorsOf(state: AslState): AslDefinition[] {
  const processor = processorOf(state);
  return processor ? [processor] : ((state.Branches as AslDefinition[] | undefined) ?? []);
}

/** The branch each state of a Parallel belongs to, at any depth (state names are unique in a definition). */
function branchesOf(parallel: AslState): ReadonlyMap<string, number> {
  const found = new Map<string, number>();
  const visit = (machine: AslDefinition, branch: number) => {
    for (const [name, state] of Object.entries(machine.States)) {
      found.set(name, branch);
      for (const inner of processorsOf(state)) visit(inner, branch);
    }
  };
  processorsOf(parallel).forEach((branch, index) => visit(branch, index));
  return found;
}

/** The Map (or Parallel) each nested state belongs to, at any depth: the outermost one (state names are unique in a definition). */
function parentMaps(definition: AslDefinition): ReadonlyMap<string, string> {
  const found = new Map<string, string>();
  const visit = (machine: AslDefinition, owner: string | undefined) => {
    for (const [name, state] of Object.entries(machine.States)) {
      if (owner !== undefined) found.set(name, owner);
      for (const inner of processorsOf(state)) visit(inner, owner ?? name);
    }
  };
  visit(definition, undefined);
  return found;
}
