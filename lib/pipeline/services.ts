/**
 * `services:` (issue 15): containers that run beside a step, in its pod, for as long as it runs.
 * The pipeline lists some for every step and a step may list its own; each step gets the two lists
 * together, the pipeline's first. Their fields are checked by the steps' own rules (schema.ts hands
 * them in, so this module needs nothing of it); this adds the ports and the rules across services.
 * Pure, like schema.ts: it sees the data YAML produced and reports problems by path.
 */
import * as z from 'zod';
import type { ImageReference } from './image-reference.js';
import { CHECKOUT_STEP, type PullPolicy, type SecretEnv, type Service } from './types.js';

/** `service-start-grace` when the pipeline does not say: how long a service's ports may take to open. */
export const DEFAULT_SERVICE_START_GRACE_SECONDS = 2 * 60;

export const MAX_PORT = 65535;

/**
 * Names a service cannot take because the step's pod has containers by them (lib/kube/pod-manifest.ts
 * names each service's container after the service): the step's own (`step`), the checkout's
 * (`clone`, an init container with an ephemeral workspace), and the port gates (`port-5432`).
 */
export const RESERVED_SERVICE_NAMES = ['step', CHECKOUT_STEP] as const;
const PORT_GATE_NAME = /^port-\d+$/;
/** The runner's own helpers (the cache's restore and save containers: lib/kube/cache-containers.ts). */
export const RUNNER_CONTAINER_PREFIX = 'step-runner-';

/** Why a (DNS-label) service name is taken by the pod's own containers, or undefined. */
export function reservedServiceNameProblem(name: string): string | undefined {
  if ((RESERVED_SERVICE_NAMES as readonly string[]).includes(name) || PORT_GATE_NAME.test(name) || name.startsWith(RUNNER_CONTAINER_PREFIX)) {
    return `${JSON.stringify(name)} is the name of one of the step pod's own containers (${RESERVED_SERVICE_NAMES.map((n) => `"${n}"`).join(', ')}, "port-N" and "${RUNNER_CONTAINER_PREFIX}..." are taken); rename the service`;
  }
  return undefined;
}

/** The step's rules for the fields a service shares with steps. */
export interface ServiceFieldRules {
  name: z.ZodType<string, unknown>;
  image: z.ZodType<ImageReference, unknown>;
  env: z.ZodType<Record<string, string>, unknown>;
  secret: z.ZodType<SecretEnv, unknown>;
  pull: z.ZodType<PullPolicy, unknown>;
  /** How a wrong value is named in a message (schema.ts's describeValue). */
  describe: (value: unknown) => string;
}

/**
 * `entrypoint` and `command` as Kubernetes means a container's `command` and `args`
 * (kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/#notes):
 * `entrypoint` replaces the image's ENTRYPOINT and, as in Kubernetes and Docker, drops its CMD
 * too unless `command` is given; `command` alone replaces the CMD and keeps the ENTRYPOINT. Each
 * is a list of words run without a shell, or one word as text (as a step's one command may be).
 * Text with a space in it is refused, since it would reach the container as one word (the
 * executable "redis-server --port 6380"): such a line is written as a list. A YAML number or
 * boolean (`[--port, 6380]`) is taken as written (the loader keeps its source text).
 */
function wordsSchema(key: 'entrypoint' | 'command', describe: (value: unknown) => string) {
  const example = key === 'entrypoint' ? '[sh, -c]' : '[redis-server, --port, "6380"]';
  const word = z.unknown().transform((value, ctx) => {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    ctx.addIssue({ code: 'custom', message: `each word must be text, not ${describe(value)}` });
    return z.NEVER;
  });
  return z
    .unknown()
    .transform((value, ctx): unknown => {
      if (typeof value !== 'string') return value;
      if (/\s/.test(value.trim())) {
        ctx.addIssue({
          code: 'custom',
          message: `${JSON.stringify(value)} would be one word with spaces in it (no shell splits it); write the words as a list, e.g. ${example}`,
        });
        return z.NEVER;
      }
      return [value];
    })
    .pipe(
      z
        .array(word, { error: (issue) => `must be a list of words (e.g. ${example}) or one word, not ${describe(issue.input)}` })
        .min(1, { error: `must list at least one word; leave ${key} out to keep the image's own` })
        .superRefine((words, ctx) => {
          if (key === 'entrypoint' && words[0]?.trim() === '') ctx.addIssue({ code: 'custom', message: 'the first word is the program to run and must not be empty', path: [0] });
        }),
    );
}

/** The schema of one service, built on the steps' rules. */
export function serviceSchema(rules: ServiceFieldRules) {
  const { describe } = rules;
  const port = z
    .int({ error: (issue) => `each port must be a whole number from 1 to ${MAX_PORT}, not ${describe(issue.input)}` })
    .min(1, { error: (issue) => `${String(issue.input)} is not a TCP port; ports are 1 to ${MAX_PORT}` })
    .max(MAX_PORT, { error: (issue) => `${String(issue.input)} is not a TCP port; ports are 1 to ${MAX_PORT}` });
  const ports = z
    .array(port, { error: (issue) => `must be a list of TCP ports (e.g. [5432]), not ${describe(issue.input)}` })
    .superRefine((list, ctx) => {
      list.forEach((value, index) => {
        if (list.indexOf(value) !== index) ctx.addIssue({ code: 'custom', message: `port ${value} is listed twice`, path: [index] });
      });
    });
  return z.strictObject(
    {
      name: rules.name,
      image: rules.image,
      entrypoint: wordsSchema('entrypoint', describe).optional(),
      command: wordsSchema('command', describe).optional(),
      env: rules.env.optional(),
      ports: ports.optional(),
      secrets: z.array(rules.secret, { error: (issue) => `must be a list of {env, secret, key}, not ${describe(issue.input)}` }).optional(),
      pull: rules.pull.optional(),
    },
    { error: (issue) => `each service must be a map (name, image, command, env, ports, ...), not ${describe(issue.input)}` },
  );
}

