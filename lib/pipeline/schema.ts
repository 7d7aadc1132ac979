/**
 * The pipeline file contract (docs/contracts.md#pipeline-file) as a zod schema: each key, its type
 * and the rules of its own value, and the words of each problem. Pure: it sees the data YAML
 * produced, never the text, and reports problems by path; the loader turns paths into lines.
 *
 * A new key goes here first (its shape and messages; knownKeys follows from it, and its row in
 * key-docs.ts becomes docs/pipeline.md's key table through `npm run docs`), then into normalise.ts (its normal form on Step or Pipeline), then into
 * cross-step-rules.ts only if it relates one step or field to another.
 */
import * as z from 'zod';
import { checkImageReference, type ImageReference } from './image-reference.js';
import { parseDuration } from './duration.js';
import { dnsLabelProblem, dnsSubdomainProblem, envNameProblem, identityNameProblem, labelKeyProblem, labelValueProblem, secretKeyProblem } from './names.js';
import { quantityProblem, type ResourceKind } from './quantity.js';
import { suggestKey } from './suggest.js';
import { WhenEvents, WhenStatuses } from './when.js';
import { pathGlobProblem } from './paths.js';
import { serviceListSchema, serviceSchema } from './services.js';
import { cacheSchemas } from './cache.js';
import { retrySchema } from './retry.js';
import { concurrencySchema } from './concurrency.js';
import { AwsSecretKeys, secretEntrySchema } from './aws-secrets.js';
import { inputsSchema } from './inputs.js';
import { isImageTemplate, matrixSchema, type ImageTemplate } from './matrix.js';
import { approvalSchema } from './approval.js';
import { buildSchema } from './build.js';
import { reportsSchema } from './reports.js';
import { PullPolicies, TaintEffects, TolerationOperators, type PullPolicy } from './types.js';

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

// Keys are checked on the raw data (cross-step-rules.ts, nodeSelectorKeyProblems), so a bad value does not hide them.
const nodeSelector = z.record(z.string(), labelValue, {
  error: (issue) => `must be a map of node label: value (e.g. "kubernetes.io/arch: arm64"), not ${describeValue(issue.input)}`,
});

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

// The names are checked across steps (cross-step-rules.ts), where the other steps are known.
const needs = z.preprocess(
  oneOrList,
  z.array(text('a step name'), { error: (issue) => `must be a list of step names (or [] to start with the build), not ${describeValue(issue.input)}` }),
);

/** The most steps `max-parallel` may ask for: what an inline Map runs at once. */
export const MAX_PARALLEL_LIMIT = 40;

/** An image reference, checked before any pod exists; a malformed one is an image problem (InvalidImage). */
const imageReference = (what: string) =>
  text(what).transform((image, ctx): ImageReference => {
    const result = checkImageReference(image);
    if (result.ok) return result.image;
    ctx.addIssue({ code: 'custom', message: result.reason, params: { kind: IMAGE_PROBLEM, image } });
    return z.NEVER;
  });

/**
 * A step's image: a reference, or one written with `${{ matrix.NAME }}`, which matrix-steps.ts
 * reads and checks once per combination (a template on a step without a matrix is refused there).
 */
