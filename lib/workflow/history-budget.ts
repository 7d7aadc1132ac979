/**
 * How many execution history events a build writes. A Standard workflow's execution may hold
 * HistoryLimits.MAX_EVENTS; reaching that fails it wherever it stands, its pods left to the
 * cleanup rule, and a build must never meet that. Each poll of a step writes a few events, and so
 * does each look of a step waiting for its `needs`, so the budget depends on the poll schedule
 * (poll-schedule.ts) and the watches as much as on the definition (state-machine.asl.yml).
 *
 * Assumed: no retries (each retried Lambda adds its failed attempt's events), and no time spent in
 * the Lambdas themselves (real time between polls is a little longer, so real builds poll a little
 * less): the figures are an upper bound for a build no Lambda error retried.
 */
import { StepPhases } from '../kube/types.js';
import { BUILD_TIME_LIMIT_SECONDS, CHECKOUT_STEP, DEFAULT_STEP_RETRY, InvalidPipeline } from '../pipeline/index.js';
import type { AslDefinition, AslState } from './definition.js';
import { firstPollSeconds, nextPollSeconds, runningWatchFor } from './poll-schedule.js';
import { DEFAULT_PENDING_WATCH_SECONDS, DEFAULT_RUNNING_WATCH_SECONDS, DEFAULT_RUNNING_WATCH_UNTIL_SECONDS } from './settings.js';
import { NEEDS_POLL_SECONDS } from './tasks/wait-for-needs.js';

/**
 * The Task a failed build with steps to re-run fails in (state-machine.asl.yml). A redrive goes on
 * from there in the same history, so each re-run's events come out of what the first run left:
 * a re-run runs fewer steps than the build, once, with nothing to budget beyond what RunSteps'
 * own figures already bound (the page and `run --json` show each redrive's events).
 */
const RERUN_GATE = 'AwaitRerun';

export const HistoryLimits = {
  /** Step Functions Standard workflows: the most events one execution's history may hold. */
  MAX_EVENTS: 25_000,
} as const;

/**
 * What Step Functions Standard records for one visit of a state of each type. A Task that calls a
 * Lambda: TaskStateEntered, TaskScheduled, TaskStarted, TaskSucceeded, TaskStateExited. A Fail
 * state is only entered: the iteration's or the execution's failure follows. A Map: entered,
 * started, succeeded, exited; its iterations count apart (ITERATION_EVENTS each).
 */
export const StateEvents = {
  Task: 5,
  Wait: 2,
  Choice: 2,
  Pass: 2,
  Succeed: 2,
  Fail: 1,
  Map: 4,
} as const;

/** MapIterationStarted and MapIterationSucceeded (or Failed). */
export const ITERATION_EVENTS = 2;
/** ExecutionStarted and ExecutionSucceeded (or Failed). */
export const EXECUTION_EVENTS = 2;

/**
 * The worst case a pipeline is checked against when read: every step pending this long (its pod
 * scheduled and its image pulled; with the watch a pending pod costs one poll per watch whatever
 * this is, without it one a second) and then running until its own timeout.
 */
export const WorstCase = {
  PENDING_SECONDS: 10,
} as const;

/** A build's history in a few numbers, read off the definition by historyShape(). */
export interface HistoryShape {
  /**
   * Everything outside the steps' iterations (the execution's own events, the states before and
   * after the Map, the Map's own), for each way a build through its steps ends: the Map's Next
   * (every step succeeded, or a combination of a `fail-fast: false` matrix failed, which fails the
   * build after the Map), or the last step failed the Map (which also counts that step's longer way
   * out). Each is the longest way there, whichever branch a Choice takes: a bound, if a few events
   * high.
   */
  buildEvents: { succeeded: number; failed: number };
  /**
   * Per step besides its polls: its iteration's start and end, the states before the poll loop
   * (the way of a step without `needs`) and after it.
   */
  stepEvents: number;
  /** One pass of the poll loop: one poll and the wait before it. */
  pollEvents: number;
  /**
   * What a step with `needs` adds to stepEvents even when they have succeeded already: its way
   * into the poll loop through the needs loop, whose last pass finds them met.
   */
  needsStepEvents: number;
  /** One more pass of the needs loop, for each look that finds the needs not met yet: the look and the wait after it. */
  needsEvents: number;
  /**
   * What a step that needs an approval step (directly or through others) adds before its needs
   * loop: its wait for the approval (AwaitApprovedNeeds, a callback: a Task's events and
   * TaskSubmitted), the same however long it lasts.
   */
  awaitsEvents: number;
  /** What a retry adds besides another attempt: the way from a failed attempt back to LaunchStep. */
  retryEvents: number;
}

