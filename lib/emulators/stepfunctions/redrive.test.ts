/**
 * The local redrive against Step Functions' table "Redrive behavior of individual states"
 * (https://docs.aws.amazon.com/step-functions/latest/dg/redrive-executions.html#redrive-behavior-states),
 * one test per row: small definitions of their own run through aws-local-stepfunctions, as the
 * executor runs them (the iteration gate, the history, the redrive plan and its definition), each
 * Task a plain function, then redriven.
 */
import { jest } from '@jest/globals';
import './polyfills.js';
import { StateMachine } from 'aws-local-stepfunctions';
import type { AslDefinition, AslState } from '../../workflow/definition.js';
import { ExecutionHistory, type ExecutionEvent } from './execution-history.js';
import { IterationGates } from './iteration-gate.js';
import { redriveDefinition, redrivenEvents } from './redrive-definition.js';
import { ExecutionNotRedrivable, planRedrive, RedriveLimits, RedriveNotEmulated } from './redrive-plan.js';
import { refuseWithoutStepsToRerun } from './redrive.js';

type Handler = (input: Record<string, unknown>) => Promise<unknown>;

const LAMBDA = 'arn:aws:lambda:us-east-1:000000000000:function:test';
const task = (fields: Partial<AslState> & ({ Next: string } | { End: true })): AslState => ({ Type: 'Task', Resource: LAMBDA, ...fields });
const machine = (StartAt: string, States: Record<string, AslState>, extra: Partial<AslDefinition> = {}): AslDefinition => ({ StartAt, States, ...extra });

/** A Task failing with this Error and Cause, as a Lambda function's error reaches Step Functions. */
function failure(name: string, cause = `${name} happened`): Error {
  const error = new Error(cause);
  error.name = name;
  return error;
}

interface Attempt {
  /** Only this attempt's events, as the service shows them. */
  events: ExecutionEvent[];
  /** The whole history so far. */
  history: ExecutionEvent[];
  end: ExecutionEvent;
  /** The top-level and iteration states entered, in order (`name#index` in an iteration). */
  entered: string[];
  /** The Task invocations, in order (`name#index` in an iteration). */
  calls: string[];
}

interface RunOptions {
  /** The history of the ended execution to redrive, and the redrive's count. */
  redrive?: { history: readonly ExecutionEvent[]; count: number };
  /** Aborts the execution (StopExecution) once this returns true of an event. */
  abortWhen?: (event: ExecutionEvent) => boolean;
}

const named = (name: string, index: number | undefined) => (index === undefined ? name : `${name}#${index}`);

/** One attempt of `definition`, its Tasks bound to `handlers`, as startLocalExecution composes it. */
async function attempt(definition: AslDefinition, handlers: Record<string, Handler>, input: unknown, options: RunOptions = {}): Promise<Attempt> {
  const earlier = options.redrive?.history ?? [];
  const history = new ExecutionHistory(undefined, earlier);
  const gates = new IterationGates(definition, (event, map) => history.record(event, map));
  const plan = options.redrive && planRedrive(definition, earlier, { iterationIndex: (map, shown) => history.iterationIndex(map, shown) });
  const calls: string[] = [];
  const bound = Object.fromEntries(
    Object.entries(handlers).map(([state, handler]) => [
      state,
      gates.guard(state, (event) => {
        calls.push(named(state, (event as { index?: number }).index));
        return handler(event as Record<string, unknown>);
      }),
    ]),
  );
  const run = new StateMachine((plan ? redriveDefinition(definition, plan) : definition) as never, { validationOptions: { noValidate: true } });
  const execution = run.run((plan ? plan.input : input) as never, {
    context: { Execution: { RedriveCount: options.redrive?.count ?? 0 } } as never,
    overrides: { taskResourceLocalHandlers: bound as never, retryIntervalOverrides: Object.fromEntries(Object.keys(handlers).map((state) => [state, 0])) },
    noThrowOnAbort: true,
  });
  const shownOf = plan ? redrivenEvents(plan) : (event: ExecutionEvent) => event;
  for await (const event of execution.eventLogs as AsyncGenerator<ExecutionEvent>) {
    const shown = shownOf(event);
    if (shown) gates.admit(shown);
    if (options.abortWhen?.(event)) execution.abort();
  }
  gates.close();
  await execution.result.catch(() => undefined);
  const events = history.events.slice(earlier.length);
  return {
    events,
    history: history.events,
    end: events.at(-1)!,
    entered: events.filter((e) => e.type === 'StateEntered').map((e) => named(e.state!.name, e.index)),
    calls,
  };
}

