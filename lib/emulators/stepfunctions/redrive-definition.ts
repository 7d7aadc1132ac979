/**
 * A redrive plan (redrive-plan.ts) as a definition aws-local-stepfunctions runs, since it has no
 * redrive of its own: the same states, entered at the one the execution failed in. For an inline
 * Map whose iterations are redriven one by one, its ItemProcessor starts with a dispatch of our
 * own that sends each iteration where its plan says: a succeeded one ends at once with its recorded
 * output (nothing of it runs again), a failed or aborted one enters the state it had not exited
 * with that state's recorded input, and one that never started goes to the ItemProcessor's StartAt
 * with the input the Map's ItemSelector gives it. A Parallel's branches are known before it runs:
 * each starts with a Pass of ours doing the same. The dispatch's states (isRedriveState) and the
 * kept iterations' and branches' events are no part of the history (redrivenEvents).
 */
import type { AslDefinition, AslState } from '../../workflow/definition.js';
import type { ExecutionEvent } from './execution-history.js';
import { processorOf, type RedrivePlan } from './redrive-plan.js';

/** Names no definition of ours uses (a state name may be up to 80 characters of any kind). */
const PREFIX = '⟲redrive:';
const DISPATCH = `${PREFIX}dispatch`;
const NOT_STARTED = `${PREFIX}not-started`;
const iterationState = (index: number) => `${PREFIX}${index}`;

export const isRedriveState = (name: string | undefined): boolean => name?.startsWith(PREFIX) ?? false;

/**
 * A Pass that outputs `value` as it is: a Pass's Result is not a payload template (keys ending
 * in `.$` stay as they are), and the wrapper keeps a falsy value from reading as "no Result".
 */
const passing = (value: unknown, next: { Next: string } | { End: true }): AslState => ({ Type: 'Pass', Result: { value }, OutputPath: '$.value', ...next });

/** The definition a redrive runs (with the plan's `input`). */
export function redriveDefinition(definition: AslDefinition, plan: RedrivePlan): AslDefinition {
  const state = definition.States[plan.state]!;
  const redriven = plan.iterations?.size ? dispatchedMap(state, plan.iterations) : plan.branches ? dispatchedParallel(state, plan.branches) : state;
  return { ...definition, StartAt: plan.state, States: { ...definition.States, [plan.state]: redriven } };
}

/** Each branch as its plan says: the same whole, started with a Pass of ours unless it never started. */
function dispatchedParallel(parallel: AslState, branches: NonNullable<RedrivePlan['branches']>): AslState {
  const Branches = (parallel.Branches as AslDefinition[]).map((branch, index) => {
    const plan = branches[index];
    if (!plan || plan.kind === 'start') return branch;
    const first = plan.kind === 'kept' ? passing(plan.output, { End: true }) : passing(plan.input, { Next: plan.state });
    return { ...branch, StartAt: DISPATCH, States: { ...branch.States, [DISPATCH]: first } };
  });
  return { ...parallel, Branches };
}

function dispatchedMap(map: AslState, iterations: NonNullable<RedrivePlan['iterations']>): AslState {
  const processor = processorOf(map)!;
  const selector = (map.ItemSelector ?? map.Parameters) as Record<string, unknown> | undefined;
  const own: Record<string, AslState> = {
    [DISPATCH]: {
      Type: 'Choice',
      Choices: [...iterations.keys()].map((index) => ({ Variable: '$.index', NumericEquals: index, Next: iterationState(index) })),
      Default: NOT_STARTED,
    },
    [NOT_STARTED]: { Type: 'Pass', InputPath: '$.item', Next: processor.StartAt },
  };
  for (const [index, plan] of iterations) {
    own[iterationState(index)] = plan.kind === 'kept' ? passing(plan.output, { End: true }) : passing(plan.input, { Next: plan.state });
  }
  const { Parameters: _parameters, Iterator: _iterator, ...rest } = map;
  return {
    ...rest,
    // The item's own input as the Map makes it (evaluated for every item, used by those not started), and its index.
    ItemSelector: { ...(selector ? { item: selector } : { 'item.$': '$$.Map.Item.Value' }), 'index.$': '$$.Map.Item.Index' },
    ItemProcessor: { ...processor, StartAt: DISPATCH, States: { ...processor.States, ...own } },
  };
}

/**
 * What the service shows of the events of aws-local-stepfunctions running a redrive: nothing of
 * the dispatch or of the iterations and branches it keeps (not run again), and the execution goes
 * on under its first start (ExecutionRedriven). Returns a filter for one redrive's events.
 */
export function redrivenEvents(plan: RedrivePlan): (event: ExecutionEvent) => ExecutionEvent | undefined {
  // A Parallel's branch events do not say which branch they are: a kept branch's start is like any
  // other, and its end is the one with its recorded output.
  let keptStarts = plan.branches?.filter((branch) => branch.kind === 'kept').length ?? 0;
  const keptEnds = (plan.branches ?? []).flatMap((branch) => (branch.kind === 'kept' ? [JSON.stringify(branch.output)] : []));
  return (event) => {
    if (event.type === 'ExecutionStarted') return { type: 'ExecutionRedriven', timestamp: event.timestamp };
    if (isRedriveState(event.state?.name)) return undefined;
    if (event.parentState?.name !== plan.state) return event;
    if (event.type === 'ParallelBranchStarted' && keptStarts > 0) {
      keptStarts--;
      return undefined;
    }
    if (event.type === 'ParallelBranchSucceeded') {
      const kept = keptEnds.indexOf(JSON.stringify(event.output));
      if (kept >= 0) {
        keptEnds.splice(kept, 1);
        return undefined;
      }
    }
    if (!plan.iterations?.size || event.index === undefined) return event;
    if (plan.iterations.get(event.index)?.kind === 'kept') return undefined;
    // The iteration's input as the Map's ItemSelector makes it, without the dispatch's wrapper.
    if (event.type !== 'MapIterationStarted') return event;
    return { ...event, input: (event as { input?: { item?: unknown } }).input?.item } as ExecutionEvent;
  };
}