/**
 * The shape of the deployed definition. Lambda bundles do not carry state-machine.asl.yml, so
 * PrepareBuild uses this copy; history-budget.test.ts keeps it equal to historyShape(loadDefinition()).
 */
export const BUILD_HISTORY_SHAPE: HistoryShape = {
  buildEvents: { succeeded: 57, failed: 51 },
  stepEvents: 21,
  pollEvents: 9,
  needsStepEvents: 7,
  needsEvents: 9,
  awaitsEvents: 6,
  retryEvents: 4,
};

/** A step's timing: pending (scheduling, pulling), then running, ended by its timeout at the latest. */
export interface StepTiming {
  pendingSeconds: number;
  /** Absent: until the step's timeout, the worst case. */
  runSeconds?: number;
  /** activeDeadlineSeconds: it counts from the pod's start, pending time included. */
  timeoutSeconds: number;
  /** Attempts after the first that the pipeline asks for (`retry.max`); each costs as much again. Absent: none. */
  retries?: number;
  /**
   * A step with `needs`: how long after its iteration starts they have all succeeded (0: at once).
   * Absent: a step without `needs`, launched as its iteration starts.
   */
  waitSeconds?: number;
  /** It needs an approval step, and waits for it apart (HistoryShape.awaitsEvents). */
  awaitsApproval?: true;
}

/** How long a poll may watch the pod, as the deployment says (0: no watch, the schedule). */
export interface Watches {
  pendingWatchSeconds: number;
  runningWatchSeconds: number;
  /** No running watch once a step has run this long (absent: the whole run). */
  runningWatchUntilSeconds?: number;
}

export const DEPLOYED_WATCHES: Watches = {
  pendingWatchSeconds: DEFAULT_PENDING_WATCH_SECONDS,
  runningWatchSeconds: DEFAULT_RUNNING_WATCH_SECONDS,
  runningWatchUntilSeconds: DEFAULT_RUNNING_WATCH_UNTIL_SECONDS,
};

export interface BudgetOptions extends Partial<Watches> {
  shape?: HistoryShape;
}

/** Events of a build whose steps take these times, for the longer of its two endings (see HistoryShape). */
export function buildHistoryEvents(steps: readonly StepTiming[], options: BudgetOptions = {}): number {
  const { buildEvents } = options.shape ?? BUILD_HISTORY_SHAPE;
  return Math.max(buildEvents.succeeded, buildEvents.failed) + steps.reduce((sum, step) => sum + stepHistoryEvents(step, options), 0);
}

/** What one step adds to its build's history: its iteration, its wait for its needs and its polls. */
export function stepHistoryEvents(step: StepTiming, options: BudgetOptions = {}): number {
  const { shape = BUILD_HISTORY_SHAPE, ...watches } = options;
  const deployed = { ...DEPLOYED_WATCHES, ...watches };
  const waiting =
    (step.waitSeconds === undefined ? 0 : shape.needsStepEvents + (needsChecks(step.waitSeconds, deployed) - 1) * shape.needsEvents) + (step.awaitsApproval ? shape.awaitsEvents : 0);
  const attempt = shape.stepEvents + waiting + stepPolls(step, deployed) * shape.pollEvents;
  // A retry goes round the iteration again from its launch: the attempt's polls and tasks, and the retry's own states.
  const retries = step.retries ?? 0;
  return retries > 0 ? attempt + retries * (attempt - waiting + shape.retryEvents) : attempt;
}

/**
 * How many times WaitForNeeds looks (tasks/wait-for-needs.ts) when the needs succeed
 * `waitSeconds` after the step's iteration starts. With the watch (`runningWatchSeconds`), each
 * look holds until they have or the watch is up, and the next follows at once; without it, looks
 * come NEEDS_POLL_SECONDS apart. The last look is the one that finds them met.
 */
