/**
 * A deployment's schedules (issue 40): the file params.schedulesFile names (schedules.yml), read
 * at package time by lib/deploy/schedules.cjs, which makes one EventBridge Scheduler schedule of
 * each, starting the build state machine directly (Scheduler's Step Functions StartExecution
 * target: no Lambda in between). Pure: the file's rules, and the execution input each schedule
 * starts, which is the input a webhook would produce for event `schedule`, less what only the
 * moment it fires can know (the ref's head commit, the pipeline file at it, the build's id), left
 * to PrepareBuild as a DeferredLookup.
 *
 *   nightly:                          # the schedule's name: lower case, digits, "-"
 *     schedule: cron(0 3 * * ? *)     # or rate(6 hours); EventBridge Scheduler's syntax
 *     timezone: Europe/Paris          # IANA; default UTC
 *     repository: acme/site           # a GitHub repository: its .step-runner.yml at the ref's head
 *     ref: refs/heads/main
 *     inputs: {target: staging}       # the pipeline's `inputs:` (checked when it fires)
 *     enabled: false                  # optional: made, but DISABLED
 */
import type { PendingBuildInput } from '../contract/index.js';
import { inputNameProblem, INPUT_VARIABLE_PREFIX, MAX_INPUTS } from '../pipeline/index.js';
import { Triggers } from './build-request.js';
import { PIPELINE_FILE } from './pipeline-source.js';

export interface Schedule {
  name: string;
  /** `cron(...)` or `rate(...)`, as EventBridge Scheduler reads it. */
  expression: string;
  /** IANA time zone the expression is read in. */
  timezone: string;
  repository: string;
  ref: string;
  inputs: Record<string, string>;
  enabled: boolean;
}

export type ScheduleCheck = { ok: true; value: Schedule[] } | { ok: false; problems: string[] };

const NAME = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;
const REPOSITORY = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const KEYS = ['schedule', 'timezone', 'repository', 'ref', 'inputs', 'enabled'];
export const DEFAULT_TIMEZONE = 'UTC';

