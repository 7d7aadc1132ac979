/**
 * `build:` (issue 39): a step that builds a container image from a Dockerfile in the workspace and
 * pushes it, instead of running `image` and `commands`. The step's pod runs the deployment's
 * builder image (lib/kube/build-container.ts says what it runs and with which privileges). Pure,
 * like schema.ts: it sees the data YAML produced and reports problems by path; schema.ts hands in
 * how a wrong value is named, so this module needs nothing of it.
 */
import * as z from 'zod';
import { checkImageReference } from './image-reference.js';
import { fillImage, isImageTemplate, templateVariables, type MatrixValues } from './matrix.js';
import type { StepBuild } from './types.js';

type Describe = (value: unknown) => string;
type PathSegment = string | number;

/**
 * The image a build step's pod runs unless the deployment names another (`builder-image`):
 * buildah's own image, as its project publishes it (github.com/containers/image_build, buildah's
 * "stable" image on quay.io). Any image that provides what lib/kube/build-container.ts names will do.
 */
export const DEFAULT_BUILDER_IMAGE = 'quay.io/buildah/stable:v1.42.2';

export const DEFAULT_DOCKERFILE = 'Dockerfile';

/**
 * A stage name as BuildKit and buildah accept it after `AS` (moby/buildkit
 * frontend/dockerfile/instructions/parse.go: `^[a-z][a-z0-9-_.]*$`, case folded).
 */
const STAGE_NAME = /^[a-z][a-z0-9_.-]*$/i;
/** A build argument's name: what `ARG NAME` and `--build-arg NAME=value` take without quoting. */
const BUILD_ARG_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An OCI annotation / label key as the image spec suggests it: reverse-DNS, dots, dashes, digits. */
const LABEL_KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;

/**
 * Why a context or Dockerfile path cannot name something inside the workspace, or undefined. The
 * builder reads the workspace the checkout wrote; a path that leaves it reads what the step does
 * not own. `.` (the whole workspace) is the usual context.
 */
export function buildPathProblem(path: string): string | undefined {
  if (path.trim() === '') return 'a path must not be empty';
  if (path.startsWith('/')) return `"${path}" is absolute: the context and the Dockerfile are relative to the workspace (/workspace)`;
  if (path.startsWith('~')) return `"${path}" is in a home folder, outside the workspace: the builder reads the workspace only`;
  if (path.replace(/\/+$/, '').split('/').includes('..')) return `"${path}" has a ".." segment: the context and the Dockerfile stay inside the workspace`;
  return undefined;
}

/** Why a tag to push is not one, or undefined: a full reference to a tag (never a digest, which the push makes). */
export function pushTagProblem(tag: string): string | undefined {
  const checked = checkImageReference(tag);
  if (!checked.ok) return checked.reason;
  if (checked.image.digest !== undefined) return `"${tag}" names a digest: a build pushes tags, and the registry gives the digest`;
  if (checked.image.tag === undefined) return `"${tag}" names no tag: write the tag to push (e.g. "${tag}:1.0"); "latest" is never assumed for a push`;
  return undefined;
}

/** Why a layer cache's repository is not one, or undefined: a repository, with neither tag nor digest (the builder names each layer's entry). */
export function cacheRepositoryProblem(repository: string): string | undefined {
  const checked = checkImageReference(repository);
  if (!checked.ok) return checked.reason;
  if (checked.image.tag !== undefined || checked.image.digest !== undefined) return `"${repository}" names a ${checked.image.digest ? 'digest' : 'tag'}: the cache is a repository (e.g. ghcr.io/org/app/cache), each layer a tag of its own`;
  return undefined;
}

/** Why a stage name is not one, or undefined. */
function stageNameProblem(name: string): string | undefined {
  return STAGE_NAME.test(name) ? undefined : `"${name}" is not a stage name: a letter, then letters, digits, "-", "_" and "."`;
}

/** Where a step's `build.dockerfile` is in the workspace: relative to the context, as Compose's `build.dockerfile` is. */
export function dockerfilePath(context: string, dockerfile: string): string {
  const parts = [...context.split('/'), ...dockerfile.split('/')].filter((part) => part !== '' && part !== '.');
  return parts.join('/') || '.';
}

// One value is a list of one, as with commands.
const oneOrList = (value: unknown) => (typeof value === 'string' ? [value] : value);