export function needsChecks(waitSeconds: number, watches: Watches = DEPLOYED_WATCHES): number {
  // As WaitForNeeds decides: a watch shorter than a second is none.
  if (watches.runningWatchSeconds >= 1) return Math.floor(waitSeconds / watches.runningWatchSeconds) + 1;
  return Math.ceil(waitSeconds / NEEDS_POLL_SECONDS) + 1;
}

/**
 * The longest each step with `needs` may wait for them, by the steps' worst case (each pending
 * `pendingSeconds`, then running until its timeout), in `steps`' order; undefined for a step
 * without `needs`, which does not wait. Iterations start in order and a step needs only steps
 * before it, so when a step's iteration starts every step it needs, directly or not, has started
 * too: what is left of them is at most the longest chain of them, a step after the steps it
 * needs. Names outside `steps` (a skipped step, a checkout done in each pod) hold nothing up.
 * Never past the execution's own time limit, where the build ends whatever it waits for. Pure.
 */
export function worstWaitSeconds(
  steps: readonly { name: string; timeoutSeconds: number; needs?: readonly string[] }[],
  pendingSeconds: number = WorstCase.PENDING_SECONDS,
): (number | undefined)[] {
  const byName = new Map(steps.map((step) => [step.name, step]));
  const ends = new Map<string, number>();
  const opened = new Set<string>();
  // The latest a step may end, counted from when a step that needs it starts.
  const endOf = (name: string): number => {
    const known = ends.get(name);
    if (known !== undefined) return known;
    if (opened.has(name)) throw new Error(`the steps' needs form a cycle through "${name}"`);
    opened.add(name);
    const step = byName.get(name)!;
    const end = waitOf(step) + pendingSeconds + step.timeoutSeconds;
    ends.set(name, end);
    return end;
  };
  const waitOf = (step: { needs?: readonly string[] }): number =>
    Math.max(0, ...(step.needs ?? []).filter((need) => byName.has(need)).map(endOf));
  return steps.map((step) => (step.needs === undefined ? undefined : Math.min(waitOf(step), BUILD_TIME_LIMIT_SECONDS)));
}

/** The most steps of this timing one build may have and stay within HistoryLimits.MAX_EVENTS. */
export function largestBuild(step: StepTiming, options: BudgetOptions = {}): number {
  const fixed = buildHistoryEvents([], options);
  return Math.max(0, Math.floor((HistoryLimits.MAX_EVENTS - fixed) / stepHistoryEvents(step, options)));
}

/** The steps as historyBudgetProblem() takes them: each with `needs` given its worstWaitSeconds(). */
/** The default's retries, or as many for fewer of its Errors (the node's doing, not the pipeline's). */
function isDefaultRetry(retry: { max: number; on?: readonly string[] }): boolean {
  const defaults: readonly string[] = DEFAULT_STEP_RETRY.on;
  return retry.max === DEFAULT_STEP_RETRY.max && (retry.on ?? defaults).every((error) => defaults.includes(error));
}

export function withWorstWaits(
  steps: readonly { name: string; timeoutSeconds: number; needs?: readonly string[]; retry?: { max: number; on?: readonly string[] }; matrix?: { of: string }; approval?: unknown }[],
): BudgetStep[] {
  const waits = worstWaitSeconds(steps);
  const approvals = new Set(steps.flatMap((step) => (step.approval !== undefined ? [step.name] : [])));
  const byName = new Map(steps.map((step) => [step.name, step]));
  // Directly or through the steps it needs, as PrepareBuild's plan says (step-plan.ts).
  const awaits = (step: { needs?: readonly string[] }, seen = new Set<string>()): boolean =>
    (step.needs ?? []).some((need) => {
      if (seen.has(need)) return false;
      seen.add(need);
      const needed = byName.get(need);
      return approvals.has(need) || (needed !== undefined && awaits(needed, seen));
    });
  // Only a `retry:` the pipeline writes counts: the default, an interrupted step or one its node's runtime failed tried again, is
  // the cluster's doing and rare, and counting it would refuse builds that fit.
  return steps.map(({ name, timeoutSeconds, retry, matrix, needs }, index) => ({
    name,
    timeoutSeconds,
    ...(matrix ? { matrix: matrix.of } : {}),
    ...(waits[index] === undefined ? {} : { waitSeconds: waits[index] }),
    ...(awaits({ ...(needs ? { needs } : {}) }) ? { awaitsApproval: true as const } : {}),
    ...(retry && retry.max > 0 && !isDefaultRetry(retry) ? { retries: retry.max } : {}),
  }));
}

