/**
 * The pipeline file contract (docs/contracts.md#pipeline-file) as a zod schema, plus the checks that span several steps.
 * Pure: it sees the data YAML produced, never the text, and reports problems by path; the loader
 * turns paths into lines.
 */
import * as z from 'zod';
import { checkImageReference } from './image-reference.js';
import { formatDuration, parseDuration } from './duration.js';
import { dnsLabelProblem, dnsSubdomainProblem, envNameProblem, labelKeyProblem, labelValueProblem, secretKeyProblem } from './names.js';
import { quantityProblem, type ResourceKind } from './quantity.js';
import { suggestKey } from './suggest.js';
import { WhenEvents, WhenStatuses, type StepCondition } from './when.js';
import { pathGlobProblem, type PathFilter } from './paths.js';
import { needsProblems } from './needs.js';
import { normalService, serviceListSchema, serviceProblems, serviceSchema, stepServices } from './services.js';
import { cacheProblems, cacheSchemas, normalArtifacts, normalCache, stepCache } from './cache.js';
import { normalRetry, retrySchema } from './retry.js';
import { concurrencySchema, normalConcurrency } from './concurrency.js';
import {
  BUILD_TIME_LIMIT_SECONDS,
  CHECKOUT_STEP,
  DEFAULT_CHECKOUT,
  DEFAULT_STEP_TIMEOUT_SECONDS,
  PullPolicies,
  TaintEffects,
  TolerationOperators,
  type Pipeline,
  type PullPolicy,
  type Toleration,
} from './types.js';

export const MAX_STEPS = 50;

export const ProblemKinds = {
  /** The image reference is malformed: the loader raises InvalidImage for these. */
  image: 'image',
  /** A key the contract does not have; the message already names it. */
  unknownKey: 'unknown-key',
  other: 'other',
} as const;
export type ProblemKind = (typeof ProblemKinds)[keyof typeof ProblemKinds];

export type PathSegment = string | number;

export interface SchemaProblem {
  /** Where in the data, e.g. ["steps", 1, "env", "1FOO"]. */
  path: PathSegment[];
  message: string;
  kind: ProblemKind;
  /** For image problems, the reference as written. */
  image?: string;
  /** For unknown keys: the known key it was probably meant to be. */
  suggestion?: string;
  /** A required field is absent (dropped when a misspelt key next to it suggests that field). */
  missing?: boolean;
}

/** A validated pipeline before it is tied to a file (the loader adds `file` and each step's `line`). */
export type PipelineData = Omit<Pipeline, 'file'>;

export type ValidationResult = { ok: true; pipeline: PipelineData } | { ok: false; problems: SchemaProblem[] };

const IMAGE_PROBLEM = 'image';

const text = (what: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `missing (${what})` : `must be text, not ${describeValue(issue.input)}`) });

/** Runs a "why not" rule as a zod refinement. */
const obeys = (rule: (value: string) => string | undefined) => (value: string, ctx: z.RefinementCtx) => {
  const problem = rule(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
};

const durationSeconds = z.unknown().transform((value, ctx) => {
  const result = parseDuration(value);
  if (result.ok) return result.seconds;
  ctx.addIssue({ code: 'custom', message: result.reason });
  return z.NEVER;
});

const command = z
  .string({ error: (issue) => `each command must be text, not ${describeValue(issue.input)} (quote it if YAML read it as something else)` })
  .refine((value) => value.trim() !== '', { error: 'a command must not be empty' });

// A single string is one command; YAML writers often forget the list for a one-liner.
const commands = z.preprocess(
  (value) => (typeof value === 'string' ? [value] : value),
  z
    .array(command, {
      error: (issue) =>
        issue.input === undefined ? 'missing: every step needs at least one command' : `must be a list of commands, not ${describeValue(issue.input)}`,
    })
    .min(1, { error: 'must list at least one command' }),
);

/**
 * Env values are strings. YAML reads `true`, `8080` and `1.10` as booleans and numbers; the loader
 * hands those over exactly as written (so `1.10` stays "1.10"), and data given as JS values has
 * numbers and booleans turned into their text. Null (`KEY:` with nothing after it) is rejected
 * because an empty string is more often a mistake than a wish: write `KEY: ""` for that.
 */
const envValue = z.unknown().transform((value, ctx) => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  ctx.addIssue({
    code: 'custom',
    message: value === null || value === undefined ? 'has no value; write "" for an empty string' : `must be text, not ${describeValue(value)}`,
  });
  return z.NEVER;
});