/** Never settles until `release()`: a Task still running when the execution is stopped. */
function pending() {
  let release: () => void = () => {};
  const settled = new Promise<unknown>((resolve) => (release = () => resolve({})));
  return { handler: () => settled, release: () => release() };
}

const REDRIVEN = (history: readonly ExecutionEvent[], count = 1) => ({ redrive: { history, count } });

describe('a redrive, row by row of "Redrive behavior of individual states"', () => {
  it('Task: "Schedules and starts the Task state again", its Retry count reset ("the retry attempt count ... is reset to 0")', async () => {
    const definition = machine('First', {
      First: task({ ResultPath: '$.first', Next: 'Flaky' }),
      Flaky: task({ Retry: [{ ErrorEquals: ['Flake'], MaxAttempts: 1 }], ResultPath: '$.flaky', End: true }),
    });
    let flakes = 3;
    const handlers: Record<string, Handler> = {
      First: async () => 'first',
      Flaky: async () => {
        if (flakes-- > 0) throw failure('Flake', 'not yet');
        return 'fixed';
      },
    };
    const first = await attempt(definition, handlers, { n: 1 });
    expect(first.end).toMatchObject({ type: 'ExecutionFailed', Error: 'Flake', Cause: 'not yet' });
    expect(first.calls).toEqual(['First', 'Flaky', 'Flaky']);

    // One flake left: the retry the first attempt used up is there again.
    const redriven = await attempt(definition, handlers, undefined, REDRIVEN(first.history));
    expect(redriven.events[0]?.type).toBe('ExecutionRedriven');
    expect(redriven.entered).toEqual(['Flaky']);
    expect(redriven.calls).toEqual(['Flaky', 'Flaky']);
    expect(redriven.events.filter((e) => e.type === 'StateRetried')).toHaveLength(1);
    expect(redriven.events.find((e) => e.type === 'StateEntered')?.state?.input).toEqual({ n: 1, first: 'first' });
    expect(redriven.end).toMatchObject({ type: 'ExecutionSucceeded', output: { n: 1, first: 'first', flaky: 'fixed' } });
  });

  it('Choice: "Reevaluates the Choice state rules"', async () => {
    const definition = machine('Redriven', {
      // No rule matches before a redrive, and without a Default that fails the execution.
      Redriven: { Type: 'Choice', Choices: [{ Variable: '$$.Execution.RedriveCount', NumericGreaterThan: 0, Next: 'Done' }] },
      Done: { Type: 'Succeed' },
    });
    const first = await attempt(definition, {}, { n: 1 });
    expect(first.end).toMatchObject({ type: 'ExecutionFailed', Error: 'States.NoChoiceMatched' });

    const redriven = await attempt(definition, {}, undefined, REDRIVEN(first.history));
    expect(redriven.entered).toEqual(['Redriven', 'Done']);
    expect(redriven.end).toMatchObject({ type: 'ExecutionSucceeded', output: { n: 1 } });
  });

  it('Fail: "Reenters the Fail state and fails again", with the same Error and Cause', async () => {
    const definition = machine('Prepare', {
      Prepare: task({ ResultPath: '$.failure', Next: 'Failed' }),
      Failed: { Type: 'Fail', ErrorPath: '$.failure.Error', CausePath: '$.failure.Cause' },
    });
    const handlers: Record<string, Handler> = { Prepare: async () => ({ Error: 'StepFailed', Cause: 'exit code 3' }) };
    const first = await attempt(definition, handlers, {});
    expect(first.end).toMatchObject({ type: 'ExecutionFailed', Error: 'StepFailed', Cause: 'exit code 3' });

    const redriven = await attempt(definition, handlers, undefined, REDRIVEN(first.history));
    expect(redriven.entered).toEqual(['Failed']);
    expect(redriven.calls).toEqual([]);
    expect(redriven.end).toMatchObject({ type: 'ExecutionFailed', Error: 'StepFailed', Cause: 'exit code 3' });
  });

  it('Pass: "If a preceding step fails ..., the Pass state is exited and isn\'t executed on redrive"', async () => {
    const definition = machine('Shape', {
      Shape: { Type: 'Pass', Parameters: { 'shaped.$': '$.raw' }, Next: 'Use' },
      Use: task({ End: true }),
    });
    let broken = true;
    const handlers: Record<string, Handler> = {
      Use: async (input) => {
        if (broken) throw failure('Broken');
        return input;
      },
    };
    const first = await attempt(definition, handlers, { raw: 'r' });
    expect(first.end).toMatchObject({ type: 'ExecutionFailed', Error: 'Broken' });
    broken = false;
    const redriven = await attempt(definition, handlers, undefined, REDRIVEN(first.history));
    expect(redriven.entered).toEqual(['Use']);
    expect(redriven.end).toMatchObject({ type: 'ExecutionSucceeded', output: { shaped: 'r' } });
  });

  it('Wait: "If the state specifies Timestamp or TimestampPath that refers to a timestamp in the past, redrive causes the Wait state to be exited"', async () => {
    const definition = machine('Until', {
      Until: { Type: 'Wait', TimestampPath: '$.until', Next: 'After' },
      After: { Type: 'Pass', End: true },
    });
    // An hour off, so the abort on entering Until always comes first.
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const first = await attempt(definition, {}, { until }, { abortWhen: (e) => e.type === 'StateEntered' && e.state?.name === 'Until' });
    expect(first.end.type).toBe('ExecutionAborted');
    // The redrive comes once the timestamp has passed (the event this row is about): the engine
    // reads the clock with Date.now (aws-local-stepfunctions' Wait state), so the clock is moved past it.
    const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.parse(until) + 1);
    let redriven: Awaited<ReturnType<typeof attempt>>;
    try {
      redriven = await attempt(definition, {}, undefined, REDRIVEN(first.history));
    } finally {
      clock.mockRestore();
    }
    expect(redriven.entered).toEqual(['Until', 'After']);
    expect(redriven.end).toMatchObject({ type: 'ExecutionSucceeded', output: { until } });
  });

  it('Succeed: "Doesn\'t redrive state machine executions that enter the Succeed state"', async () => {
    const definition = machine('Done', { Done: { Type: 'Succeed' } });
    const first = await attempt(definition, {}, {});
    expect(first.end.type).toBe('ExecutionSucceeded');
    expect(() => planRedrive(definition, first.history)).toThrow(new ExecutionNotRedrivable('Execution is SUCCEEDED and cannot be redriven.'));
  });

  it('Parallel: "Reschedules and redrives only those branches that failed or aborted"', async () => {
    // One branch succeeds, one fails in its Task after a Pass, one is still working then (aborted).
    const definition = machine('Both', {
      Both: {
        Type: 'Parallel',
        Branches: [
          machine('Left', { Left: task({ End: true }) }),
          machine('Shape', { Shape: { Type: 'Pass', Parameters: { 'shaped.$': '$.n' }, Next: 'Right' }, Right: task({ End: true }) }),
          machine('Slow', { Slow: task({ End: true }) }),
        ],
        ResultPath: '$.branches',
        End: true,
      },
    });
    const stuck = pending();
    const first = await attempt(definition, { Left: async () => 'left', Right: async () => Promise.reject(failure('Broken')), Slow: stuck.handler }, { n: 1 });
    stuck.release();
    expect(first.end).toMatchObject({ type: 'ExecutionFailed', Error: 'Broken' });

    const redriven = await attempt(definition, { Left: async () => 'left again', Right: async (input) => input, Slow: async () => 'slow' }, undefined, REDRIVEN(first.history));
    expect(redriven.calls.sort()).toEqual(['Right', 'Slow']);
    expect(redriven.entered.sort()).toEqual(['Both', 'Right', 'Slow']);
    expect(redriven.events.filter((e) => e.type === 'ParallelBranchStarted')).toHaveLength(2);
    expect(redriven.end).toMatchObject({ type: 'ExecutionSucceeded', output: { n: 1, branches: ['left', { shaped: 1 }, 'slow'] } });
  });

  describe('Inline Map: "Reschedules and redrives only those iterations that failed or aborted"', () => {
    // Each iteration: Prepare (a Pass), then Work. Two at a time: 0 succeeds, 1 is still working
    // when 2 fails (aborted), and 3 never starts (Step Functions starts none after a failure).
    const definition = machine('Each', {
      Each: {
        Type: 'Map',
        ItemsPath: '$.items',
        MaxConcurrency: 2,
        ItemSelector: { 'item.$': '$$.Map.Item.Value', 'index.$': '$$.Map.Item.Index', 'redrive.$': '$$.Execution.RedriveCount' },
        ItemProcessor: machine('Prepare', {
          Prepare: { Type: 'Pass', Parameters: { 'item.$': '$.item', 'index.$': '$.index', 'redrive.$': '$.redrive', prepared: true }, Next: 'Work' },
          Work: task({ End: true }),
        }),
        ResultPath: '$.results',
        End: true,
      },
    });
    const items = ['a', 'b', 'c', 'd'];

    async function failedRun() {
      const stuck = pending();
      const first = await attempt(
        definition,
        {
          Work: async (input) => {
            if (input.index === 1) return stuck.handler();
            if (input.index === 2) throw failure('Broken', 'c is broken');
            return `done ${input.item} at ${input.redrive}`;
          },
        },
        { items },
      );
      stuck.release();
      return first;
    }

    const working = async (input: Record<string, unknown>) => `done ${input.item} at ${input.redrive}`;

    it('keeps the succeeded iteration, resumes the failed and the aborted ones at the state they stood in, and starts the one never started', async () => {
      const first = await failedRun();
      expect(first.end).toMatchObject({ type: 'ExecutionFailed', Error: 'Broken', Cause: 'c is broken' });
      expect(first.events.filter((e) => e.type === 'MapIterationStarted').map((e) => e.index)).toEqual([0, 1, 2]);

      const redriven = await attempt(definition, { Work: working }, undefined, REDRIVEN(first.history));
      // Nothing of iteration 0 again; 1 and 2 from Work, with Work's input of the first attempt
      // (ItemSelector not evaluated again: still redrive 0); 3 from the start, as any new iteration.
      expect(redriven.calls.sort()).toEqual(['Work#1', 'Work#2', 'Work#3']);
      expect(redriven.entered.filter((name) => name.startsWith('Prepare'))).toEqual(['Prepare#3']);
      expect(redriven.events.filter((e) => e.type === 'MapIterationStarted').map((e) => e.index).sort()).toEqual([1, 2, 3]);
      expect(redriven.entered.every((name) => /^(Each|Prepare|Work)(#\d)?$/.test(name))).toBe(true);
      expect(redriven.end).toMatchObject({
        type: 'ExecutionSucceeded',
        output: { items, results: ['done a at 0', 'done b at 0', 'done c at 0', 'done d at 1'] },
      });
    });

    it('a second redrive still keeps what the first attempt kept', async () => {
      const first = await failedRun();
      const again = await attempt(definition, { Work: async (input) => (input.index === 2 ? Promise.reject(failure('Broken', 'still')) : working(input)) }, undefined, REDRIVEN(first.history));
      expect(again.end).toMatchObject({ type: 'ExecutionFailed', Error: 'Broken', Cause: 'still' });
      const keptAgain = again.events.filter((e) => e.type === 'MapIterationSucceeded').map((e) => e.index!);

      const third = await attempt(definition, { Work: working }, undefined, REDRIVEN(again.history, 2));
      expect(third.calls.sort()).toEqual([1, 2, 3].filter((index) => !keptAgain.includes(index)).map((index) => `Work#${index}`));
      expect(third.end).toMatchObject({ type: 'ExecutionSucceeded', output: { results: ['done a at 0', 'done b at 0', 'done c at 0', expect.stringMatching(/^done d at [12]$/)] } });
    });

    it('"If the state failed because of a States.DataLimitExceeded error, the Inline Map state is rerun, including the iterations that were successful"', async () => {
      const first = await attempt(definition, { Work: async (input) => (input.index === 1 ? Promise.reject(failure('States.DataLimitExceeded')) : working(input)) }, { items: ['a', 'b'] });
      expect(first.end).toMatchObject({ type: 'ExecutionFailed', Error: 'States.DataLimitExceeded' });

      const redriven = await attempt(definition, { Work: working }, undefined, REDRIVEN(first.history));
      expect(redriven.calls.sort()).toEqual(['Work#0', 'Work#1']);
      expect(redriven.end).toMatchObject({ type: 'ExecutionSucceeded', output: { results: ['done a at 1', 'done b at 1'] } });
    });

    it('a nested Map in an iteration to redrive: refused, not emulated', () => {
      const nested = machine('Outer', {
        Outer: {
          Type: 'Map',
          ItemsPath: '$.items',
          ItemProcessor: machine('Inner', { Inner: { Type: 'Map', ItemsPath: '$.items', ItemProcessor: machine('Leaf', { Leaf: task({ End: true }) }), End: true } }),
          End: true,
        },
      });
      // As aws-local-stepfunctions reports it: the inner iteration's states under the outer index.
      const at = (type: string, fields: Partial<ExecutionEvent> = {}): ExecutionEvent => ({ type, timestamp: 1, ...fields });
      const history = [
        at('ExecutionStarted'),
        at('StateEntered', { state: { name: 'Outer', type: 'Map', input: { items: [{ items: [1] }] } } }),
        at('MapIterationStarted', { index: 0, parentState: { name: 'Outer', type: 'Map' } }),
        at('StateEntered', { index: 0, state: { name: 'Inner', type: 'Map', input: { items: [1] } } }),
        at('MapIterationStarted', { index: 0, parentState: { name: 'Inner', type: 'Map' } }),
        at('StateEntered', { index: 0, state: { name: 'Leaf', type: 'Task', input: 1 } }),
        at('MapIterationFailed', { index: 0, parentState: { name: 'Inner', type: 'Map' } }),
        at('MapIterationFailed', { index: 0, parentState: { name: 'Outer', type: 'Map' } }),
        at('ExecutionFailed', { Error: 'Broken' }),
      ];
      expect(() => planRedrive(nested, history, { now: 2 })).toThrow(RedriveNotEmulated);
    });
  });

  it('Distributed Map ("redrives the unsuccessful child workflow executions in a Map Run"): refused, not emulated', async () => {
    const definition = machine('Each', {
      Each: { Type: 'Map', ItemsPath: '$.items', ItemProcessor: { ...machine('Work', { Work: task({ End: true }) }), ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' } }, End: true },
    });
    const first = await attempt(definition, { Work: async () => Promise.reject(failure('Broken')) }, { items: [1] });
    expect(() => planRedrive(definition, first.history)).toThrow(RedriveNotEmulated);
  });
});

describe("the build's shape: a failing Map caught, then a Task that fails until redriven (AwaitRerun, issue 35)", () => {
  // Steps whose failure is caught; the execution then fails in Gate, a Task that succeeds once the
  // execution has been redriven since it was entered, and the steps not done run again, afresh.
  const definition = machine('Steps', {
    Steps: {
      Type: 'Map',
      ItemsPath: '$.steps',
      MaxConcurrency: 1,
      ItemSelector: { 'step.$': '$$.Map.Item.Value', 'index.$': '$$.Map.Item.Index' },
      ItemProcessor: machine('Run', { Run: task({ End: true }) }),
      ResultPath: null,
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'Gate' }],
      Next: 'Done',
    },
    Gate: task({ Parameters: { 'failure.$': '$.failure', 'redrive.$': '$$.Execution.RedriveCount' }, ResultPath: null, Next: 'Rerun' }),
    Rerun: { Type: 'Pass', Result: ['b'], ResultPath: '$.steps', Next: 'Steps' },
    Done: { Type: 'Succeed' },
  });
  let fixed = false;
  const handlers: Record<string, Handler> = {
    Run: async (input) => {
      if (input.step === 'b' && !fixed) throw failure('StepFailed', 'b failed');
      return input.step;
    },
    // Redriven, the Task runs again with the input it was entered with: $$.Execution.RedriveCount is read anew.
    Gate: async (input) => {
      if ((input.redrive as number) > 0) return {};
      throw failure((input.failure as { Error: string }).Error, (input.failure as { Cause: string }).Cause);
    },
  };

  it('fails in the Task with the build\'s Error, and redriven goes on to run the steps again', async () => {
    const first = await attempt(definition, handlers, { steps: ['a', 'b'] });
    expect(first.end).toMatchObject({ type: 'ExecutionFailed', Error: 'StepFailed' });
    expect(planRedrive(definition, first.history)).toMatchObject({ state: 'Gate', input: { steps: ['a', 'b'], failure: { Error: 'StepFailed' } } });

    fixed = true;
    const redriven = await attempt(definition, handlers, undefined, REDRIVEN(first.history));
    expect(redriven.entered).toEqual(['Gate', 'Rerun', 'Steps', 'Run#0', 'Done']);
    expect(redriven.calls).toEqual(['Gate', 'Run#0']);
    expect(redriven.end.type).toBe('ExecutionSucceeded');
  });
});

describe('redriving executions that were stopped or timed out ("failed, aborted, or timed out executions")', () => {
  it('an aborted execution goes on at the Task it was stopped in, with its input', async () => {
    const definition = machine('First', { First: task({ ResultPath: '$.first', Next: 'Slow' }), Slow: task({ ResultPath: '$.slow', End: true }) });
    const stuck = pending();
    const first = await attempt(definition, { First: async () => 1, Slow: stuck.handler }, {}, { abortWhen: (e) => e.type === 'StateEntered' && e.state?.name === 'Slow' });
    stuck.release();
    expect(first.end.type).toBe('ExecutionAborted');

    const redriven = await attempt(definition, { First: async () => 1, Slow: async () => 2 }, undefined, REDRIVEN(first.history));
    expect(redriven.calls).toEqual(['Slow']);
    expect(redriven.end).toMatchObject({ type: 'ExecutionSucceeded', output: { first: 1, slow: 2 } });
  });

  it('a timed-out execution goes on where it stood, its TimeoutSeconds counted afresh ("the state machine level timeout ... is reset to 0")', async () => {
    // 300 ms: the first attempt's Task outlasts it, the redrive's (answering at once) does not,
    // which it would at once were the time counted from the first start.
    const definition = machine('Slow', { Slow: task({ End: true }) }, { TimeoutSeconds: 0.3 });
    const stuck = pending();
    const first = await attempt(definition, { Slow: stuck.handler }, { n: 1 });
    stuck.release();
    expect(first.end.type).toBe('ExecutionTimeout');

    const redriven = await attempt(definition, { Slow: async (input) => input }, undefined, REDRIVEN(first.history));
    expect(redriven.entered).toEqual(['Slow']);
    expect(redriven.end).toMatchObject({ type: 'ExecutionSucceeded', output: { n: 1 } });
  });
});

describe("RedriveExecution's eligibility", () => {
  const definition = machine('Only', { Only: task({ End: true }) });
  const DAY = 24 * 3600 * 1000;
  const ended = (end: string, at: number, extra: ExecutionEvent[] = []): ExecutionEvent[] => [
    { type: 'ExecutionStarted', timestamp: 0 },
    { type: 'StateEntered', timestamp: 1, state: { name: 'Only', type: 'Task', input: {} } },
    ...extra,
    { type: end, timestamp: at },
  ];

  it.each([
    ['a running execution', [{ type: 'ExecutionStarted', timestamp: 0 }], 1, 'Execution is RUNNING and cannot be redriven.'],
    ['a succeeded execution', ended('ExecutionSucceeded', 5), 10, 'Execution is SUCCEEDED and cannot be redriven.'],
    ['one that ended more than 14 days ago', ended('ExecutionFailed', 5), 5 + RedriveLimits.REDRIVABLE_MS + 1, 'Execution redrivable period exceeded.'],
    ['one open more than a year', ended('ExecutionTimeout', RedriveLimits.MAX_OPEN_MS + 1), RedriveLimits.MAX_OPEN_MS + 2, 'Execution has exceeded the max execution time.'],
    [
      'one whose history holds 24,999 events',
      ended('ExecutionFailed', 5, Array.from({ length: RedriveLimits.MAX_EVENTS - 3 }, () => ({ type: 'StateRetried', timestamp: 2 }))),
      10,
      'Execution history event limit exceeded.',
    ],
  ] as [string, ExecutionEvent[], number, string][])('refuses %s', (_what, events, now, reason) => {
    expect(() => planRedrive(definition, events, { now })).toThrow(new ExecutionNotRedrivable(reason));
  });

  it.each([
    ['failed', 'ExecutionFailed'],
    ['aborted', 'ExecutionAborted'],
    ['timed out', 'ExecutionTimeout'],
  ])('redrives one %s within 14 days', (_what, end) => {
    expect(planRedrive(definition, ended(end, 5), { now: 5 + 13 * DAY })).toEqual({ state: 'Only', input: {} });
  });
});

describe('"Re-run failed steps": the local server also refuses what could only fail again at once', () => {
  const events = (end: string): ExecutionEvent[] => [
    { type: 'ExecutionStarted', timestamp: 0 },
    { type: end, timestamp: 1 },
  ];

  it.each([
    ['a build that failed outside AwaitRerun (before its steps, without a kept workspace)', 'BuildFailed', 'ExecutionFailed', /^This build has no steps to re-run: it failed before its steps ran/],
    ['a stopped build (its pods and claim deleted by the cleanup)', 'RunSteps', 'ExecutionAborted', /^This build was stopped: the cleanup deleted its pods and its workspace claim, so it has no steps to re-run. Step Functions would go on from RunSteps/],
    ['a timed-out build', 'RunSteps', 'ExecutionTimeout', /^This build timed out: the cleanup deleted/],
  ])('refuses %s', (_what, state, end, message) => {
    expect(() => refuseWithoutStepsToRerun({ state, input: {} }, events(end))).toThrow(message);
  });

  it('lets a build that failed in AwaitRerun go on', () => {
    expect(() => refuseWithoutStepsToRerun({ state: 'AwaitRerun', input: {} }, events('ExecutionFailed'))).not.toThrow();
  });
});

describe("the history's own iteration numbers, undone for a redrive", () => {
  const exited = (name: string, steps: string[]): ExecutionEvent => ({ type: 'StateExited', timestamp: 1, state: { name, type: 'Task', output: { steps: steps.map((step) => ({ name: step })) } } });

  it.each([
    ['RunAfterFailure, numbered after the build steps', [exited('PrepareBuild', ['a', 'b', 'c'])], 'RunAfterFailure', 4, 1],
    ['RunSteps re-running steps, numbered as in the first run', [exited('PrepareBuild', ['a', 'b', 'c']), exited('RerunSteps', ['b', 'c'])], 'RunSteps', 2, 1],
    ['RunSteps in a first run', [exited('PrepareBuild', ['a', 'b', 'c'])], 'RunSteps', 2, 2],
  ] as [string, ExecutionEvent[], string, number, number][])('%s', (_what, earlier, map, shown, index) => {
    const history = new ExecutionHistory(undefined, earlier);
    history.record({ type: 'MapIterationStarted', timestamp: 2, index, parentState: { name: map, type: 'Map' } }, map);
    expect(history.events.at(-1)?.index).toBe(shown);
    expect(history.iterationIndex(map, shown)).toBe(index);
  });
});
