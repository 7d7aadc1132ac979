import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parse } from 'yaml';
import { localLambdaArn } from '../lib/local/executor.js';
import { BUILD_TIME_LIMIT_SECONDS, type Step } from '../lib/pipeline/index.js';
import { lambdaFunctionNames, lambdaFunctionTimeouts } from '../lib/local/lambda-functions.js';
import { WATCH_MARGIN_MS } from '../lib/workflow/handlers.js';
import { workflowSettings } from '../lib/workflow/settings.js';
import { DEFINITION_FILE, loadDefinition, resolveResources, taskStates, type AslState } from '../lib/workflow/definition.js';
import type { NeedsState, PollState, PreparedBuild, StepInput } from '../lib/workflow/state-data.js';

// asl-validator is CommonJS without types.
const aslValidator = createRequire(import.meta.url)('asl-validator') as (definition: unknown) => {
  isValid: boolean;
  errors: unknown[];
};

const serverless = parse(readFileSync(new URL('../serverless.yml', import.meta.url), 'utf8')) as {
  provider: { timeout: number };
  params: { default: Record<string, unknown> };
  functions: Record<string, { handler: string; timeout?: number }>;
  stepFunctions: { stateMachines: Record<string, { definition: string }> };
};

describe('the state machine definition', () => {
  const definition = loadDefinition();

  it('ends an execution at the limit pipelines are checked against', () => {
    expect(loadDefinition().TimeoutSeconds).toBe(BUILD_TIME_LIMIT_SECONDS);
  });

  it('passes asl-validator once its Lambda ARNs are resolved', () => {
    const result = aslValidator(structuredClone(resolveResources(definition, localLambdaArn)));
    expect(result.errors).toEqual([]);
    expect(result.isValid).toBe(true);
  });

  it('is the very file serverless.yml deploys', () => {
    const machines = Object.values(serverless.stepFunctions.stateMachines);
    expect(machines).toHaveLength(1);
    const referenced = /^\$\{file\((.+)\)\}$/.exec(machines[0]!.definition)?.[1];
    expect(referenced && new URL(`../${referenced}`, import.meta.url).pathname).toBe(DEFINITION_FILE);
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
      const [, at, field] = /^\$\.(\w+)\.(\w+)(?:\[0\])?$/.exec(path) ?? [];
      const known = (READABLE as Record<string, Record<string, true>>)[at ?? '']?.[field ?? ''];
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
  step: { needs: true } satisfies Partial<Record<keyof Step, true>>,
  needs: { met: true, nextPollSeconds: true } satisfies Partial<Record<keyof NeedsState, true>>,
  poll: { phase: true, nextPollSeconds: true } satisfies Partial<Record<keyof PollState, true>>,
} satisfies Partial<Record<keyof StepInput, object>>;

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

function findState(name: string) {
  const definition = loadDefinition();
  return definition.States[name] ?? Object.values(definition.States).find((s) => s.ItemProcessor?.States[name])?.ItemProcessor?.States[name];
}