const stepImage = text('every step needs an image').transform((image, ctx): ImageReference | ImageTemplate => {
  if (isImageTemplate(image)) return { template: image };
  const result = checkImageReference(image);
  if (result.ok) return result.image;
  ctx.addIssue({ code: 'custom', message: result.reason, params: { kind: IMAGE_PROBLEM, image } });
  return z.NEVER;
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

// A step's `secrets` entry: a Kubernetes Secret's key, or AWS's (aws-secrets.ts); a service's are Kubernetes' only.
const secretEntry = secretEntrySchema(secret, describeValue);
// `inputs:` (inputs.ts).
const inputs = inputsSchema(describeValue);
// `approval:` (approval.ts): whether image and commands are missing is its raw rule's to say.
const approval = approvalSchema(describeValue);
// `build:` (build.ts).
const build = buildSchema(describeValue);
// `reports:` (reports.ts).
const reports = reportsSchema(describeValue);

/** `identity`: one the deployment declares; whether it exists, and may be used, is PrepareBuild's to say (lib/workflow/identities.ts). */
const identity = text('the name of an identity the deployment declares').superRefine(obeys(identityNameProblem));

export const stepSchema = z.strictObject(
  {
    name: text('every step needs a name').superRefine(obeys(dnsLabelProblem)),
    // Required unless the step has a build or an approval (build.ts's buildProblems, approval.ts's rule, say which is missing).
    image: stepImage.optional(),
    commands: commands.optional(),
    env: env.optional(),
    pull: pullPolicy.optional(),
    timeout: durationSeconds.optional(),
    'pending-timeout': durationSeconds.optional(),
    resources: resources.optional(),
    secrets: z.array(secretEntry, { error: (issue) => `must be a list of {env, secret, key}, {env, aws-secret, key} or {env, ssm-parameter}, not ${describeValue(issue.input)}` }).optional(),
    'image-check': z.boolean({ error: (issue) => `must be true or false, not ${describeValue(issue.input)}` }).optional(),
    'node-selector': nodeSelector.optional(),
    tolerations: tolerations.optional(),
    when: when.optional(),
    needs: needs.optional(),
    services: services.optional(),
    cache: caches.list.optional(),
    artifacts: caches.artifacts.optional(),
    reports: reports.optional(),
    retry: retry.retry.optional(),
    identity: identity.optional(),
    matrix: matrixSchema(describeValue).optional(),
    'fail-fast': z.boolean({ error: (issue) => `must be true or false, not ${describeValue(issue.input)}` }).optional(),
    approval: approval.map.optional(),
    build: build.optional(),
  },
  { error: (issue) => `each step must be a map (name, image, commands, ... or name, approval), not ${describeValue(issue.input)}` },
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
    identity: identity.optional(),
    inputs: inputs.list.optional(),
  },
  { error: (issue) => `a pipeline file must be a map with "version" and "steps", not ${describeValue(issue.input)}` },
);

/** The keys each map of the file may have, from the schema itself (docs/pipeline.md's generated key table is checked against it). */
export const knownKeys = {
  pipeline: Object.keys(pipelineSchema.shape),
  step: Object.keys(stepSchema.shape),
  resources: Object.keys(resources.shape),
  secret: Object.keys(secret.shape),
  /** A step's `secrets` entry, whichever its form: what a misspelt key is matched against. */
  stepSecret: [...Object.keys(secret.shape), AwsSecretKeys.secretsManager, AwsSecretKeys.ssm],
  checkout: Object.keys(checkoutOptions.shape),
  toleration: Object.keys(toleration.shape),
  when: Object.keys(when.shape),
  pipelineWhen: Object.keys(pipelineWhen.shape),
  service: Object.keys(service.shape),
  cache: Object.keys(caches.entry.shape),
  cacheKey: Object.keys(caches.key.shape),
  artifacts: Object.keys(caches.artifacts.shape),
  reports: Object.keys(reports.shape),
  retry: Object.keys(retry.map.shape),
  concurrency: Object.keys(concurrency.map.shape),
  input: Object.keys(inputs.entry.shape),
  approval: Object.keys(approval.map.shape),
  approvers: Object.keys(approval.approvers.shape),
  build: Object.keys(build.shape),
};

/** The data the schema lets through, before its normal form (normalise.ts). */
export type PipelineInput = z.output<typeof pipelineSchema>;
export type WhenInput = z.output<typeof when>;
export type TolerationInput = z.output<typeof toleration>;

/** The settings a deployment gives in the pipeline's own spelling (setting-checks.ts). */
export const settingSchemas = { tolerations, nodeSelector, pullSecrets };

export type SchemaCheck = { ok: true; data: PipelineInput } | { ok: false; problems: SchemaProblem[] };

/** The data against the schema: every problem, or the data in the schema's types. */
export function checkSchema(data: unknown): SchemaCheck {
  const parsed = pipelineSchema.safeParse(data, { reportInput: true });
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, problems: withoutExplainedMissing(parsed.error.issues.flatMap(toProblems)) };
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
export function withoutExplainedMissing(problems: SchemaProblem[]): SchemaProblem[] {
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
  if (last === 'reports') return knownKeys.reports;
  if (last === 'retry') return knownKeys.retry;
  if (last === 'approval') return knownKeys.approval;
  if (last === 'approvers') return knownKeys.approvers;
  if (last === 'build' && path[0] === 'steps') return knownKeys.build;
  if (last === 'concurrency' && path.length === 1) return knownKeys.concurrency;
  if (parent === 'inputs' && path.length === 2) return knownKeys.input;
  if (last === 'resources') return knownKeys.resources;
  if (last === 'checkout' && path.length === 1) return knownKeys.checkout;
  if (parent === 'secrets') return path[0] === 'steps' && path.length === 4 ? knownKeys.stepSecret : knownKeys.secret;
  if (parent === 'tolerations') return knownKeys.toleration;
  if (last === 'when' && path.length === 1) return knownKeys.pipelineWhen;
  if (last === 'when') return knownKeys.when;
  if (parent === 'services') return knownKeys.service;
  return knownKeys.step;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
