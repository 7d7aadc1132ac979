/**
 * The few `uses:` actions that are a key here, read from their own documented inputs:
 * actions/checkout (the build's checkout), actions/setup-node, setup-python and setup-go (an
 * image), actions/cache (a cache), actions/upload-artifact (artifacts) and
 * actions/download-artifact (nothing: the steps share a workspace). Any other action is listed.
 */
import { checkImageReference, cacheNameProblem, workspacePathProblem } from '../pipeline/index.js';
import { mapOf, textOf, textsOf } from './source.js';
import { packageManagerCache } from './package-cache.js';
import type { DraftCache, Unconverted } from './types.js';

/** What a job's steps add up to, as they are read one by one. */
export interface JobParts {
  /** Images the setup actions ask for, in order. */
  images: { image: string; line: number; action: string }[];
  /** Matrix variables a setup action's version is (`node:${{ matrix.node }}`): their values must be image tags. */
  versionAxes: string[];
  /** The variables of the step's `matrix:` (none when the job's matrix is not one). */
  matrixNames: string[];
  commands: string[];
  /** Commands before all others (`export` of a tool's cache folder). */
  setup: string[];
  cache: DraftCache[];
  artifacts: string[];
  expireIn?: string;
  checkout: { depth?: number; submodules?: boolean } | undefined;
  unconverted: Unconverted[];
  notes: string[];
}

const SETUP_IMAGES: Record<string, { repository: string; input: string; fallback: string }> = {
  'actions/setup-node': { repository: 'node', input: 'node-version', fallback: 'lts' },
  'actions/setup-python': { repository: 'python', input: 'python-version', fallback: '3' },
  'actions/setup-go': { repository: 'golang', input: 'go-version', fallback: '1' },
};

/** `22.x` -> `22`, `lts/*` -> `lts`, `>=18` -> undefined: a tag of the official image, or nothing. */
export function versionTag(version: string): string | undefined {
  const tag = version
    .trim()
    .replace(/^v(?=\d)/, '')
    .replace(/(\.x)+$/, '')
    .replace(/^lts\/.*$/, 'lts')
    .replace(/^(latest|node)$/, 'current');
  return /^[\w][\w.-]*$/.test(tag) ? tag : undefined;
}

const MATRIX_TEMPLATE = /^\$\{\{ matrix\.(\w+) \}\}$/;

/** `with:` values as text, their expressions already substituted by the caller. */
export type Inputs = Record<string, string | undefined>;

/** The inputs each action's rule reads (or that change nothing here, as `check-latest` and an artifact's `name`); any other is listed. */
const READ_INPUTS: Record<string, string[]> = {
  'actions/checkout': ['fetch-depth', 'submodules'],
  'actions/setup-node': ['node-version', 'node-version-file', 'cache', 'cache-dependency-path', 'check-latest'],
  'actions/setup-python': ['python-version', 'python-version-file', 'check-latest'],
  'actions/setup-go': ['go-version', 'go-version-file', 'check-latest'],
  'actions/cache': ['path', 'key', 'restore-keys'],
  'actions/cache/restore': ['path', 'key', 'restore-keys'],
  'actions/cache/save': ['path', 'key'],
  'actions/upload-artifact': ['path', 'retention-days', 'name'],
  'actions/download-artifact': ['name', 'path'],
};