const env = z
  .record(z.string(), envValue, { error: (issue) => `must be a map of NAME: value, not ${describeValue(issue.input)}` })
  .superRefine((record, ctx) => {
    for (const name of Object.keys(record)) {
      const problem = envNameProblem(name);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, path: [name] });
    }
  });

const quantity = (kind: ResourceKind) =>
  z.unknown().transform((value, ctx) => {
    const written = typeof value === 'number' ? String(value) : value;
    if (typeof written !== 'string') {
      ctx.addIssue({ code: 'custom', message: `must be a quantity such as ${kind === 'cpu' ? '500m' : '512Mi'}, not ${describeValue(value)}` });
      return z.NEVER;
    }
    const problem = quantityProblem(written, kind);
    if (problem) {
      ctx.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    return written;
  });

const resources = z.strictObject(
  { cpu: quantity('cpu').optional(), memory: quantity('memory').optional() },
  { error: (issue) => `must be a map with cpu and/or memory, not ${describeValue(issue.input)}` },
);

const secret = z.strictObject(
  {
    env: text('the environment variable the step sees').superRefine(obeys(envNameProblem)),
    secret: text('the Kubernetes Secret to read').superRefine(obeys(dnsSubdomainProblem)),
    key: text('the key inside the Secret').superRefine(obeys(secretKeyProblem)),
  },
  { error: (issue) => `each secret must be a map with env, secret and key, not ${describeValue(issue.input)}` },
);

/**
 * A label value: text, or a YAML number or boolean kept as written (`gpu: true` selects the label
 * value "true", which Kubernetes itself would refuse as a boolean).
 */
const labelValue = z.unknown().transform((value, ctx) => {
  const written = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
  if (written === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: value === null || value === undefined ? 'has no value; write "" for an empty one' : `must be text, not ${describeValue(value)}`,
    });
    return z.NEVER;
  }
  const problem = labelValueProblem(written);
  if (problem) {
    ctx.addIssue({ code: 'custom', message: problem });
    return z.NEVER;
  }
  return written;
});

// Keys are checked on the raw data (nodeSelectorKeyProblems), so a bad value does not hide them.
const nodeSelector = z.record(z.string(), labelValue, {
  error: (issue) => `must be a map of node label: value (e.g. "kubernetes.io/arch: arm64"), not ${describeValue(issue.input)}`,
});

/** Label keys of a node selector as written; run on the raw data, as the rules across fields are. */
function nodeSelectorKeyProblems(value: unknown): { path: PathSegment[]; message: string }[] {
  if (!isRecord(value)) return [];
  return Object.keys(value).flatMap((key) => {
    const message = labelKeyProblem(key);
    return message ? [{ path: [key], message }] : [];
  });
}

const toleration = z.strictObject(
  {
    key: text('the taint key').superRefine(obeys(labelKeyProblem)).optional(),
    operator: z.enum(TolerationOperators, { error: (issue) => `must be ${TolerationOperators.join(' or ')}, not ${describeValue(issue.input)}` }).optional(),
    value: labelValue.optional(),
    effect: z.enum(TaintEffects, { error: (issue) => `must be one of ${TaintEffects.join(', ')}, not ${describeValue(issue.input)}` }).optional(),
    'toleration-seconds': z
      .int({ error: (issue) => `must be a whole number of seconds, not ${describeValue(issue.input)}` })
      .min(0, { error: 'must be 0 or more' })
      .optional(),
  },
  { error: (issue) => `each toleration must be a map with key, operator, value, effect and/or toleration-seconds, not ${describeValue(issue.input)}` },
);

/**
 * Kubernetes' rules across a toleration's fields (ValidateTolerations), on the raw data so they
 * are said along with any other problem of the same toleration.
 */
function tolerationRuleProblems(value: unknown): { path: PathSegment[]; message: string }[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry: unknown, index: number) => {
    if (!isRecord(entry)) return [];
    const operator = entry['operator'] ?? 'Equal';
    const problems: { path: PathSegment[]; message: string }[] = [];
    if (operator === 'Exists' && entry['value'] !== undefined && entry['value'] !== '') {
      problems.push({ path: [index, 'value'], message: 'must be left out with "operator: Exists", which matches any value of the key' });
    }
    if (entry['key'] === undefined && operator === 'Equal') {
      problems.push({
        path: [index, 'key'],
        message: 'missing: a toleration with operator Equal needs the taint\'s key (only "operator: Exists" may leave it out, to tolerate every taint)',
      });
    }
    if (entry['toleration-seconds'] !== undefined && entry['effect'] !== 'NoExecute') {
      problems.push({ path: [index, 'toleration-seconds'], message: 'applies to "effect: NoExecute" only (how long the pod stays once such a taint appears)' });
    }
    return problems;
  });
}

