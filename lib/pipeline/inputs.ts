/**
 * The pipeline's `inputs:` (issue 40): the values a manual run (`step-runner trigger`, `run
 * --input`) or a schedule gives a build, each declared with a description, a default, whether it
 * is required and the choices it may take, as GitHub's `workflow_dispatch.inputs` declares them.
 * Pure: the schema's part is checked when the file is read; the values of one build are checked
 * against it (resolveInputs) before anything of the build starts.
 *
 * A step sees each input as `CI_INPUT_<NAME>` (inputVariable): the name upper-cased, every
 * character other than a letter or digit an `_`, as GitHub Actions' runner names its `INPUT_`
 * variables (it upper-cases them and turns spaces into `_`); two inputs that would share a
 * variable are refused when the file is read.
 */
import * as z from 'zod';

/** GitHub caps a workflow_dispatch at 25 inputs; so do we (each is an environment variable of every pod). */
export const MAX_INPUTS = 25;
export const MAX_INPUT_NAME = 100;
/** A value is an environment variable of every step and part of the execution input (256 KiB in all). */
export const MAX_INPUT_VALUE = 1024;
export const INPUT_VARIABLE_PREFIX = 'CI_INPUT_';

const INPUT_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** One `inputs:` entry, normalised. */
export interface PipelineInput {
  name: string;
  description?: string;
  default?: string;
  /** A build must give it (a default counts as given). */
  required: boolean;
  /** The only values it may take; absent: any text. */
  choices?: string[];
}