/** A step at its worst (WorstCase): waiting as long as it may, pending a short while, then running until its timeout, every attempt. */
export function worstCase(step: { timeoutSeconds: number; waitSeconds?: number; retries?: number; awaitsApproval?: true }): StepTiming {
  const waiting = step.waitSeconds === undefined ? {} : { waitSeconds: step.waitSeconds };
  return {
    pendingSeconds: WorstCase.PENDING_SECONDS,
    timeoutSeconds: step.timeoutSeconds,
    ...waiting,
    ...(step.retries ? { retries: step.retries } : {}),
    ...(step.awaitsApproval ? { awaitsApproval: true as const } : {}),
  };
}

/** A step as the budget sees it; `waitSeconds` for a step with `needs`: see worstWaitSeconds(). */
export interface BudgetStep {
  name: string;
  timeoutSeconds: number;
  /** A combination of this step of the file's `matrix`: each counts as the step it is. */
  matrix?: string;
  waitSeconds?: number;
  retries?: number;
  awaitsApproval?: true;
}

/**
 * InvalidPipeline when the steps' worst case would not fit in one execution's history: such a
 * build would fail part-way, whatever its steps did, so it is refused before
 * anything starts. `steps` are those the build runs, the `clone` step too when it has one.
 */
export function historyBudgetProblem(
  file: string,
  steps: readonly BudgetStep[],
  options: BudgetOptions = {},
): InvalidPipeline | undefined {
  const events = buildHistoryEvents(steps.map(worstCase), options);
  if (events <= HistoryLimits.MAX_EVENTS) return undefined;
  const clone = steps.some((step) => step.name === CHECKOUT_STEP) ? ` (the "${CHECKOUT_STEP}" step included)` : '';
  // Waiting costs a look per watch (or per few seconds), so many steps waiting on long ones weigh too.
  const waits = steps.some((step) => step.waitSeconds !== undefined);
  return new InvalidPipeline(
    `${file}: at worst (each of its ${steps.length} steps${clone}${waits ? ' waiting until the steps it needs end,' : ''} ` +
      `pending ${WorstCase.PENDING_SECONDS} s, then running until its timeout) ` +
      `this build would write ${count(events)} Step Functions history events, more than the ${count(HistoryLimits.MAX_EVENTS)} one execution may hold; ` +
      matrixFit(steps, options) +
      (waits ? 'use fewer steps, give them shorter "timeout"s, or have fewer steps wait for long ones' : 'use fewer steps, or give them shorter "timeout"s'),
    { file, field: 'steps' },
  );
}

/**
 * For the largest matrix of the build: how many of its combinations would fit, the other steps as
 * they are (each combination at the worst of them). Empty when the build has none.
 */
