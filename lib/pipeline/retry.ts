/**
 * A step's `retry:` (issue 28): which failed attempts are tried again, in a fresh pod on the same
 * workspace, and how often. Only the Errors a fresh pod can fix may be listed; every other Error
 * would fail the same way again, so asking for it is refused with the reason. Pure, like schema.ts:
 * schema.ts hands in how a wrong value is named, so this module needs nothing of it.
 */
import * as z from 'zod';
import { ErrorNames, type ErrorName } from '../contract/index.js';
import { suggestKey } from './suggest.js';
import type { Step, StepRetry } from './types.js';

/** The Errors a fresh pod on the same workspace can fix: what `retry.on` may list. */
export const RETRYABLE_ERRORS = [
  ErrorNames.StepInterrupted,
  ErrorNames.StepFailed,
  ErrorNames.StepTimedOut,
  ErrorNames.PodLost,
  ErrorNames.ServiceFailed,
  ErrorNames.ContainerRuntimeTimeout,
] as const satisfies readonly ErrorName[];
export type RetryableError = (typeof RETRYABLE_ERRORS)[number];

/** The most retries a step may ask for: each one runs the whole step again. */
export const MAX_STEP_RETRIES = 5;

/**
 * A step that says nothing: an attempt the node failed is tried twice more, in a fresh pod: one the
 * cluster took away (its node went), or one whose node's container runtime kept timing out.
 */
export const DEFAULT_STEP_RETRY: StepRetry = { max: 2, on: [ErrorNames.StepInterrupted, ErrorNames.ContainerRuntimeTimeout] };

const FRESH_POD_CANNOT = 'a fresh pod cannot fix it';

/**
 * Why each other Error is not retried. The `satisfies` makes a new Error name a compile error here
 * until someone decides whether a fresh pod can fix it.
 */
const NOT_RETRYABLE = {
  InvalidPipeline: `it is found when the pipeline file is read, before any pod runs; ${FRESH_POD_CANNOT}`,
  InvalidImage: `it is found when the pipeline file is read, before any pod runs; ${FRESH_POD_CANNOT}`,
  ImagePullFailed: `a fresh pod pulls the same image with the same pull secrets (a passing registry error is already waited out: image-pull-grace); ${FRESH_POD_CANNOT}`,
  PodConfigError: `the pod's configuration (its Secrets, ConfigMaps, volumes) is the same for every attempt; ${FRESH_POD_CANNOT}`,
  Unschedulable: `a fresh pod asks for the same resources, node selector and tolerations; ${FRESH_POD_CANNOT}`,
  CheckoutFailed: `it is the build's checkout, not the step, and every attempt shares the workspace; ${FRESH_POD_CANNOT}`,
  WorkspaceUnavailable: `it is the build's workspace, not the step, and every attempt shares the workspace; ${FRESH_POD_CANNOT}`,
  CredentialsUnavailable: `the runner itself could not get credentials, not the step; ${FRESH_POD_CANNOT}`,
  KubernetesUnavailable: `the runner itself could not reach the cluster, not the step; ${FRESH_POD_CANNOT}`,
  PodStalled: `a fresh pod names the same scheduler and scheduling gates, and waits the same way for what no one answered; ${FRESH_POD_CANNOT}`,
  GitHubUnavailable: `it is found when the pipeline file is read from GitHub, before any pod runs; ${FRESH_POD_CANNOT}`,
  Superseded: 'a newer build of the same concurrency group stopped the build, not the step; trying again would only be stopped again',
} as const satisfies Record<Exclude<ErrorName, RetryableError>, string>;

const allowed = () => `the Errors a fresh pod on the same workspace can fix are ${RETRYABLE_ERRORS.join(', ').replace(/, ([^,]*)$/, ' and $1')}`;

