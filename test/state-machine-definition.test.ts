import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAlias, isMap, isSeq, parse, parseDocument, visit } from 'yaml';
import { localLambdaArn, localMachineDefinition } from '../lib/emulators/stepfunctions/executor.js';
import { BUILD_TIME_LIMIT_SECONDS, EXECUTION_TIME_LIMIT_SECONDS, type MatrixOf, type Step } from '../lib/pipeline/index.js';
import { lambdaFunctionNames, lambdaFunctionTimeouts } from '../lib/emulators/lambda/lambda-functions.js';
import { WATCH_MARGIN_MS } from '../lib/workflow/handlers.js';
import { workflowSettings } from '../lib/workflow/settings.js';
import { DEFINITION_FILE, loadDefinition, resolveResources, taskStates, type AslState } from '../lib/workflow/definition.js';
import type { NeedsState, PollState, PreparedBuild, StepInput, StepResult } from '../lib/workflow/state-data.js';

// asl-validator is CommonJS without types.
const aslValidator = createRequire(import.meta.url)('asl-validator') as (definition: unknown, options?: { checkPaths?: boolean; checkArn?: boolean }) => {
  isValid: boolean;
  errors: unknown[];
};

const serverless = parse(readFileSync(new URL('../serverless.yml', import.meta.url), 'utf8')) as {
  provider: { timeout: number };
  params: { default: Record<string, unknown> };
  functions: Record<string, { handler: string; timeout?: number; reservedConcurrency?: unknown }>;
  stepFunctions: { stateMachines: Record<string, { definition: string }> };
};

interface Retrier {
  ErrorEquals: string[];
  IntervalSeconds?: number;
  MaxAttempts?: number;
  BackoffRate?: number;
  MaxDelaySeconds?: number;
  JitterStrategy?: string;
}

/**
 * What Lambda hands Step Functions for an invocation that ran out of time or memory, beside the
 * Lambda.Unknown that Step Functions documents for both ("Handle Lambda service exceptions"):
 * Lambda's timeout, the handler's own (middy, 5 ms before it), and running out of memory as Lambda
 * names it or as the runtime's exit.
 */
const OUT_OF_TIME_OR_MEMORY = ['Sandbox.Timedout', 'TimeoutError', 'Runtime.OutOfMemory', 'Runtime.ExitError'];
const THROTTLED = 'Lambda.TooManyRequestsException';
/** How long, on average, a throttled invocation is retried before its build fails: a burst lasts less. */
const THROTTLE_RIDE_OUT_SECONDS = 5 * 60;
/** A Lambda account's concurrency quota by default, and what it must keep unreserved ("Lambda quotas"; PutFunctionConcurrency). */
const DEFAULT_ACCOUNT_CONCURRENCY = 1000;
const MIN_UNRESERVED_CONCURRENCY = 100;

