import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parse } from 'yaml';
import { localLambdaArn } from '../lib/local/executor.js';
import { BUILD_TIME_LIMIT_SECONDS } from '../lib/pipeline/index.js';
import { lambdaFunctionNames } from '../lib/local/lambda-functions.js';
import { DEFINITION_FILE, loadDefinition, resolveResources, taskStates } from '../lib/workflow/definition.js';

// asl-validator is CommonJS without types.
const aslValidator = createRequire(import.meta.url)('asl-validator') as (definition: unknown) => {
  isValid: boolean;
  errors: unknown[];
};

const serverless = parse(readFileSync(new URL('../serverless.yml', import.meta.url), 'utf8')) as {
  functions: Record<string, { handler: string }>;
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

  it('ends a failed build in a Fail state whose Error and Cause come from the failure', () => {
    expect(definition.States.BuildFailed).toMatchObject({ Type: 'Fail', ErrorPath: '$.failure.Error', CausePath: '$.failure.Cause' });
    const runSteps = definition.States.RunSteps!;
    expect(runSteps).toMatchObject({ Type: 'Map', MaxConcurrency: 1 });
    expect(runSteps.Catch).toEqual([expect.objectContaining({ ErrorEquals: ['States.ALL'], Next: 'ReadFailure' })]);
  });
});