/** Why a `retry.on` entry is not an Error a step may retry (a retryable one gets undefined). */
export function retryErrorProblem(value: unknown, describe: (value: unknown) => string = JSON.stringify): string | undefined {
  if (typeof value !== 'string') return `each entry must be an Error name such as StepFailed, not ${describe(value)}; ${allowed()}`;
  if ((RETRYABLE_ERRORS as readonly string[]).includes(value)) return undefined;
  if (Object.hasOwn(NOT_RETRYABLE, value)) return `${value} is not retried: ${NOT_RETRYABLE[value as keyof typeof NOT_RETRYABLE]}; ${allowed()}`;
  const suggestion = suggestKey(value, RETRYABLE_ERRORS);
  const hint = suggestion ? ` (did you mean ${suggestion}?)` : '';
  return `${JSON.stringify(value)} is not the name of an Error a step ends with${hint}; ${allowed()}`;
}

// One Error is a list of one, as with commands and when.event.
const oneOrList = (value: unknown) => (typeof value === 'string' ? [value] : value);

/** The schema of a step's `retry:`: a number of retries, or `{max, on}`. */
export function retrySchema(describe: (value: unknown) => string) {
  const max = z
    .int({ error: (issue) => `must be a whole number of retries from 0 to ${MAX_STEP_RETRIES}, not ${describe(issue.input)}` })
    .min(0, { error: 'must be 0 (no retries, not even for StepInterrupted) or more' })
    .max(MAX_STEP_RETRIES, { error: (issue) => `${String(issue.input)} is too many: at most ${MAX_STEP_RETRIES} retries, each of which runs the whole step again` });

  const error = z.enum(RETRYABLE_ERRORS, { error: (issue) => retryErrorProblem(issue.input, describe) ?? 'is not retryable' });
  const on = z
    .preprocess(oneOrList, z.array(error, { error: (issue) => `must be a list of Errors (e.g. [StepInterrupted, StepFailed]), not ${describe(issue.input)}` }))
    .pipe(
      z
        .array(z.enum(RETRYABLE_ERRORS))
        .min(1, { error: `must list at least one Error (leave on out for ${DEFAULT_STEP_RETRY.on.join(', ')} alone; "max: 0" turns retries off)` })
        .superRefine((list, ctx) => {
          list.forEach((name, index) => {
            if (list.indexOf(name) !== index) ctx.addIssue({ code: 'custom', message: `${name} is listed twice`, path: [index] });
          });
        }),
    );

  const map = z.strictObject(
    { max: max.optional(), on: on.optional() },
    {
      error: (issue) =>
        `must be a number of retries (0 to ${MAX_STEP_RETRIES}) or a map with max and on (e.g. {max: 2, on: [StepInterrupted, StepFailed]}), not ${describe(issue.input)}`,
    },
  );

  // `retry: 2` is `{max: 2}`. Not a union: zod folds a union's nested problems (an Error `on` may
  // not list) into one "matches neither", so each kind of value is checked by its own schema here.
  const retry = z.unknown().transform((value, ctx): number | z.output<typeof map> => {
    const parsed = typeof value === 'number' ? max.safeParse(value, { reportInput: true }) : map.safeParse(value, { reportInput: true });
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
    return z.NEVER;
  });
  return { retry, map };
}

export type RetryData = z.output<ReturnType<typeof retrySchema>['retry']>;

/** A step's effective retry from what it wrote (or nothing): the defaults fill what it left out. */
export function normalRetry(given: RetryData | undefined): StepRetry {
  const written = typeof given === 'number' ? { max: given } : (given ?? {});
  return { max: written.max ?? DEFAULT_STEP_RETRY.max, on: [...(written.on ?? DEFAULT_STEP_RETRY.on)] };
}

/**
 * The retry a step runs with. A parsed step always carries it; a step made some other way (a test's,
 * or state data written before `retry:` existed) gets the default.
 */
export function stepRetry(step: Pick<Step, 'retry'>): StepRetry {
  return step.retry ? { max: step.retry.max, on: [...step.retry.on] } : normalRetry(undefined);
}