const tolerations = z.array(toleration, {
  error: (issue) => `must be a list of tolerations ({key, operator, value, effect}), not ${describeValue(issue.input)}`,
});

/** `pull-secrets`: names of kubernetes.io/dockerconfigjson Secrets in the build namespace. */
const pullSecrets = z.array(text('a Secret name').superRefine(obeys(dnsSubdomainProblem)), {
  error: (issue) => `must be a list of Secret names (kubernetes.io/dockerconfigjson Secrets in the build namespace), not ${describeValue(issue.input)}`,
});

const checkoutOptions = z.strictObject(
  {
    depth: z
      .int({ error: (issue) => `must be a whole number of commits (0 for the whole history), not ${describeValue(issue.input)}` })
      .min(0, { error: 'must be 0 (the whole history) or more' })
      .optional(),
    submodules: z.boolean({ error: (issue) => `must be true or false, not ${describeValue(issue.input)}` }).optional(),
  },
  { error: (issue) => `must be false, or a map with depth and/or submodules, not ${describeValue(issue.input)}` },
);

// `checkout: true` says what the default already does.
const checkout = z.preprocess((value) => (value === true ? {} : value), z.union([z.literal(false), checkoutOptions], {
  error: (issue) => `must be false, or a map with depth and/or submodules, not ${describeValue(issue.input)}`,
}));

// A single branch or event is a list of one, as with commands.
const oneOrList = (value: unknown) => (typeof value === 'string' ? [value] : value);

const branchPattern = z
  .string({ error: (issue) => `each branch must be text (a name or a glob such as "release/*"), not ${describeValue(issue.input)}` })
  .refine((value) => value.trim() !== '', { error: 'a branch must not be empty' });

const pathGlob = z
  .string({ error: (issue) => `each path must be text (a file path or a glob such as "src/**"), not ${describeValue(issue.input)}` })
  .superRefine(obeys(pathGlobProblem));

const pathList = (what: string) =>
  z
    .preprocess(oneOrList, z.array(pathGlob, { error: (issue) => `must be a list of file paths or globs (such as "src/**"), not ${describeValue(issue.input)}` }))
    .pipe(z.array(z.string()).min(1, { error: `must list at least one path (${what})` }));

const pathFields = {
  paths: pathList('the step runs when a changed file matches one').optional(),
  'paths-ignore': pathList('the step runs unless every changed file matches one').optional(),
};

/** As GitHub Actions refuses `paths` beside `paths-ignore` for one event: they would say two things at once. */
const onePathFilter = (given: { paths?: string[] | undefined; 'paths-ignore'?: string[] | undefined }, ctx: z.RefinementCtx) => {
  if (given.paths !== undefined && given['paths-ignore'] !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['paths-ignore'],
      message: 'goes with paths on the same when: use one or the other (paths: the files that make it run; paths-ignore: the files that alone do not)',
    });
  }
};

/** The pipeline's own `when`: the files every step of it is for. */
const pipelineWhen = z
  .strictObject(pathFields, { error: (issue) => `must be a map with paths or paths-ignore, not ${describeValue(issue.input)}` })
  .superRefine(onePathFilter);

const when = z.strictObject(
  {
    ...pathFields,
    branch: z
      .preprocess(oneOrList, z.array(branchPattern, { error: (issue) => `must be a list of branch names or patterns, not ${describeValue(issue.input)}` }))
      .pipe(z.array(z.string()).min(1, { error: 'must list at least one branch' }))
      .optional(),
    event: z
      .preprocess(
        oneOrList,
        z.array(z.enum(WhenEvents, { error: (issue) => `each event must be one of ${WhenEvents.join(', ')}, not ${describeValue(issue.input)}` }), {
          error: (issue) => `must be a list of events (${WhenEvents.join(', ')}), not ${describeValue(issue.input)}`,
        }),
      )
      .pipe(z.array(z.enum(WhenEvents)).min(1, { error: 'must list at least one event' }))
      .optional(),
    status: z
      .preprocess(
        oneOrList,
        z.array(z.enum(WhenStatuses, { error: (issue) => `each status must be ${WhenStatuses.join(' or ')}, not ${describeValue(issue.input)}` }), {
          error: (issue) => `must be a list of statuses (${WhenStatuses.join(', ')}), not ${describeValue(issue.input)}`,
        }),
      )
      .pipe(
        z
          .array(z.enum(WhenStatuses))
          .min(1, { error: 'must list at least one status' })
          .refine((statuses) => new Set(statuses).size === 1, {
            error:
              'lists both success and failure: a step runs either while the build has not failed (success, the default) or after it has (failure); for a step that must run either way, write two steps',
          }),
      )
      .optional(),
  },
  { error: (issue) => `must be a map with branch, event, status, paths and/or paths-ignore, not ${describeValue(issue.input)}` },
).superRefine(onePathFilter);