/** The file as YAML gave it -> the schedules, or every problem, each naming its schedule and field. */
export function checkSchedules(declared: unknown): ScheduleCheck {
  if (declared === null || declared === undefined) return { ok: true, value: [] };
  if (typeof declared !== 'object' || Array.isArray(declared)) return { ok: false, problems: ['must be a map of schedule names to schedules'] };
  const problems: string[] = [];
  const value: Schedule[] = [];
  for (const [name, given] of Object.entries(declared as Record<string, unknown>)) {
    const found: string[] = [];
    const problem = (field: string, message: string) => found.push(`schedule "${name}": ${field}: ${message}`);
    if (!NAME.test(name)) found.push(`schedule "${name}": the name must be 1 to 40 lower-case letters, digits and "-", starting and ending with a letter or digit`);
    if (typeof given !== 'object' || given === null || Array.isArray(given)) {
      problems.push(...found, `schedule "${name}": must be a map with schedule, timezone, repository, ref and inputs`);
      continue;
    }
    const entry = given as Record<string, unknown>;
    for (const key of Object.keys(entry)) if (!KEYS.includes(key)) problem(key, `unknown field (expected one of: ${KEYS.join(', ')})`);
    const expression = entry['schedule'];
    if (typeof expression !== 'string') problem('schedule', 'missing: a cron(...) or rate(...) expression');
    else {
      const why = scheduleExpressionProblem(expression);
      if (why) problem('schedule', why);
    }
    const timezone = entry['timezone'] ?? DEFAULT_TIMEZONE;
    // ScheduleExpressionTimezone: at most 50 characters, longer than any IANA name.
    if (typeof timezone !== 'string' || timezone.length > 50 || !isTimeZone(timezone)) problem('timezone', `${JSON.stringify(timezone)} is not an IANA time zone (such as UTC or Europe/Paris)`);
    const repository = entry['repository'];
    if (typeof repository !== 'string' || !REPOSITORY.test(repository)) problem('repository', `must be a GitHub repository as owner/name, not ${JSON.stringify(repository ?? null)}`);
    const ref = entry['ref'];
    if (typeof ref !== 'string' || !/^refs\/(heads|tags)\/[^\s~^:?*[\\]+$/.test(ref)) problem('ref', `must be a branch or tag ref such as refs/heads/main, not ${JSON.stringify(ref ?? null)}`);
    const inputs = inputsOf(entry['inputs'], (message) => problem('inputs', message));
    const enabled = entry['enabled'] ?? true;
    if (typeof enabled !== 'boolean') problem('enabled', `must be true or false, not ${JSON.stringify(enabled)}`);
    if (found.length > 0) {
      problems.push(...found);
      continue;
    }
    value.push({ name, expression: expression as string, timezone: timezone as string, repository: repository as string, ref: ref as string, inputs, enabled: enabled as boolean });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}

function inputsOf(given: unknown, problem: (message: string) => void): Record<string, string> {
  if (given === undefined || given === null) return {};
  if (typeof given !== 'object' || Array.isArray(given)) {
    problem('must be a map of input names to values');
    return {};
  }
  const entries = Object.entries(given as Record<string, unknown>);
  if (entries.length > MAX_INPUTS) problem(`gives ${entries.length} inputs; a pipeline has at most ${MAX_INPUTS}`);
  const inputs: Record<string, string> = {};
  for (const [name, value] of entries) {
    const bad = inputNameProblem(name);
    if (bad) problem(bad);
    // YAML reads `3` and `true` as a number and a boolean: an input is text.
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') inputs[name] = String(value);
    else problem(`${name}: must be text, not ${value === null ? 'an empty value' : typeof value} (${INPUT_VARIABLE_PREFIX}${name.toUpperCase()} is text)`);
  }
  return inputs;
}

/**
 * EventBridge Scheduler's recurring expressions (Scheduler User Guide, "Schedule types":
 * https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html): `rate(value unit)`,
 * a positive whole value and minute(s), hour(s) or day(s); `cron(minutes hours day-of-month month
 * day-of-week year)`, six fields, with `?` in one of day-of-month and day-of-week. One-time
 * `at(...)` schedules are not builds that repeat, and are refused.
 */
export function scheduleExpressionProblem(expression: string): string | undefined {
  // AWS::Scheduler::Schedule's ScheduleExpression: 1 to 256 characters.
  if (expression.length > 256) return `is ${expression.length} characters long; at most 256 are allowed`;
  const rate = /^rate\((.*)\)$/.exec(expression);
  if (rate) return rateProblem(rate[1]!.trim());
  const cron = /^cron\((.*)\)$/.exec(expression);
  if (cron) return cronProblem(cron[1]!.trim());
  if (expression.startsWith('at(')) return 'at(...) runs once: a schedule here repeats; use cron(...) or rate(...)';
  return `${JSON.stringify(expression)} is neither cron(minutes hours day-of-month month day-of-week year) nor rate(value unit)`;
}

function rateProblem(body: string): string | undefined {
  const match = /^(\d+) (minute|minutes|hour|hours|day|days)$/.exec(body);
  if (!match) return `rate(${body}): must be rate(value unit), a whole value and minute(s), hour(s) or day(s), e.g. rate(6 hours)`;
  const value = Number(match[1]);
  if (value < 1) return `rate(${body}): the value must be 1 or more`;
  // As EventBridge documents rate expressions: 1 takes the singular unit, more the plural.
  const plural = match[2]!.endsWith('s');
  if (value === 1 && plural) return `rate(${body}): write rate(1 ${match[2]!.slice(0, -1)})`;
  if (value > 1 && !plural) return `rate(${body}): write rate(${value} ${match[2]}s)`;
  return undefined;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface CronField {
  name: string;
  min: number;
  max: number;
  names?: string[];
  /** The wildcards besides `, - * /`. */
  extra: RegExp;
}

const CRON_FIELDS: CronField[] = [
  { name: 'minutes', min: 0, max: 59, extra: /^$/ },
  { name: 'hours', min: 0, max: 23, extra: /^$/ },
  { name: 'day-of-month', min: 1, max: 31, extra: /^(\?|L|LW|\d{1,2}W)$/ },
  { name: 'month', min: 1, max: 12, names: MONTHS, extra: /^$/ },
  { name: 'day-of-week', min: 1, max: 7, names: DAYS, extra: /^(\?|L|\d?L|(\d|[A-Z]{3})#[1-5])$/ },
  { name: 'year', min: 1970, max: 2199, extra: /^$/ },
];

function cronProblem(body: string): string | undefined {
  const fields = body.split(/\s+/);
  if (fields.length !== 6) return `cron(${body}): has ${fields.length} fields; EventBridge Scheduler's cron has six: minutes hours day-of-month month day-of-week year`;
  for (const [index, spec] of CRON_FIELDS.entries()) {
    const text = fields[index]!.toUpperCase();
    if (!cronFieldOk(text, spec)) return `cron(${body}): ${spec.name} "${fields[index]}" is not ${spec.min}-${spec.max}${spec.names ? ` or ${spec.names[0]}-${spec.names.at(-1)}` : ''} with , - * /${spec.name.startsWith('day') ? ' ?' : ''}`;
  }
  const [dayOfMonth, dayOfWeek] = [fields[2]!, fields[4]!];
  if ((dayOfMonth === '?') === (dayOfWeek === '?')) return `cron(${body}): one of day-of-month and day-of-week must be "?" (and only one)`;
  return undefined;
}

function cronFieldOk(text: string, spec: CronField): boolean {
  if (spec.extra.test(text)) return true;
  return text.split(',').every((part) => {
    const [range, step, ...more] = part.split('/');
    if (more.length > 0 || range === undefined) return false;
    if (step !== undefined && !(/^\d+$/.test(step) && Number(step) >= 1)) return false;
    if (range === '*') return true;
    const bounds = range.split('-');
    if (bounds.length > 2) return false;
    return bounds.every((bound) => valueOf(bound, spec) !== undefined);
  });
}

function valueOf(text: string, spec: CronField): number | undefined {
  const named = spec.names?.indexOf(text) ?? -1;
  if (named >= 0) return named + 1;
  if (!/^\d+$/.test(text)) return undefined;
  const value = Number(text);
  return value >= spec.min && value <= spec.max ? value : undefined;
}

/** An IANA name Node's ICU knows (Intl throws a RangeError for any other). */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return name.length > 0;
  } catch {
    return false;
  }
}

/**
 * The execution input a schedule starts (the Scheduler target's `Input`): the build as a webhook
 * would name it for event `schedule`, with its GitHub repository to clone, and lookups left to
 * PrepareBuild: the ref's head commit (so an unchanged commit is built again, under a new
 * execution: Scheduler's StartExecution gives each a name of its own), the build id derived from
 * that execution's name, and the pipeline file at the commit.
 */
export function scheduleExecutionInput(schedule: Schedule, namespace?: string): PendingBuildInput {
  return {
    build: {
      trigger: Triggers.githubSchedule,
      repository: schedule.repository,
      ref: schedule.ref,
      event: 'schedule',
      inputs: schedule.inputs,
    },
    source: { url: `https://github.com/${schedule.repository}.git`, ref: schedule.ref, credentials: 'github' },
    ...(namespace ? { namespace } : {}),
    lookup: { why: `schedule "${schedule.name}" names ${schedule.ref}, not a commit`, commit: true, pipelineFile: PIPELINE_FILE },
  };
}