function matrixFit(steps: readonly BudgetStep[], options: BudgetOptions): string {
  const sizes = new Map<string, number>();
  for (const step of steps) if (step.matrix !== undefined) sizes.set(step.matrix, (sizes.get(step.matrix) ?? 0) + 1);
  const largest = [...sizes].sort((a, b) => b[1] - a[1])[0];
  if (!largest) return '';
  const [matrix, size] = largest;
  const combinations = steps.filter((step) => step.matrix === matrix);
  const others = buildHistoryEvents(steps.filter((step) => step.matrix !== matrix).map(worstCase), options);
  const each = Math.max(...combinations.map((step) => stepHistoryEvents(worstCase(step), options)));
  const fit = Math.max(0, Math.floor((HistoryLimits.MAX_EVENTS - others) / each));
  return `its matrix "${matrix}" makes ${size} steps, of which ${fit} would fit with the others as they are; `;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

/**
 * How many times PollStep runs for one step: a simulation of the schedule and of PollStep's watch
 * (tasks/poll-step.ts), up to the poll that sees the step ended. Each poll holds a watch of up to
 * `pendingWatchSeconds` (pending) or `runningWatchSeconds` (running, until the step has run
 * `runningWatchUntilSeconds`) that returns as soon as the pod runs or ends, and the next poll
 * follows at once; without a watch, polls come as the schedule says.
 */
export function stepPolls(step: StepTiming, watches: Watches = DEPLOYED_WATCHES): number {
  const runsAt = step.pendingSeconds;
  const endsAt = Math.min(step.pendingSeconds + (step.runSeconds ?? Infinity), step.timeoutSeconds);
  const phaseAt = (t: number) => (t >= endsAt ? 'ended' : t >= runsAt ? StepPhases.Running : StepPhases.Pending);
  let t = firstPollSeconds(watches.pendingWatchSeconds);
  let before: string = StepPhases.Pending;
  let runningSince: number | undefined;
  // As PollStep decides: a watch shorter than a second is none.
  const watchSeconds = (phase: string, at: number) =>
    phase === StepPhases.Pending ? watches.pendingWatchSeconds : runningWatchFor(watches, runningSince === undefined ? 0 : at - runningSince);
  for (let polls = 1; ; polls++) {
    const watchFor = watchSeconds(before, t);
    const watching = watchFor >= 1;
    if (watching) t = Math.max(t, Math.min(t + watchFor, before === StepPhases.Pending ? runsAt : Infinity, endsAt));
    const phase = phaseAt(t);
    if (phase === 'ended') return polls;
    if (phase === StepPhases.Running) runningSince ??= t;
    const watched = watching && watchSeconds(phase, t) >= 1;
    t += nextPollSeconds({ phase }, { elapsedSeconds: t, runningSeconds: runningSince === undefined ? 0 : t - runningSince, timeoutSeconds: step.timeoutSeconds, watched });
    before = phase;
  }
}

/**
 * Reads the events a build writes off the definition: the top-level states a build passes through
 * on its way into the steps' Map and out of it (the longest way, retries aside), and in the Map's
 * iteration the states before the poll loop (with and without the needs loop), each loop itself
 * and the way out of the poll loop. Throws when the definition no longer has that form (one Map
 * over the steps, two loops: the poll loop, whose Wait the schedule sets, and the needs loop, whose Wait
 * WaitForNeeds sets).
 */
export function historyShape(definition: AslDefinition): HistoryShape {
  // RunSteps; RunAfterFailure's iterations are steps too, which its callers count as such.
  const mapName = onlyState(definition, (state) => state.Type === 'Map' && state.ItemsPath === '$.steps', 'one Map state over $.steps');
  const map = definition.States[mapName]!;
  const iteration = map.ItemProcessor;
  if (!iteration) throw new Error(`${mapName} has no ItemProcessor`);

  const loop = loopOf(iteration, '$.poll.nextPollSeconds', 'poll');
  const needs = loopOf(iteration, '$.needs.nextPollSeconds', 'needs');
  const isPollEntry = (name: string) => name === loop.entry;
  // A step without needs keeps off the needs loop; one with needs passes it once, its full turns counted apart.
  const intoLoop = longestPath(iteration, iteration.StartAt, isPollEntry, { avoid: needs.states });
  // A step that needs an approval waits for it in a callback between the needs loop and its launch, counted apart.
  const awaits = onlyState(iteration, (state) => (state.Parameters as { Payload?: { task?: unknown } } | undefined)?.Payload?.task === 'await-approved-needs', 'one callback Task that awaits approvals');
  const throughNeeds = longestPath(iteration, iteration.StartAt, isPollEntry, { through: needs.states, avoid: [awaits] });
  // The way back from a failed attempt to LaunchStep (retry-step): counted once per retry, apart.
  const retryBack = onlyState(iteration, (state) => state.Type === 'Pass' && state.ResultPath === '$.attempt', 'one Pass state that sets $.attempt (the retry)');
  // Before the needs loop, on the way of a step with needs: its own events, and the callback's TaskSubmitted.
  if (!successors(iteration.States[awaits]!).every((next) => needs.states.includes(next))) throw new Error(`${awaits} must lead into the needs loop`);
  const awaitsEvents = eventsOf(iteration.States[awaits]!, awaits) + 1;
  // Each exit's longest way, and its longest that ends in a Fail (the Map's failure), which may be
  // shorter: a combination of a matrix with fail-fast: false ends its iteration at a Pass instead.
  const outOfLoop = loop.exits.flatMap((exit) => [
    { exit, ...longestPath(iteration, exit, isTerminal(iteration), { avoid: [retryBack] }) },
    ...waysIfAny(() => ({ exit, ...longestPath(iteration, exit, isTerminal(iteration), { avoid: [retryBack], endInFail: true }) })),
  ]);
  const wayOut = (fails: boolean) => Math.max(...outOfLoop.filter((way) => way.endsInFail === fails).map((way) => way.events));
  if (!outOfLoop.some((way) => !way.endsInFail) || !outOfLoop.some((way) => way.endsInFail)) {
    throw new Error(`the poll loop of ${mapName} must have a way out that succeeds and one that fails`);
  }
  const stepEvents = ITERATION_EVENTS + intoLoop.events + wayOut(false);

  const intoMap = longestPath(definition, definition.StartAt, (name) => name === mapName);
  const after = (next: string[]) => Math.max(...next.map((name) => longestPath(definition, name, isTerminal(definition)).events));
  const around = EXECUTION_EVENTS + intoMap.events + StateEvents.Map;
  return {
    buildEvents: {
      succeeded: around + after([nextOf(map, mapName)]),
      failed: around + after(catchNexts(map)) + (wayOut(true) - wayOut(false)),
    },
    stepEvents,
    pollEvents: loop.events,
    needsStepEvents: throughNeeds.events - intoLoop.events,
    needsEvents: needs.events,
    awaitsEvents,
    retryEvents: retryWayEvents(iteration, retryBack, loop.entry),
  };
}

/** Events from the retry's Choice (what leads to `retryBack`) through it to the poll loop, not counting the attempt's own tasks twice. */
function retryWayEvents(iteration: AslDefinition, retryBack: string, pollEntry: string): number {
  const choice = onlyState(iteration, (state) => successors(state).includes(retryBack), `one state that leads to ${retryBack}`);
  const launch = nextOf(iteration.States[retryBack]!, retryBack);
  if (nextOf(iteration.States[launch]!, launch) !== pollEntry) throw new Error(`${retryBack} must lead to the launch before the poll loop`);
  return eventsOf(iteration.States[choice]!, choice) + eventsOf(iteration.States[retryBack]!, retryBack);
}

/**
 * AwaitRerun, which fails the first run: a Task's events but its exit (TaskStateEntered,
 * TaskScheduled, TaskStarted, TaskFailed), the execution's failure following. Its retries, when the
 * build's Error is one it retries, are left out as every retry is.
 */
function gateEvents(state: AslState): number {
  if (state.Type !== 'Task') throw new Error(`${RERUN_GATE} must be a Task`);
  return StateEvents.Task - 1;
}

function eventsOf(state: AslState, name: string): number {
  const events = (StateEvents as Record<string, number>)[state.Type];
  if (events === undefined) throw new Error(`${name}: no event count for a ${state.Type} state`);
  return events;
}

function onlyState(machine: AslDefinition, wanted: (state: AslState) => boolean, what: string): string {
  const found = Object.entries(machine.States).filter(([, state]) => wanted(state));
  if (found.length !== 1) throw new Error(`the definition must have ${what}, found ${found.length}`);
  return found[0]![0];
}

/** Where a state may go next: Next, a Choice's branches and Default, a Catch's Next. */
function successors(state: AslState): string[] {
  const next = typeof state.Next === 'string' ? [state.Next] : [];
  const choices = Array.isArray(state.Choices) ? (state.Choices as { Next?: unknown }[]).map((rule) => rule.Next) : [];
  const fallback = typeof state.Default === 'string' ? [state.Default] : [];
  return [...next, ...choices.filter((n): n is string => typeof n === 'string'), ...fallback, ...catchNexts(state)];
}

function catchNexts(state: AslState): string[] {
  return Array.isArray(state.Catch) ? (state.Catch as { Next?: unknown }[]).map((c) => c.Next).filter((n): n is string => typeof n === 'string') : [];
}

function nextOf(state: AslState, name: string): string {
  if (typeof state.Next !== 'string') throw new Error(`${name} must have a Next`);
  return state.Next;
}

function isTerminal(machine: AslDefinition): (name: string) => boolean {
  return (name) => name === RERUN_GATE || successors(machine.States[name]!).length === 0;
}

/**
 * The most events on a way from `from` to a state `to` accepts (`to`'s own not counted unless it
 * is terminal, where the way ends), and whether that way ends in a Fail state. `avoid`: states
 * the way may not pass; `through`: a loop the way must enter, going round it no further than back
 * to where it entered (a full turn is counted apart); `endInFail`: only the ways that end in a Fail state.
 */
function longestPath(
  machine: AslDefinition,
  from: string,
  to: (name: string) => boolean,
  way: { avoid?: readonly string[]; through?: readonly string[]; endInFail?: true } = {},
): { events: number; endsInFail: boolean } {
  const visiting = new Set<string>();
  const walk = (name: string, passed: boolean): { events: number; endsInFail: boolean } | undefined => {
    const state = machine.States[name];
    if (!state) throw new Error(`no state ${name}`);
    if (way.avoid?.includes(name)) return undefined;
    // The first run ends in AwaitRerun, which fails it: what follows runs after a redrive.
    const gate = name === RERUN_GATE;
    const terminal = gate || successors(state).length === 0;
    if (to(name)) {
      if (way.through && !passed) return undefined;
      const endsInFail = terminal && (gate || state.Type === 'Fail');
      if (way.endInFail && !endsInFail) return undefined;
      return terminal ? { events: gate ? gateEvents(state) : eventsOf(state, name), endsInFail } : { events: 0, endsInFail: false };
    }
    if (terminal) return undefined;
    if (visiting.has(name)) {
      if (way.through?.includes(name)) return undefined;
      throw new Error(`${name} is on a loop other than the poll loop and the needs loop`);
    }
    visiting.add(name);
    const now = passed || (way.through?.includes(name) ?? false);
    const ways = successors(state).flatMap((next) => walk(next, now) ?? []);
    visiting.delete(name);
    if (ways.length === 0) return undefined;
    const longest = ways.reduce((a, b) => (b.events > a.events ? b : a));
    return { events: eventsOf(state, name) + longest.events, endsInFail: longest.endsInFail };
  };
  const found = walk(from, false);
  if (!found) throw new Error(`no way from ${from} to where it should lead${way.through ? ` through ${way.through.join(', ')}` : ''}`);
  return found;
}

/** The way `find` finds, or none when there is no such way. */
function waysIfAny<T>(find: () => T): T[] {
  try {
    return [find()];
  } catch (error) {
    if ((error as Error).message.startsWith('no way from')) return [];
    throw error;
  }
}

/**
 * One of the iteration's loops: from the Wait whose seconds `secondsPath` sets (the poll
 * schedule's, or WaitForNeeds'), along Next, back to it through a Choice. Its exits are where that
 * Choice (or any state on the loop) leads off it; `events`, what one turn writes.
 */
function loopOf(iteration: AslDefinition, secondsPath: string, what: string): { entry: string; states: string[]; exits: string[]; events: number } {
  const entry = onlyState(
    iteration,
    (state) => state.Type === 'Wait' && state.SecondsPath === secondsPath,
    `one Wait state set by the ${what} loop (${secondsPath})`,
  );
  const leadsBack = (name: string) => successors(iteration.States[name]!).includes(entry);
  const states = [entry];
  for (let name = nextOf(iteration.States[entry]!, entry); !states.includes(name); name = nextOf(iteration.States[name]!, name)) {
    states.push(name);
    if (leadsBack(name)) break;
  }
  if (!leadsBack(states.at(-1)!)) throw new Error(`the ${what} loop does not lead back to ${entry}`);
  const exits = states.flatMap((name) => successors(iteration.States[name]!).filter((next) => !states.includes(next)));
  if (iteration.States[states.at(-1)!]!.Type !== 'Choice') throw new Error(`the ${what} loop must close with a Choice`);
  if (states.filter((name) => iteration.States[name]!.Type === 'Task').length !== 1) throw new Error(`the ${what} loop must look once per pass`);
  const events = states.reduce((sum, name) => sum + eventsOf(iteration.States[name]!, name), 0);
  return { entry, states, exits, events };
}