const pullPolicyNames = Object.keys(PullPolicies) as [PullPolicy, ...PullPolicy[]];

// The names are checked across steps (crossStepProblems), where the other steps are known.
const needs = z.preprocess(
  oneOrList,
  z.array(text('a step name'), { error: (issue) => `must be a list of step names (or [] to start with the build), not ${describeValue(issue.input)}` }),
);

/** The most steps `max-parallel` may ask for: what an inline Map runs at once. */
export const MAX_PARALLEL_LIMIT = 40;

/** An image reference, checked before any pod exists; a malformed one is an image problem (InvalidImage). */
const imageReference = (what: string) =>
  text(what).superRefine((image, ctx) => {
    const result = checkImageReference(image);
    if (!result.ok) ctx.addIssue({ code: 'custom', message: result.reason, params: { kind: IMAGE_PROBLEM, image } });
  });

const pullPolicy = z.enum(pullPolicyNames, { error: (issue) => `must be one of ${pullPolicyNames.join(', ')}, not ${describeValue(issue.input)}` });

// `services:` (services.ts): the fields a service shares with steps follow the steps' rules.
const service = serviceSchema({
  name: text('every service needs a name').superRefine(obeys(dnsLabelProblem)),
  image: imageReference('every service needs an image'),
  env,
  secret,
  pull: pullPolicy,
  describe: describeValue,
});
const services = serviceListSchema(service, describeValue);

// `cache:` and `artifacts:` (cache.ts).
const caches = cacheSchemas(describeValue);

// `retry:` (retry.ts).
const retry = retrySchema(describeValue);

// `concurrency:` (concurrency.ts).
const concurrency = concurrencySchema(describeValue);

export const stepSchema = z.strictObject(
  {
    name: text('every step needs a name').superRefine(obeys(dnsLabelProblem)),
    image: imageReference('every step needs an image'),
    commands,
    env: env.optional(),
    pull: pullPolicy.optional(),
    timeout: durationSeconds.optional(),
    'pending-timeout': durationSeconds.optional(),
    resources: resources.optional(),
    secrets: z.array(secret, { error: (issue) => `must be a list of {env, secret, key}, not ${describeValue(issue.input)}` }).optional(),
    'image-check': z.boolean({ error: (issue) => `must be true or false, not ${describeValue(issue.input)}` }).optional(),
    'node-selector': nodeSelector.optional(),
    tolerations: tolerations.optional(),
    when: when.optional(),
    needs: needs.optional(),
    services: services.optional(),
    cache: caches.list.optional(),
    artifacts: caches.artifacts.optional(),
    retry: retry.retry.optional(),
  },
  { error: (issue) => `each step must be a map (name, image, commands, ...), not ${describeValue(issue.input)}` },
);

export const pipelineSchema = z.strictObject(
  {
    version: z.literal(1, {
      error: (issue) => (issue.input === undefined ? 'missing: write "version: 1" at the top' : `must be 1 (the only version there is), not ${describeValue(issue.input)}`),
    }),
    steps: z
      .array(stepSchema, {
        error: (issue) =>
          issue.input === undefined
            ? 'missing: a pipeline needs a list of steps'
            : `must be a list of steps (each starting with "- name:"), not ${describeValue(issue.input)}`,
      })
      .min(1, { error: 'must list at least one step' })
      .max(MAX_STEPS, { error: `lists too many steps; at most ${MAX_STEPS} are allowed` }),
    'image-pull-grace': durationSeconds.optional(),
    'pending-timeout': durationSeconds.optional(),
    checkout: checkout.optional(),
    when: pipelineWhen.optional(),
    'pull-secrets': pullSecrets.optional(),
    services: services.optional(),
    'service-start-grace': durationSeconds.optional(),
    cache: caches.list.optional(),
    concurrency: concurrency.setting.optional(),
    'max-parallel': z
      .int({ error: (issue) => `must be a whole number of steps, not ${describeValue(issue.input)}` })
      .min(1, { error: 'must be 1 or more' })
      .max(MAX_PARALLEL_LIMIT, { error: `must be at most ${MAX_PARALLEL_LIMIT}, the most steps Step Functions runs at once in one build` })
      .optional(),
  },
  { error: (issue) => `a pipeline file must be a map with "version" and "steps", not ${describeValue(issue.input)}` },
);