/** The schema of a list of services (the pipeline's, or a step's own). */
export function serviceListSchema(service: ReturnType<typeof serviceSchema>, describe: (value: unknown) => string) {
  return z.array(service, { error: (issue) => `must be a list of services (each starting with "- name:"), not ${describe(issue.input)}` });
}

export type ServiceData = z.output<ReturnType<typeof serviceSchema>>;

/** A validated service in its normal form. */
export function normalService(given: ServiceData): Service {
  return {
    name: given.name,
    image: given.image.original,
    imageRef: given.image,
    ...(given.entrypoint ? { entrypoint: given.entrypoint } : {}),
    ...(given.command ? { command: given.command } : {}),
    env: given.env ?? {},
    ports: given.ports ?? [],
    secrets: given.secrets ?? [],
    pull: given.pull ?? 'if-not-present',
  };
}

/** The services that run beside a step: the pipeline's, then its own; undefined when none. */
export function stepServices(pipeline: readonly Service[] | undefined, own: readonly Service[] | undefined): Service[] | undefined {
  const all = [...(pipeline ?? []), ...(own ?? [])];
  return all.length > 0 ? all : undefined;
}

export interface ServiceProblem {
  path: (string | number)[];
  message: string;
}

/**
 * The rules across services, on the raw data so they are said along with any other problem: a
 * name once among the services a step gets (the pipeline's and its own) and not one of the pod's
 * own containers, a port once among them (they share the pod's network), and a variable from env or
 * from a secret, not both.
 */
export function serviceProblems(data: unknown): ServiceProblem[] {
  if (!isRecord(data)) return [];
  const shared = entriesOf(data['services'], ['services']);
  const problems = listProblems(shared, []);
  const steps = Array.isArray(data['steps']) ? data['steps'] : [];
  steps.forEach((step: unknown, index: number) => {
    if (!isRecord(step)) return;
    problems.push(...listProblems(entriesOf(step['services'], ['steps', index, 'services']), shared));
  });
  return problems;
}

interface Entry {
  at: (string | number)[];
  value: Record<string, unknown>;
}

function entriesOf(list: unknown, at: (string | number)[]): Entry[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((value: unknown, index: number) => (isRecord(value) ? [{ at: [...at, index], value }] : []));
}

/** `entries` after `before` (the pipeline's services, already checked on their own). */
function listProblems(entries: Entry[], before: Entry[]): ServiceProblem[] {
  const problems: ServiceProblem[] = [];
  const names = new Map<string, Entry>();
  const ports = new Map<number, Entry>();
  for (const entry of before) {
    const name = entry.value['name'];
    if (typeof name === 'string' && !names.has(name)) names.set(name, entry);
    for (const port of portsOf(entry)) if (!ports.has(port)) ports.set(port, entry);
  }
  for (const entry of entries) {
    const name = entry.value['name'];
    if (typeof name === 'string') {
      const reserved = reservedServiceNameProblem(name);
      const first = names.get(name);
      if (reserved) problems.push({ path: [...entry.at, 'name'], message: reserved });
      else if (first) problems.push({ path: [...entry.at, 'name'], message: `the name "${name}" is already used by ${describeEntry(first, entry)}; a step's services (the pipeline's and its own) need names of their own` });
      else names.set(name, entry);
    }
    const list = Array.isArray(entry.value['ports']) ? (entry.value['ports'] as unknown[]) : [];
    list.forEach((port, index) => {
      if (typeof port !== 'number') return;
      const first = ports.get(port);
      if (first && first !== entry) {
        problems.push({ path: [...entry.at, 'ports', index], message: `port ${port} is also listed by ${describeEntry(first, entry)}; a step's services share its pod's network, so each port can be one service's only` });
      } else if (!first) ports.set(port, entry);
    });
    problems.push(...secretClashes(entry));
  }
  return problems;
}

function portsOf(entry: Entry): number[] {
  const list = entry.value['ports'];
  return Array.isArray(list) ? list.filter((port): port is number => typeof port === 'number') : [];
}

/** `services[0]` of the same list, or `the pipeline's services[0]` from a step's own. */
function describeEntry(first: Entry, other: Entry): string {
  const index = first.at[first.at.length - 1];
  const sameList = first.at.length === other.at.length && first.at.slice(0, -1).every((segment, i) => segment === other.at[i]);
  return sameList ? `services[${index}]` : `the pipeline's services[${index}]`;
}

/** As for a step: a variable comes from env or from one secret. */
function secretClashes(entry: Entry): ServiceProblem[] {
  const problems: ServiceProblem[] = [];
  const env = entry.value['env'];
  const envKeys = new Set(isRecord(env) ? Object.keys(env) : []);
  const seen = new Set<string>();
  const secrets = Array.isArray(entry.value['secrets']) ? (entry.value['secrets'] as unknown[]) : [];
  secrets.forEach((secret, index) => {
    if (!isRecord(secret) || typeof secret['env'] !== 'string') return;
    const variable = secret['env'];
    const path = [...entry.at, 'secrets', index, 'env'];
    if (envKeys.has(variable)) problems.push({ path, message: `"${variable}" is also set in env; a variable comes either from env or from a secret, not both` });
    else if (seen.has(variable)) problems.push({ path, message: `"${variable}" is set by two secrets; each variable may come from one secret only` });
    seen.add(variable);
  });
  return problems;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