/** The schema of a step's `build:`. */
export function buildSchema(describe: Describe) {
  // A text written with a matrix's values (`${{ matrix.NAME }}`) is checked once filled, per combination (buildWithValues).
  const obeys = (rule: (value: string) => string | undefined) => (value: string, ctx: z.RefinementCtx) => {
    const problem = isImageTemplate(value) ? undefined : rule(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  };
  const path = (what: string) =>
    z.string({ error: (issue) => `must be text (${what}, relative to the workspace), not ${describe(issue.input)}` }).superRefine(obeys(buildPathProblem));
  // Values are text; a YAML number or boolean is kept as written, as env values are.
  const value = z.unknown().transform((given, ctx) => {
    if (typeof given === 'string') return given;
    if (typeof given === 'number' || typeof given === 'boolean') return String(given);
    ctx.addIssue({ code: 'custom', message: given === null || given === undefined ? 'has no value; write "" for an empty one' : `must be text, not ${describe(given)}` });
    return z.NEVER;
  });
  const namedMap = (what: string, rule: (name: string) => string | undefined) =>
    z.record(z.string(), value, { error: (issue) => `must be a map of ${what}: value, not ${describe(issue.input)}` }).superRefine((record, ctx) => {
      for (const name of Object.keys(record)) {
        const problem = rule(name);
        if (problem) ctx.addIssue({ code: 'custom', message: problem, path: [name] });
      }
    });
  const tag = z.string({ error: (issue) => `each tag must be text (an image reference such as ghcr.io/org/app:1.0), not ${describe(issue.input)}` }).superRefine(obeys(pushTagProblem));
  return z.strictObject(
    {
      context: path('a folder of the workspace').optional(),
      dockerfile: path('the Dockerfile, relative to the context').optional(),
      target: z
        .string({ error: (issue) => `must be text (a stage name of the Dockerfile), not ${describe(issue.input)}` })
        .superRefine(obeys(stageNameProblem))
        .optional(),
      'build-args': namedMap('NAME', (name) => (BUILD_ARG_NAME.test(name) ? undefined : `"${name}" is not a build argument name: letters, digits and "_", not starting with a digit`)).optional(),
      tags: z
        .preprocess(oneOrList, z.array(tag, { error: (issue) => `must be a list of image references to push, not ${describe(issue.input)}` }))
        .pipe(z.array(z.string()).min(1, { error: 'must list at least one tag (or leave tags out with push: false)' }))
        .optional(),
      push: z.boolean({ error: (issue) => `must be true or false, not ${describe(issue.input)}` }).optional(),
      cache: z.string({ error: (issue) => `must be text (a repository for the layer cache, such as ghcr.io/org/app/cache), not ${describe(issue.input)}` }).superRefine(obeys(cacheRepositoryProblem)).optional(),
      labels: namedMap('label key', (key) => (LABEL_KEY.test(key) ? undefined : `"${key}" is not a label key: letters, digits, ".", "-", "_" and "/" (e.g. org.opencontainers.image.title)`)).optional(),
    },
    { error: (issue) => `must be a map with context, dockerfile, target, build-args, tags, push, cache and/or labels, not ${describe(issue.input)}` },
  );
}

export type BuildData = z.output<ReturnType<typeof buildSchema>>;

/** Each text of a build that a matrix's values may be written into, with the rule it obeys once filled. */
const FILLED_RULES: Record<'context' | 'dockerfile' | 'target' | 'cache' | 'tags' | 'build-args' | 'labels', (value: string) => string | undefined> = {
  context: buildPathProblem,
  dockerfile: buildPathProblem,
  target: stageNameProblem,
  cache: cacheRepositoryProblem,
  tags: pushTagProblem,
  'build-args': () => undefined,
  labels: () => undefined,
};

/**
 * A build step's `build` with a matrix combination's values written in where its texts say
 * `${{ matrix.NAME }}` (the context, the Dockerfile, the target, the cache, each tag, each value of
 * build-args and labels), each filled text then checked as the schema checks a plain one; or what
 * is wrong, by path under `build`. `values` undefined: the step has no matrix, and a text written
 * with one is refused.
 */
export function buildWithValues(given: BuildData, values: MatrixValues | undefined): { ok: true; build: BuildData } | { ok: false; problems: BuildProblem[] } {
  const problems: BuildProblem[] = [];
  const fill = (key: keyof typeof FILLED_RULES, text: string, path: PathSegment[]): string => {
    if (!isImageTemplate(text)) return text;
    const at = [key, ...path];
    if (values === undefined) {
      problems.push({ path: at, message: `${text}: "\${{ matrix.NAME }}" needs a "matrix" on the step, whose values it stands for` });
      return text;
    }
    const variables = templateVariables(text, 'a build');
    if (!variables.ok) {
      problems.push({ path: at, message: `${text}: ${variables.reason}` });
      return text;
    }
    const missing = variables.names.find((name) => values[name] === undefined);
    if (missing !== undefined) {
      problems.push({ path: at, message: `${text}: the combination ${JSON.stringify(values)} has no "${missing}" (the matrix's variables are its axes and what its include entries add)` });
      return text;
    }
    const filled = fillImage(text, values);
    const problem = FILLED_RULES[key](filled);
    if (problem) problems.push({ path: at, message: `${text} is ${JSON.stringify(filled)} for ${JSON.stringify(values)}: ${problem}` });
    return filled;
  };
  const map = (key: 'build-args' | 'labels') => {
    const record = given[key];
    return record === undefined ? {} : { [key]: Object.fromEntries(Object.entries(record).map(([name, text]) => [name, fill(key, text, [name])])) };
  };
  const one = (key: 'context' | 'dockerfile' | 'target' | 'cache') => {
    const text = given[key];
    return text === undefined ? {} : { [key]: fill(key, text, []) };
  };
  const build: BuildData = {
    ...given,
    ...one('context'),
    ...one('dockerfile'),
    ...one('target'),
    ...one('cache'),
    ...(given.tags !== undefined ? { tags: given.tags.map((tag, index) => fill('tags', tag, [index])) } : {}),
    ...map('build-args'),
    ...map('labels'),
  };
  return problems.length === 0 ? { ok: true, build } : { ok: false, problems };
}

export function normalBuild(given: BuildData): StepBuild {
  const context = (given.context ?? '.').replace(/\/+$/, '') || '.';
  const tags = [...new Set(given.tags ?? [])];
  return {
    context,
    dockerfile: dockerfilePath(context, given.dockerfile ?? DEFAULT_DOCKERFILE),
    ...(given.target !== undefined ? { target: given.target } : {}),
    buildArgs: given['build-args'] ?? {},
    tags,
    push: given.push ?? true,
    ...(given.cache !== undefined ? { cache: { repository: given.cache, write: true } } : {}),
    labels: given.labels ?? {},
  };
}

/** Why a build step cannot have each of these, and what it has instead. */
const NOT_FOR_BUILDS = {
  services: 'its builder reaches no service (a RUN instruction runs in the builder\'s own network namespace)',
  cache: 'the builder reuses layers itself (--layers); a step\'s cache restores and saves folders around commands',
  artifacts: 'what it keeps is the image it pushes',
  reports: 'its builder runs no tests whose reports a step reads (run them in a step of their own)',
} as const;

export interface BuildProblem {
  path: PathSegment[];
  message: string;
  /** A required field is absent (a misspelt key beside it explains it instead). */
  missing?: boolean;
}

/**
 * The rules between a step's fields that `build` changes, on the raw data: a step is either a
 * build (`build`) or a run (`image` and `commands`), never both, and a build that pushes names its
 * tags. The schema leaves `image` and `commands` optional for this; their "missing" is said here.
 */
export function buildProblems(data: unknown): BuildProblem[] {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return [];
  const steps = (data as Record<string, unknown>)['steps'];
  if (!Array.isArray(steps)) return [];
  return steps.flatMap((step: unknown, index: number): BuildProblem[] => {
    if (typeof step !== 'object' || step === null || Array.isArray(step)) return [];
    const fields = step as Record<string, unknown>;
    const at = ['steps', index];
    if (fields['build'] === undefined) {
      // An approval runs no pod (approval.ts's rule says what it may hold).
      if (fields['approval'] !== undefined) return [];
      return [
        ...(fields['image'] === undefined ? [{ path: [...at, 'image'], message: 'missing (every step needs an image, or a build or an approval)', missing: true }] : []),
        ...(fields['commands'] === undefined ? [{ path: [...at, 'commands'], message: 'missing: every step needs at least one command (or a build or an approval)', missing: true }] : []),
      ];
    }
    const problems: BuildProblem[] = (['image', 'commands'] as const)
      .filter((key) => fields[key] !== undefined)
      .map((key) => ({
        path: [...at, key],
        message: `goes with build on the same step: a build step runs the deployment's builder image, not ${key === 'image' ? 'an image' : 'commands'} of its own; move the ${key} to a step of its own`,
      }));
    // What wraps a step's commands has no commands to wrap here; the pipeline's own lists skip build steps.
    for (const key of ['services', 'cache', 'artifacts', 'reports'] as const) {
      if (fields[key] !== undefined) problems.push({ path: [...at, key], message: `is not for a build step: ${NOT_FOR_BUILDS[key]}` });
    }
    const build = fields['build'];
    if (typeof build === 'object' && build !== null && !Array.isArray(build)) {
      const given = build as Record<string, unknown>;
      if (given['push'] !== false && given['tags'] === undefined) {
        problems.push({ path: [...at, 'build', 'tags'], message: 'missing: a build that pushes needs the tags to push (or "push: false" to build only)', missing: true });
      }
    }
    return problems;
  });
}