/** The keys each map of the file may have, from the schema itself (the README's key table is checked against it). */
export const knownKeys = {
  pipeline: Object.keys(pipelineSchema.shape),
  step: Object.keys(stepSchema.shape),
  resources: Object.keys(resources.shape),
  secret: Object.keys(secret.shape),
  checkout: Object.keys(checkoutOptions.shape),
  toleration: Object.keys(toleration.shape),
  when: Object.keys(when.shape),
  pipelineWhen: Object.keys(pipelineWhen.shape),
  service: Object.keys(service.shape),
  cache: Object.keys(caches.entry.shape),
  cacheKey: Object.keys(caches.key.shape),
  artifacts: Object.keys(caches.artifacts.shape),
  retry: Object.keys(retry.map.shape),
  concurrency: Object.keys(concurrency.map.shape),
};

/** Validates what YAML produced; every problem is reported, not just the first. */
export function validatePipelineData(data: unknown): ValidationResult {
  if (data === null || data === undefined) {
    return { ok: false, problems: [{ path: [], message: 'the file is empty: a pipeline starts with "version: 1" and a list of "steps"', kind: 'other' }] };
  }
  const parsed = pipelineSchema.safeParse(data, { reportInput: true });
  const problems = withoutExplainedMissing([...(parsed.success ? [] : parsed.error.issues.flatMap(toProblems)), ...crossStepProblems(data), ...serviceProblems(data).map((problem) => ({ ...problem, kind: ProblemKinds.other })), ...cacheProblems(data).map((problem) => ({ ...problem, kind: ProblemKinds.other }))]);
  if (problems.length > 0 || !parsed.success) return { ok: false, problems };

  const { version, steps, 'image-pull-grace': grace, checkout: checkoutGiven, 'pull-secrets': secretsGiven, 'max-parallel': maxParallel } = parsed.data;
  const { services: sharedServices, 'service-start-grace': serviceGrace, when: pipelinePaths, concurrency: concurrencyGiven } = parsed.data;
  const pendingTimeout = parsed.data['pending-timeout'];
  const shared = sharedServices?.map(normalService);
  const sharedCache = parsed.data.cache?.map(normalCache);
  const total = steps.reduce((sum, step) => sum + (step.timeout ?? DEFAULT_STEP_TIMEOUT_SECONDS), 0);
  if (total > BUILD_TIME_LIMIT_SECONDS) {
    const message =
      `the steps' timeouts add up to ${formatDuration(total)} (a step without "timeout" counts ${formatDuration(DEFAULT_STEP_TIMEOUT_SECONDS)}), ` +
      `more than the ${formatDuration(BUILD_TIME_LIMIT_SECONDS)} a build may run, past which Step Functions stops it as TIMED_OUT; give the steps shorter "timeout"s`;
    return { ok: false, problems: [{ path: ['steps'], message, kind: ProblemKinds.other }] };
  }
  return {
    ok: true,
    pipeline: {
      version,
      checkout: checkoutGiven === false ? false : { ...DEFAULT_CHECKOUT, ...withoutUndefined(checkoutGiven ?? {}) },
      steps: steps.map((step) => ({
        name: step.name,
        image: step.image,
        commands: step.commands,
        env: step.env ?? {},
        pull: step.pull ?? 'if-not-present',
        timeoutSeconds: step.timeout ?? DEFAULT_STEP_TIMEOUT_SECONDS,
        ...withPendingTimeout(step['pending-timeout'] ?? pendingTimeout),
        ...(step.resources ? { resources: withoutUndefined(step.resources) } : {}),
        secrets: step.secrets ?? [],
        ...(step['image-check'] === false ? { imageCheck: false as const } : {}),
        ...(step['node-selector'] && Object.keys(step['node-selector']).length > 0 ? { nodeSelector: step['node-selector'] } : {}),
        ...(step.tolerations && step.tolerations.length > 0 ? { tolerations: step.tolerations.map(asToleration) } : {}),
        ...(step.when && (step.when.branch || step.when.event || step.when.status?.includes('failure') || step.when.paths || step.when['paths-ignore']) ? { when: conditionOf(step.when) } : {}),
        ...(step.needs !== undefined ? { needs: [...step.needs] } : {}),
        ...withServices(stepServices(shared, step.services?.map(normalService))),
        ...withCache(stepCache(sharedCache, step.cache?.map(normalCache))),
        ...(step.artifacts ? { artifacts: normalArtifacts(step.artifacts) } : {}),
        retry: normalRetry(step.retry),
      })),
      ...(pipelinePaths ? { when: pathFilterOf(pipelinePaths) } : {}),
      ...(grace !== undefined ? { imagePullGraceSeconds: grace } : {}),
      ...(secretsGiven && secretsGiven.length > 0 ? { pullSecrets: [...new Set(secretsGiven)] } : {}),
      ...(maxParallel !== undefined ? { maxParallel } : {}),
      ...(serviceGrace !== undefined ? { serviceStartGraceSeconds: serviceGrace } : {}),
      ...withPendingTimeout(pendingTimeout),
      ...(concurrencyGiven !== undefined ? { concurrency: normalConcurrency(concurrencyGiven) } : {}),
      ...withCache(stepCache(sharedCache, undefined)),
    },
  };
}