export function applyAction(action: string, inputs: Inputs, parts: JobParts, line: number): void {
  const read = READ_INPUTS[action];
  const unread = read === undefined ? [] : Object.keys(inputs).filter((input) => !read.includes(input));
  // checkout lists its own (it says what to do instead of another repository or path).
  if (unread.length > 0 && action !== 'actions/checkout') parts.unconverted.push({ line, what: `${action} with ${unread.join(', ')}`, instead: 'nothing here says it: write what it does into the commands' });
  const setup = SETUP_IMAGES[action];
  if (action === 'actions/checkout') return applyCheckout(inputs, parts, line);
  if (setup) {
    const given = inputs[setup.input];
    // A matrix's version is the image's template: each combination's image is checked when the pipeline is read.
    const named = given === undefined ? undefined : MATRIX_TEMPLATE.exec(given)?.[1];
    const axis = named !== undefined && parts.matrixNames.includes(named) ? named : undefined;
    if (axis !== undefined) parts.versionAxes.push(axis);
    const tag = given === undefined ? setup.fallback : axis !== undefined ? given : versionTag(given);
    const image = `${setup.repository}:${tag ?? setup.fallback}`;
    if (tag === undefined || (axis === undefined && !checkImageReference(image).ok)) {
      parts.unconverted.push({ line, what: `${action} ${setup.input}: ${given}`, instead: `a version that is an image tag: written ${image}` });
    }
    if (given === undefined && inputs[`${setup.input}-file`] !== undefined) {
      parts.unconverted.push({ line, what: `${action} ${setup.input}-file: ${inputs[`${setup.input}-file`]}`, instead: `the image's tag says the version: written ${image}, put the file's version there` });
    }
    parts.images.push({ image, line, action });
    if (action === 'actions/setup-node' && inputs.cache !== undefined) applyManagerCache(inputs.cache, inputs['cache-dependency-path'], parts, line);
    return;
  }
  if (action === 'actions/cache' || action === 'actions/cache/restore' || action === 'actions/cache/save') return applyCache(action, inputs, parts, line);
  if (action === 'actions/upload-artifact') {
    const paths = (inputs.path ?? '').split('\n').map((path) => path.trim()).filter((path) => path !== '');
    const refused = paths.filter((path) => path.startsWith('!') || /[*?[]/.test(path) || workspacePathProblem(path.replace(/\/$/, '')) !== undefined);
    parts.artifacts.push(...paths.filter((path) => !refused.includes(path)));
    if (refused.length > 0) parts.unconverted.push({ line, what: `${action} path ${refused.join(', ')}`, instead: 'artifacts are files or folders (a trailing /) in the workspace, without globs or exclusions: name them' });
    const days = Number(inputs['retention-days']);
    if (Number.isInteger(days) && days >= 1) parts.expireIn = `${Math.min(days, 365)}d`;
    return;
  }
  if (action === 'actions/download-artifact') {
    parts.notes.push(`${action} (line ${line}) needs nothing here: every step of a build works in the same workspace, so what an earlier step wrote is already there`);
    return;
  }
  parts.unconverted.push({
    line,
    what: `uses: ${action}`,
    instead: "the commands the action runs, as commands of this step (its action.yml says what it does), or a step whose image does the action's job",
  });
}

function applyCheckout(inputs: Inputs, parts: JobParts, line: number): void {
  const depth = inputs['fetch-depth'] === undefined ? undefined : Number(inputs['fetch-depth']);
  const submodules = inputs.submodules === 'true' || inputs.submodules === 'recursive';
  parts.checkout = { ...(depth !== undefined && Number.isInteger(depth) && depth >= 0 ? { depth } : {}), ...(submodules ? { submodules } : {}) };
  const other = Object.keys(inputs).filter((key) => !['fetch-depth', 'submodules'].includes(key));
  if (other.length > 0) parts.unconverted.push({ line, what: `actions/checkout with ${other.join(', ')}`, instead: 'the build checks out its own commit into the workspace (`checkout:` takes depth and submodules): clone anything else with git in a command' });
}

function applyManagerCache(manager: string, dependencyPath: string | undefined, parts: JobParts, line: number): void {
  const cache = packageManagerCache(manager, dependencyPath === undefined ? undefined : textsOf(dependencyPath.split('\n').map((path) => path.trim()).filter(Boolean)));
  if (!cache) {
    parts.unconverted.push({ line, what: `actions/setup-node cache: ${manager}`, instead: 'a `cache:` entry keyed on the lock file, its paths in the workspace' });
    return;
  }
  parts.cache.push(cache.cache);
  parts.setup.push(cache.setup);
}

/** `${{ hashFiles('a', 'b') }}` -> [a, b]; the rest of the key, made a name, is the prefix. */
export function cacheKeyOf(key: string): DraftCache['key'] | undefined {
  const files: string[] = [];
  const literal = key.replace(/\$\{\{\s*hashFiles\(([^)]*)\)\s*\}\}/g, (_whole, args: string) => {
    files.push(...[...args.matchAll(/'([^']*)'|"([^"]*)"/g)].map((match) => match[1] ?? match[2] ?? ''));
    return '';
  });
  const prefix = cacheName(literal);
  if (files.length === 0 && prefix === undefined) return undefined;
  return { ...(files.length > 0 ? { files } : {}), ...(prefix !== undefined ? { prefix } : {}) };
}

/** A key's text without its expressions, as a cache name, or undefined when nothing is left. */
export function cacheName(text: string): string | undefined {
  const name = text
    .replace(/\$\{\{[^}]*\}\}/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-._]+|-+$/g, '')
    .replace(/-{2,}/g, '-')
    .slice(0, 100);
  return name === '' || cacheNameProblem(name) !== undefined ? undefined : name;
}

function applyCache(action: string, inputs: Inputs, parts: JobParts, line: number): void {
  const paths = (inputs.path ?? '').split('\n').map((path) => path.trim()).filter((path) => path !== '');
  const outside = paths.filter((path) => workspacePathProblem(path) !== undefined);
  const key = cacheKeyOf(inputs.key ?? '');
  const inside = paths.filter((path) => !outside.includes(path));
  if (outside.length > 0) parts.unconverted.push({ line, what: `${action} path ${outside.join(', ')}`, instead: "a cache keeps paths in the workspace: point the tool's cache folder there (e.g. `export npm_config_cache=\"$CI_WORKSPACE/.npm\"`) and cache that" });
  if (!key || inside.length === 0) {
    parts.unconverted.push({ line, what: `${action} key ${inputs.key ?? '(none)'}`, instead: 'a `cache:` entry with `key: {files: [lock file], prefix: name}` and its paths in the workspace' });
    return;
  }
  const fallbacks = (inputs['restore-keys'] ?? '').split('\n').flatMap((text) => {
    const name = cacheName(text);
    return name === undefined ? [] : [name];
  });
  const policy = action === 'actions/cache/restore' ? 'pull' : action === 'actions/cache/save' ? 'push' : undefined;
  parts.cache.push({ key, paths: inside, ...(fallbacks.length > 0 ? { 'fallback-keys': fallbacks } : {}), ...(policy ? { policy } : {}) });
}

/** `with:` as texts (a number or boolean as written); anything else is not an input. */
export function inputsOf(value: unknown, substituteText: (text: string) => string): Inputs {
  return Object.fromEntries(Object.entries(mapOf(value)).map(([key, input]) => [key, textOf(input) === undefined ? undefined : substituteText(textOf(input)!)]));
}