describe('the state machine definition', () => {
  const definition = loadDefinition();

  it('ends an execution at the limits pipelines are checked against: the steps\' 24 h and the approvals\' 7 days', () => {
    expect(loadDefinition().TimeoutSeconds).toBe(EXECUTION_TIME_LIMIT_SECONDS);
    expect(EXECUTION_TIME_LIMIT_SECONDS).toBe(BUILD_TIME_LIMIT_SECONDS + 7 * 24 * 60 * 60);
  });

  it('passes asl-validator once its Lambda ARNs are resolved', () => {
    const result = aslValidator(structuredClone(resolveResources(definition, localLambdaArn)));
    expect(result.errors).toEqual([]);
    expect(result.isValid).toBe(true);
  });

  // The local executor runs this without validating it each time (executor.ts).
  it('passes asl-validator, paths and ARNs checked, as the local executor runs it', () => {
    const result = aslValidator(structuredClone(localMachineDefinition(loadDefinition())), { checkPaths: true, checkArn: true });
    expect(result.errors).toEqual([]);
    expect(result.isValid).toBe(true);
  });

  it('is the very file serverless.yml deploys', () => {
    const machines = Object.values(serverless.stepFunctions.stateMachines);
    expect(machines).toHaveLength(1);
    const referenced = /^\$\{file\((.+)\)\}$/.exec(machines[0]!.definition)?.[1];
    expect(referenced && new URL(`../${referenced}`, import.meta.url).pathname).toBe(DEFINITION_FILE);
  });

  it('writes each Retry entry once: a Task that repeats one names it by its YAML alias', () => {
    // Every loader of the file expands aliases (yaml here and in the local executor, js-yaml under
    // osls's ${file(...)}: test/package.e2e.test.ts compares what it deploys with loadDefinition()).
    const written: string[] = [];
    const aliases: string[] = [];
    visit(parseDocument(readFileSync(DEFINITION_FILE, 'utf8')), {
      Pair(_, pair) {
        if ((pair.key as { value?: unknown } | null)?.value !== 'Retry' || !isSeq(pair.value)) return;
        for (const entry of pair.value.items) {
          if (isAlias(entry)) aliases.push(entry.source);
          else if (isMap(entry)) written.push(JSON.stringify(entry.toJSON()));
        }
      },
    });
    expect(written.filter((entry, i) => written.indexOf(entry) !== i)).toEqual([]);
    expect(aliases.length).toBeGreaterThan(0);
  });

  it('calls only functions that serverless.yml defines, bound locally to the same handlers', () => {
    for (const { state, functionId } of taskStates(definition)) {
      const name = lambdaFunctionNames[functionId];
      expect({ state, bound: Boolean(name) }).toEqual({ state, bound: true });
      const logicalId = `${name![0]!.toUpperCase()}${name!.slice(1)}LambdaFunction`;
      expect(logicalId).toBe(functionId);
      const handlerFile = serverless.functions[name!]?.handler.replace(/\.handler$/, '');
      expect(handlerFile).toBe(`functions/${name!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
    }
  });

  it('gives each local invocation its deployed timeout, and each Task that sets one room past it', () => {
    for (const { state, functionId } of taskStates(definition)) {
      const name = lambdaFunctionNames[functionId]!;
      const deployed = serverless.functions[name]?.timeout ?? serverless.provider.timeout;
      expect({ name, timeout: lambdaFunctionTimeouts[name] }).toEqual({ name, timeout: deployed });
      const taskTimeout = findState(state)?.TimeoutSeconds as number | undefined;
      if (taskTimeout !== undefined) expect({ state, room: taskTimeout > deployed }).toEqual({ state, room: true });
    }
  });

  it('holds every watch of a poll well inside the poll function\'s timeout', () => {
    const timeoutMs = lambdaFunctionTimeouts.pollStep! * 1000;
    const defaults = { ...workflowSettings({ namespace: 'x' }), ...serverless.params.default };
    for (const setting of ['pendingWatchSeconds', 'runningWatchSeconds'] as const) {
      expect({ setting, fits: Number(defaults[setting]) * 1000 <= timeoutMs - WATCH_MARGIN_MS }).toEqual({ setting, fits: true });
    }
  });

  it('ends a failed build in a Fail state whose Error and Cause come from the failure', () => {
    expect(definition.States.BuildFailed).toMatchObject({ Type: 'Fail', ErrorPath: '$.failure.Error', CausePath: '$.failure.Cause' });
    const runSteps = definition.States.RunSteps!;
    expect(runSteps).toMatchObject({ Type: 'Map' });
    expect(runSteps.Catch).toEqual([expect.objectContaining({ ErrorEquals: ['States.ALL'], Next: 'ReadFailure' })]);
  });

  it('retries a Lambda timeout and running out of memory wherever it retries Lambda.Unknown, with the same attempts', () => {
    const tasks = taskStates(definition).map(({ state }) => ({ state, retry: (findState(state)?.Retry ?? []) as Retrier[] }));
    const covering = tasks.filter(({ retry }) => retry.some((r) => r.ErrorEquals.includes('Lambda.Unknown')));
    expect(covering.length).toBeGreaterThan(0);
    for (const { state, retry } of covering) {
      const entry = retry.find((r) => r.ErrorEquals.includes('Lambda.Unknown'))!;
      expect({ state, missing: OUT_OF_TIME_OR_MEMORY.filter((name) => !entry.ErrorEquals.includes(name)) }).toEqual({ state, missing: [] });
    }
    // The others (the cleanups) retry every error.
    for (const { state, retry } of tasks.filter((t) => !covering.includes(t))) {
      expect({ state, catchAll: retry.some((r) => r.ErrorEquals.includes('States.ALL')) }).toEqual({ state, catchAll: true });
    }
  });

  it('rides out throttling on every Task: an entry of its own, before any catch-all, jittered, spanning minutes on average', () => {
    for (const { state } of taskStates(definition)) {
      const retry = (findState(state)?.Retry ?? []) as Retrier[];
      const at = retry.findIndex((r) => r.ErrorEquals.includes(THROTTLED));
      const entry = retry[at];
      const catchAll = retry.findIndex((r) => r.ErrorEquals.includes('States.ALL'));
      expect({ state, own: entry?.ErrorEquals, first: catchAll === -1 || at < catchAll }).toEqual({ state, own: [THROTTLED], first: true });
      expect({ state, jitter: entry!.JitterStrategy, capped: typeof entry!.MaxDelaySeconds === 'number' }).toEqual({ state, jitter: 'FULL', capped: true });
      // Each wait is drawn between 0 and its back-off (FULL jitter), so on average half of it.
      const waits = backoffSeconds(entry!);
      const meanSeconds = waits.reduce((sum, wait) => sum + wait, 0) / 2;
      expect({ state, rideOut: meanSeconds >= THROTTLE_RIDE_OUT_SECONDS, longestWait: Math.max(...waits) }).toEqual({
        state,
        rideOut: true,
        longestWait: entry!.MaxDelaySeconds,
      });
    }
  });

  it('reserves concurrency for the webhook and caps the functions that hold watches, within what a default account allows', () => {
    const reserved = Object.entries(serverless.functions).filter(([, fn]) => fn.reservedConcurrency !== undefined);
    expect(reserved.map(([name]) => name).sort()).toEqual(['pollStep', 'waitForNeeds', 'webhook']);
    const defaults = reserved.map(([name, fn]) => {
      // A deployment param, so that an account with a larger quota can raise it.
      const param = /^\$\{param:(\w+)\}$/.exec(String(fn.reservedConcurrency))?.[1];
      const value = serverless.params.default[param ?? ''];
      expect({ name, param: Boolean(param), value: Number.isInteger(value) && (value as number) > 0 }).toEqual({ name, param: true, value: true });
      return value as number;
    });
    const total = defaults.reduce((sum, n) => sum + n, 0);
    expect(total).toBeLessThanOrEqual(DEFAULT_ACCOUNT_CONCURRENCY - MIN_UNRESERVED_CONCURRENCY);
  });

  it('runs as many steps at once as PrepareBuild says', () => {
    const maxParallel: keyof PreparedBuild = 'maxParallel';
    expect(definition.States.RunSteps).toMatchObject({ ItemsPath: '$.steps', MaxConcurrencyPath: `$.${maxParallel}` });
    expect(definition.States.RunSteps).not.toHaveProperty('MaxConcurrency');
  });

  it('reads only fields of the state data in its Choices and Waits, where the tasks put them', () => {
    const iteration = definition.States.RunSteps!.ItemProcessor!;
    const read = Object.values(iteration.States).flatMap(readPaths);
    expect(read.length).toBeGreaterThan(0);
    for (const path of read) {
      // `$.step.needs[0]`: whether the list has a first entry.
      const [, at, field, inner] = /^\$\.(\w+)\.(\w+)(?:\[0\]|\.(\w+))?$/.exec(path) ?? [];
      // `$.step.matrix.failFast`: a field of a field.
      const known = inner === undefined ? (READABLE as Record<string, Record<string, true>>)[at ?? '']?.[field ?? ''] : (READABLE_WITHIN as Record<string, Record<string, true>>)[`${at}.${field}`]?.[inner];
      expect({ path, known }).toEqual({ path, known: true });
    }
    const needs: keyof StepInput = 'needs';
    const poll: keyof StepInput = 'poll';
    expect(iteration.States.WaitForNeeds).toMatchObject({ ResultPath: `$.${needs}` });
    for (const task of ['LaunchStep', 'PollStep']) expect(iteration.States[task]).toMatchObject({ ResultPath: `$.${poll}` });
  });
});

/** What the iteration's Choices and Waits may read ($.<at>.<field>), each a field of state-data.ts as the compiler checks. */
const READABLE = {
  step: { needs: true, approval: true, awaits: true, needed: true } satisfies Partial<Record<keyof Step, true>>,
  // NeedsMet: met, or never (a step of the build failed: NeedsNeverMet).
  needs: { met: true, unmet: true, nextPollSeconds: true } satisfies Partial<Record<keyof NeedsState, true>>,
  poll: { phase: true, nextPollSeconds: true } satisfies Partial<Record<keyof PollState, true>>,
  // FinishFailedStep's result: whether the failure is tried again (RetryStep).
  result: { nextAttempt: true } satisfies Partial<Record<keyof StepResult, true>>,
} satisfies Partial<Record<keyof StepInput | 'result', object>>;

/** The same for a field of one of those fields. */
const READABLE_WITHIN = {
  // KeepGoing: a combination of a matrix with fail-fast: false.
  'step.matrix': { failFast: true } satisfies Partial<Record<keyof MatrixOf, true>>,
};

/** The paths a Choice tests (And, Or and Not included) and a Wait waits for. */
function readPaths(state: AslState): string[] {
  const rules = (list: unknown): string[] =>
    Array.isArray(list)
      ? (list as Record<string, unknown>[]).flatMap((rule) => [
          ...(typeof rule.Variable === 'string' ? [rule.Variable] : []),
          ...rules(rule.And),
          ...rules(rule.Or),
          ...rules(rule.Not ? [rule.Not] : undefined),
        ])
      : [];
  return [...rules(state.Choices), ...(typeof state.SecondsPath === 'string' ? [state.SecondsPath] : [])];
}

/** The waits before each retry of a retrier, as Step Functions computes them before any jitter (defaults: 1 s, 3 attempts, rate 2). */
function backoffSeconds({ IntervalSeconds = 1, MaxAttempts = 3, BackoffRate = 2, MaxDelaySeconds = Infinity }: Retrier): number[] {
  return Array.from({ length: MaxAttempts }, (_, retry) => Math.min(IntervalSeconds * BackoffRate ** retry, MaxDelaySeconds));
}

function findState(name: string) {
  const definition = loadDefinition();
  return definition.States[name] ?? Object.values(definition.States).find((s) => s.ItemProcessor?.States[name])?.ItemProcessor?.States[name];
}
