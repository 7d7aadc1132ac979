/**
 * A step's `retry:` (issue 28): which failed attempts are tried again, in a fresh pod on the same
 * workspace, and how often. Only the Errors a fresh pod can fix may be listed; every other Error
 * would fail the same way again, so asking for it is refused with the reason. Pure, like schema.ts:
 * schema.ts hands in how a wrong value is named, so this module needs nothing of it.
 */
import * as z from 'zod';
import { DEFAULT_RETRY_ERRORS, isErrorName, notRetryableWhy, RETRYABLE_ERRORS, type RetryableError } from '../contract/index.js';
import { suggestKey } from './suggest.js';
import type { Step, StepRetry } from './types.js';

/** The most retries a step may ask for: each one runs the whole step again. */
export const MAX_STEP_RETRIES = 5;

/**
 * A step that says nothing: an attempt the node failed is tried twice more, in a fresh pod: the
 * Errors retried `default` (the cluster took the pod away; its node's container runtime kept
 * timing out).
 */
export const DEFAULT_STEP_RETRY: StepRetry = { max: 2, on: [...DEFAULT_RETRY_ERRORS] };

// z.enum wants a list with at least one name.
const RETRYABLE = RETRYABLE_ERRORS as readonly [RetryableError, ...RetryableError[]];

const allowed = () => `the Errors a fresh pod on the same workspace can fix are ${RETRYABLE_ERRORS.join(', ').replace(/, ([^,]*)$/, ' and $1')}`;

/** Why a `retry.on` entry is not an Error a step may retry (a retryable one gets undefined). */
export function retryErrorProblem(value: unknown, describe: (value: unknown) => string = JSON.stringify): string | undefined {
  if (typeof value !== 'string') return `each entry must be an Error name such as StepFailed, not ${describe(value)}; ${allowed()}`;
  if ((RETRYABLE_ERRORS as readonly string[]).includes(value)) return undefined;
  const why = isErrorName(value) ? notRetryableWhy(value) : undefined;
  if (why) return `${value} is not retried: ${why}; ${allowed()}`;
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

  const error = z.enum(RETRYABLE, { error: (issue) => retryErrorProblem(issue.input, describe) ?? 'is not retryable' });
  const on = z
    .preprocess(oneOrList, z.array(error, { error: (issue) => `must be a list of Errors (e.g. [StepInterrupted, StepFailed]), not ${describe(issue.input)}` }))
    .pipe(
      z
        .array(z.enum(RETRYABLE))
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
