import { fileURLToPath } from 'node:url';
import { readYamlFile } from './parsed-yaml.js';

/** The state machine definition file: serverless.yml, the local executor and the tests all read it. */
export const DEFINITION_FILE = fileURLToPath(new URL('./state-machine.asl.yml', import.meta.url));

export interface AslState {
  Type: string;
  Resource?: unknown;
  ItemProcessor?: AslDefinition;
  [field: string]: unknown;
}
export interface AslDefinition {
  StartAt: string;
  States: Record<string, AslState>;
  [field: string]: unknown;
}

const parsedDefinitions = new Map<string, AslDefinition>();

/**
 * The definition file, parsed once per process (the local executor loads it for every execution),
 * handed out as a copy of its own since callers rewrite it (resources, redrive, timeouts).
 */
export function loadDefinition(file = DEFINITION_FILE): AslDefinition {
  let parsed = parsedDefinitions.get(file);
  if (!parsed) {
    parsed = readYamlFile(file) as AslDefinition;
    parsedDefinitions.set(file, parsed);
  }
  // A JSON copy, not structuredClone: under jest's vm contexts structuredClone's objects are of
  // another realm, and aws-local-stepfunctions then takes them for other than plain objects.
  return JSON.parse(JSON.stringify(parsed)) as AslDefinition;
}

/** The Map each iteration state belongs to: state name -> the Map's name (state names are unique in a definition). */
export function iterationMaps(definition: AslDefinition): ReadonlyMap<string, string> {
  const found = new Map<string, string>();
  for (const [mapName, state] of Object.entries(definition.States)) {
    for (const name of Object.keys(state.ItemProcessor?.States ?? {})) found.set(name, mapName);
  }
  return found;
}

/**
 * The callback pattern's Lambda integration: Step Functions invokes the function named by
 * Parameters.FunctionName with Parameters.Payload and waits for SendTaskSuccess or SendTaskFailure
 * (https://docs.aws.amazon.com/step-functions/latest/dg/connect-to-resource.html#connect-wait-token).
 */
export const LAMBDA_WAIT_FOR_TASK_TOKEN = 'arn:aws:states:::lambda:invoke.waitForTaskToken';

/**
 * Every Task state, nested ones included, with the Lambda function it calls (its logical id), and
 * whether it waits for a task token (LAMBDA_WAIT_FOR_TASK_TOKEN) rather than for the function's answer.
 */
export function taskStates(definition: AslDefinition): { state: string; functionId: string; waitsForToken?: true }[] {
  const found: { state: string; functionId: string; waitsForToken?: true }[] = [];
  const visit = (machine: AslDefinition) => {
    for (const [name, state] of Object.entries(machine.States)) {
      if (state.Type === 'Task' && state.Resource === LAMBDA_WAIT_FOR_TASK_TOKEN) {
        found.push({ state: name, functionId: functionIdOf(name, (state.Parameters as { FunctionName?: unknown } | undefined)?.FunctionName), waitsForToken: true });
      } else if (state.Type === 'Task') found.push({ state: name, functionId: functionIdOf(name, state.Resource) });
      if (state.ItemProcessor) visit(state.ItemProcessor);
    }
  };
  visit(definition);
  return found;
}

function functionIdOf(state: string, resource: unknown): string {
  const getAtt = (resource as { 'Fn::GetAtt'?: unknown } | undefined)?.['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string' && getAtt[1] === 'Arn') return getAtt[0];
  throw new Error(`Task state ${state} must name its Lambda as Fn::GetAtt: [Function, Arn]`);
}

/**
 * The definition as Step Functions receives it once CloudFormation has resolved the Lambda ARNs;
 * `arnOf` decides the ARN (lib/local uses a placeholder: its executor binds by state name).
 */
export function resolveResources(definition: AslDefinition, arnOf: (functionId: string) => string): AslDefinition {
  // A copy made of this realm's objects (the definition is JSON data): aws-local-stepfunctions
  // evaluates a nested Parameters object (a Payload's `key.$`) only when its prototype is its own
  // realm's Object.prototype, which structuredClone's copies are not under jest's vm contexts.
  const resolved = JSON.parse(JSON.stringify(definition)) as AslDefinition;
  const visit = (machine: AslDefinition) => {
    for (const [name, state] of Object.entries(machine.States)) {
      if (state.Type === 'Task' && state.Resource === LAMBDA_WAIT_FOR_TASK_TOKEN) {
        const parameters = state.Parameters as { FunctionName?: unknown };
        parameters.FunctionName = arnOf(functionIdOf(name, parameters.FunctionName));
      } else if (state.Type === 'Task') state.Resource = arnOf(functionIdOf(name, state.Resource));
      if (state.ItemProcessor) visit(state.ItemProcessor);
    }
  };
  visit(resolved);
  return resolved;
}