/** The variable a step sees an input as: `CI_INPUT_` and the name, upper case, non-alphanumerics `_`. */
export function inputVariable(name: string): string {
  return `${INPUT_VARIABLE_PREFIX}${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

export function inputNameProblem(name: string): string | undefined {
  if (name.length > MAX_INPUT_NAME) return `"${name.slice(0, 40)}..." is longer than ${MAX_INPUT_NAME} characters`;
  if (INPUT_NAME.test(name)) return undefined;
  return `"${name}" is not a valid input name: use letters, digits, "_" and "-", starting with a letter or "_"`;
}

/** Why a value cannot be an input's, whatever the input: it becomes an environment variable. */
export function inputValueProblem(value: string): string | undefined {
  if (value.length > MAX_INPUT_VALUE) return `is ${value.length} characters long; at most ${MAX_INPUT_VALUE} are allowed`;
  if (value.includes('\0')) return 'holds a NUL character, which no environment variable can';
  return undefined;
}

/** The schema of `inputs:`; `describe` names a wrong value as the pipeline's schema does. */
export function inputsSchema(describe: (value: unknown) => string) {
  // YAML reads `default: 3` and `choices: [1, 2]` as numbers: they are text as written.
  const value = (what: string) =>
    z.unknown().transform((given, ctx) => {
      const written = typeof given === 'number' || typeof given === 'boolean' ? String(given) : given;
      if (typeof written !== 'string') {
        ctx.addIssue({ code: 'custom', message: `must be text (${what}), not ${describe(given)}` });
        return z.NEVER;
      }
      const problem = inputValueProblem(written);
      if (problem) {
        ctx.addIssue({ code: 'custom', message: problem });
        return z.NEVER;
      }
      return written;
    });
  const entry = z
    .strictObject(
      {
        name: z
          .string({ error: (issue) => (issue.input === undefined ? 'missing (every input needs a name)' : `must be text, not ${describe(issue.input)}`) })
          .superRefine((name, ctx) => {
            const problem = inputNameProblem(name);
            if (problem) ctx.addIssue({ code: 'custom', message: problem });
          }),
        description: z.string({ error: (issue) => `must be text, not ${describe(issue.input)}` }).optional(),
        default: value('the value when a build gives none').optional(),
        required: z.boolean({ error: (issue) => `must be true or false, not ${describe(issue.input)}` }).optional(),
        choices: z
          .array(value('one value the input may take'), { error: (issue) => `must be a list of the values the input may take, not ${describe(issue.input)}` })
          .min(1, { error: 'must list at least one value' })
          .optional(),
      },
      { error: (issue) => `each input must be a map with name, description, default, required and choices, not ${describe(issue.input)}` },
    )
    .superRefine((input, ctx) => {
      const choices = input.choices ?? [];
      const twice = choices.find((choice, index) => choices.indexOf(choice) !== index);
      if (twice !== undefined) ctx.addIssue({ code: 'custom', path: ['choices'], message: `lists ${JSON.stringify(twice)} twice` });
      if (input.default !== undefined && input.choices && !choices.includes(input.default)) {
        ctx.addIssue({ code: 'custom', path: ['default'], message: `${JSON.stringify(input.default)} is not one of its choices (${choices.map((c) => JSON.stringify(c)).join(', ')})` });
      }
    });
  const list = z
    .array(entry, { error: (issue) => `must be a list of inputs (each starting with "- name:"), not ${describe(issue.input)}` })
    .max(MAX_INPUTS, { error: `lists too many inputs; at most ${MAX_INPUTS} are allowed` })
    .superRefine((inputs, ctx) => {
      const seen = new Map<string, string>();
      inputs.forEach((input, index) => {
        const variable = inputVariable(input.name);
        const earlier = seen.get(variable);
        if (earlier === undefined) {
          seen.set(variable, input.name);
          return;
        }
        const message =
          earlier === input.name ? `the input "${input.name}" is declared twice` : `"${input.name}" and "${earlier}" would both be ${variable}: give them names that differ in more than case and punctuation`;
        ctx.addIssue({ code: 'custom', path: [index, 'name'], message });
      });
    });
  return { list, entry };
}

/** `inputs:` as written -> the normal form. */
export function normalInputs(
  given: readonly { name: string; description?: string | undefined; default?: string | undefined; required?: boolean | undefined; choices?: string[] | undefined }[],
): PipelineInput[] {
  return given.map((input) => ({
    name: input.name,
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.default !== undefined ? { default: input.default } : {}),
    required: input.required ?? false,
    ...(input.choices !== undefined ? { choices: [...input.choices] } : {}),
  }));
}

/** Why a build's inputs do not fit the pipeline's, naming the input. */
export interface InputProblem {
  input: string;
  message: string;
}

export type ResolvedInputs = { ok: true; values: Record<string, string> } | { ok: false; problems: InputProblem[] };

/**
 * The values a build runs with: each declared input's given value, else its default, else "" (a
 * step can read `$CI_INPUT_X` under `set -u`); or every problem, each naming its input: a required
 * input missing, a value outside its choices, an input the pipeline does not declare (GitHub
 * refuses those too). `given` undefined: a build no one gave inputs to (a push, a pull request),
 * which runs with the defaults, as GitHub's `inputs` context is empty outside a workflow_dispatch.
 */
export function resolveInputs(declared: readonly PipelineInput[] | undefined, given: Readonly<Record<string, string>> | undefined): ResolvedInputs {
  const inputs = declared ?? [];
  const problems: InputProblem[] = [];
  const names = inputs.map((input) => input.name);
  for (const name of Object.keys(given ?? {})) {
    if (names.includes(name)) continue;
    const known = names.length > 0 ? `its inputs are ${names.join(', ')}` : 'it declares none (`inputs:` at the top of the file)';
    problems.push({ input: name, message: `input "${name}": the pipeline declares no such input; ${known}` });
  }
  const values: Record<string, string> = {};
  for (const input of inputs) {
    const value = given !== undefined && Object.hasOwn(given, input.name) ? given[input.name] : input.default;
    if (value === undefined) {
      if (input.required && given !== undefined) problems.push({ input: input.name, message: `input "${input.name}" is required${input.description ? ` (${input.description})` : ''}, and no value was given` });
      values[input.name] = '';
      continue;
    }
    const valueProblem = inputValueProblem(value);
    if (valueProblem) {
      problems.push({ input: input.name, message: `input "${input.name}" ${valueProblem}` });
    } else if (input.choices && !input.choices.includes(value)) {
      problems.push({ input: input.name, message: `input "${input.name}": ${JSON.stringify(value)} is not one of its choices (${input.choices.map((c) => JSON.stringify(c)).join(', ')})` });
    }
    values[input.name] = value;
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, values };
}

/** One message for every input that does not fit, naming each: the webhook's 422 and PrepareBuild's InvalidPipeline say the same. */
export function inputsProblemMessage(file: string, problems: readonly InputProblem[]): string {
  const names = [...new Set(problems.map((problem) => problem.input))].join(', ');
  return `${file}: the build's inputs do not fit the pipeline's (${names}): ${problems.map((problem) => problem.message).join('; ')}`;
}

/** The resolved values as the steps' variables. */
export function inputVariables(values: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(values ?? {}).map(([name, value]) => [inputVariable(name), value]));
}

/** `NAME=VALUE` (from a command line) -> its parts, or why not. The value may hold `=`. */
export function parseInputAssignment(text: string): { name: string; value: string } | { problem: string } {
  const at = text.indexOf('=');
  if (at <= 0) return { problem: `"${text}" is not NAME=VALUE` };
  const name = text.slice(0, at);
  const problem = inputNameProblem(name);
  if (problem) return { problem };
  return { name, value: text.slice(at + 1) };
}