/** Only a `pending-timeout` the file says: the default bounds a stall, but not a capacity wait (lib/kube/classify-stall.ts). */
function withPendingTimeout(seconds: number | undefined): { pendingTimeoutSeconds?: number } {
  return seconds !== undefined ? { pendingTimeoutSeconds: seconds } : {};
}

function withCache(cache: ReturnType<typeof stepCache>): { cache?: NonNullable<ReturnType<typeof stepCache>> } {
  return cache ? { cache } : {};
}

function withServices(services: ReturnType<typeof stepServices>): { services?: NonNullable<ReturnType<typeof stepServices>> } {
  return services ? { services } : {};
}

/** `status: [success]` says what the default already does. */
function conditionOf(given: z.output<typeof when>): StepCondition {
  const { status, paths, 'paths-ignore': pathsIgnore, ...rest } = withoutUndefined(given);
  return { ...rest, ...pathFilterOf({ paths, 'paths-ignore': pathsIgnore }), ...(status?.includes('failure') ? { status: ['failure'] } : {}) };
}

function pathFilterOf(given: { paths?: string[] | undefined; 'paths-ignore'?: string[] | undefined }): PathFilter {
  return { ...(given.paths ? { paths: given.paths } : {}), ...(given['paths-ignore'] ? { pathsIgnore: given['paths-ignore'] } : {}) };
}

function asToleration(given: z.output<typeof toleration>): Toleration {
  const operator = given.operator ?? 'Equal';
  return {
    ...(given.key !== undefined ? { key: given.key } : {}),
    operator,
    ...(operator === 'Equal' && given.value !== undefined ? { value: given.value } : {}),
    ...(given.effect !== undefined ? { effect: given.effect } : {}),
    ...(given['toleration-seconds'] !== undefined ? { tolerationSeconds: given['toleration-seconds'] } : {}),
  };
}

export type SettingCheck<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/**
 * A deployment's default tolerations (STEP_TOLERATIONS, parsed JSON), by the pipeline's own rules
 * and spelling (`toleration-seconds`; `tolerationSeconds`, Kubernetes' spelling, is taken too).
 */
export function checkTolerations(value: unknown): SettingCheck<Toleration[]> {
  const spelled = Array.isArray(value)
    ? value.map((entry: unknown) => {
        if (!isRecord(entry) || !('tolerationSeconds' in entry)) return entry;
        const { tolerationSeconds, ...rest } = entry;
        return { ...rest, 'toleration-seconds': tolerationSeconds };
      })
    : value;
  const parsed = tolerations.safeParse(spelled);
  const problems = [...(parsed.success ? [] : settingProblems(parsed.error)), ...tolerationRuleProblems(spelled).map(settingProblem)];
  return parsed.success && problems.length === 0 ? { ok: true, value: parsed.data.map(asToleration) } : { ok: false, problems };
}

/** A deployment's default node selector (STEP_NODE_SELECTOR, parsed JSON), by the pipeline's rules. */
export function checkNodeSelector(value: unknown): SettingCheck<Record<string, string>> {
  const parsed = nodeSelector.safeParse(value);
  const problems = [...(parsed.success ? [] : settingProblems(parsed.error)), ...nodeSelectorKeyProblems(value).map(settingProblem)];
  return parsed.success && problems.length === 0 ? { ok: true, value: parsed.data } : { ok: false, problems };
}

/** A deployment's default pull secrets (STEP_PULL_SECRETS, split at commas). */
export function checkPullSecrets(value: unknown): SettingCheck<string[]> {
  const parsed = pullSecrets.safeParse(value);
  return parsed.success ? { ok: true, value: [...new Set(parsed.data)] } : { ok: false, problems: settingProblems(parsed.error) };
}

function settingProblems(error: z.ZodError): string[] {
  return error.issues.map((issue) => settingProblem({ path: issue.path.filter((segment): segment is PathSegment => typeof segment !== 'symbol'), message: issue.message }));
}

function settingProblem({ path, message }: { path: PathSegment[]; message: string }): string {
  const at = path.reduce<string>((text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : text === '' ? segment : `${text}.${segment}`), '');
  return at === '' ? message : `${at}: ${message}`;
}

function toProblems(issue: z.core.$ZodIssue): SchemaProblem[] {
  const path = issue.path.filter((segment): segment is PathSegment => typeof segment !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeysAt(path);
    return issue.keys.map((key) => {
      const suggestion = suggestKey(key, known);
      return {
        path: [...path, key],
        kind: ProblemKinds.unknownKey,
        ...(suggestion ? { suggestion } : {}),
        message: `unknown field ${JSON.stringify(key)}` + (suggestion ? ` (did you mean ${JSON.stringify(suggestion)}?)` : ` (expected one of: ${known.join(', ')})`),
      };
    });
  }
  if (issue.code === 'custom' && issue.params?.['kind'] === IMAGE_PROBLEM) {
    return [{ path, message: issue.message, kind: ProblemKinds.image, image: String(issue.params['image']) }];
  }
  const missing = issue.code === 'invalid_type' && issue.input === undefined;
  return [{ path, message: issue.message, kind: ProblemKinds.other, ...(missing ? { missing } : {}) }];
}

/** `imgae: x` makes "image is missing" too; the typo is the problem to report, once. */
function withoutExplainedMissing(problems: SchemaProblem[]): SchemaProblem[] {
  const suggested = new Set(
    problems.filter((p) => p.suggestion !== undefined).map((p) => JSON.stringify([...p.path.slice(0, -1), p.suggestion])),
  );
  return problems.filter((p) => !(p.missing && suggested.has(JSON.stringify(p.path))));
}

function knownKeysAt(path: PathSegment[]): string[] {
  const last = path[path.length - 1];
  const parent = path[path.length - 2];
  if (path.length === 0) return knownKeys.pipeline;
  if (parent === 'cache') return knownKeys.cache;
  if (last === 'key' && path[path.length - 3] === 'cache') return knownKeys.cacheKey;
  if (last === 'artifacts') return knownKeys.artifacts;
  if (last === 'retry') return knownKeys.retry;
  if (last === 'concurrency' && path.length === 1) return knownKeys.concurrency;
  if (last === 'resources') return knownKeys.resources;
  if (last === 'checkout' && path.length === 1) return knownKeys.checkout;
  if (parent === 'secrets') return knownKeys.secret;
  if (parent === 'tolerations') return knownKeys.toleration;
  if (last === 'when' && path.length === 1) return knownKeys.pipelineWhen;
  if (last === 'when') return knownKeys.when;
  if (parent === 'services') return knownKeys.service;
  return knownKeys.step;
}

/**
 * Rules across steps and fields: unique step names, secret env names that clash with env keys or
 * with each other, node-selector keys, a toleration's fields together. Run on the raw data so they are reported even when other fields are wrong.
 */
function crossStepProblems(data: unknown): SchemaProblem[] {
  if (!isRecord(data) || !Array.isArray(data['steps'])) return [];
  const problems: SchemaProblem[] = [];
  const checksOut = data['checkout'] !== false;
  const firstIndexByName = new Map<string, number>();
  data['steps'].forEach((step: unknown, index: number) => {
    if (!isRecord(step)) return;
    const name = step['name'];
    if (typeof name === 'string') {
      if (checksOut && name === CHECKOUT_STEP) {
        problems.push({
          path: ['steps', index, 'name'],
          kind: 'other',
          message: `"${CHECKOUT_STEP}" is the name of the build's checkout step; rename this step, or set "checkout: false" if the pipeline needs no source`,
        });
      }
      const first = firstIndexByName.get(name);
      if (first === undefined) firstIndexByName.set(name, index);
      else problems.push({ path: ['steps', index, 'name'], kind: 'other', message: `the name "${name}" is already used by steps[${first}]; step names must be unique` });
    }
    for (const problem of nodeSelectorKeyProblems(step['node-selector'])) {
      problems.push({ path: ['steps', index, 'node-selector', ...problem.path], kind: 'other', message: problem.message });
    }
    for (const problem of tolerationRuleProblems(step['tolerations'])) {
      problems.push({ path: ['steps', index, 'tolerations', ...problem.path], kind: 'other', message: problem.message });
    }
    const envKeys = isRecord(step['env']) ? new Set(Object.keys(step['env'])) : new Set<string>();
    const secretEnvs = new Set<string>();
    const secrets = Array.isArray(step['secrets']) ? step['secrets'] : [];
    secrets.forEach((entry: unknown, secretIndex: number) => {
      if (!isRecord(entry) || typeof entry['env'] !== 'string') return;
      const variable = entry['env'];
      const path = ['steps', index, 'secrets', secretIndex, 'env'];
      if (envKeys.has(variable)) {
        problems.push({ path, kind: 'other', message: `"${variable}" is also set in env; a variable comes either from env or from a secret, not both` });
      } else if (secretEnvs.has(variable)) {
        problems.push({ path, kind: 'other', message: `"${variable}" is set by two secrets; each variable may come from one secret only` });
      }
      secretEnvs.add(variable);
    });
  });
  return [...problems, ...crossNeedsProblems(data['steps'], checksOut)];
}

/** `needs` across steps, once every step has a name and every `needs` is a list of names. */
function crossNeedsProblems(steps: unknown[], checksOut: boolean): SchemaProblem[] {
  const named = steps.map((step) => {
    if (!isRecord(step) || typeof step['name'] !== 'string') return undefined;
    const given = typeof step['needs'] === 'string' ? [step['needs']] : step['needs'];
    if (given === undefined) return { name: step['name'] };
    return Array.isArray(given) && given.every((need) => typeof need === 'string') ? { name: step['name'], needs: given } : undefined;
  });
  if (named.some((step) => step === undefined) || new Set(named.map((step) => step!.name)).size < named.length) return [];
  const afterFailure = new Set(steps.flatMap((step) => (isRecord(step) && statusesOf(step).includes('failure') ? [step['name'] as string] : [])));
  const failureProblems: SchemaProblem[] = [];
  named.forEach((step, index) => {
    if (!step?.needs) return;
    if (afterFailure.has(step.name)) {
      failureProblems.push({
        path: ['steps', index, 'needs'],
        kind: ProblemKinds.other,
        message: 'a step with "when: {status: [failure]}" runs once the build has failed, after the steps before it of that kind, so it takes no needs',
      });
      return;
    }
    step.needs.forEach((need, entry) => {
      if (afterFailure.has(need)) {
        failureProblems.push({
          path: ['steps', index, 'needs', entry],
          kind: ProblemKinds.other,
          message: `"${need}" runs only after the build has failed ("when: {status: [failure]}"), so no step can wait for it`,
        });
      }
    });
  });
  if (failureProblems.length > 0) return failureProblems;
  return needsProblems(named as { name: string; needs?: string[] }[], checksOut ? CHECKOUT_STEP : undefined).map((problem) => ({
    path: ['steps', problem.step, 'needs', ...(problem.entry !== undefined ? [problem.entry] : [])],
    kind: ProblemKinds.other,
    message: problem.message,
  }));
}

/** A step's `when.status` as written (one or a list), for the rules across steps. */
function statusesOf(step: Record<string, unknown>): unknown[] {
  const status = isRecord(step['when']) ? step['when']['status'] : undefined;
  return Array.isArray(status) ? status : status === undefined ? [] : [status];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** How a wrong value is named in a message: by its kind, or quoted when it is short text. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return value.length <= 40 ? `the text ${JSON.stringify(value)}` : 'a long text';
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'boolean') return `${value}`;
  return typeof value;
}
