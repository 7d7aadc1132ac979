/**
 * A `.gitlab-ci.yml` (docs.gitlab.com/ci/yaml/) as a draft pipeline: each job one step, its
 * `before_script` and `script` that step's commands, stages as `needs` (a job waits for the stage
 * before its own, unless it says its `needs`), hidden jobs and `extends` merged in.
 */
import { reportGlobProblem, workspacePathProblem } from '../pipeline/index.js';
import { GLOBAL_KEYS, expandVariables, resolveJob, resolveReferences, scriptOf, variablesOf, type ResolvedJob } from './gitlab-config.js';
import { jobWhen, onlyExceptVerdict, rulesVerdict, type RulesVerdict } from './gitlab-rules.js';
import { PREDEFINED, SAME_NAME, gitlabExpireIn, gitlabTimeout, predefinedReads, workspaceRelative } from './gitlab-values.js';
import { cacheName } from './github-actions.js';
import { convertGitLabMatrix, firstCombination, matrixUnconverted, type ConvertedMatrix } from './matrix.js';
import { labelOf, uniqueLabels } from './names.js';
import { listOf, mapOf, textOf, textsOf, type SourceFile, type SourcePath } from './source.js';
import { mergeWhen } from './when.js';
import type { DraftCache, DraftPipeline, DraftService, DraftStep, DraftWhen, Unconverted } from './types.js';

// https://docs.gitlab.com/ci/yaml/#stages
const DEFAULT_STAGES = ['build', 'test', 'deploy'];
/** Keys a job's conversion reads; any other is listed. */
const READ_KEYS = ['script', 'before_script', 'after_script', 'image', 'services', 'variables', 'stage', 'needs', 'rules', 'only', 'except', 'when', 'cache', 'artifacts', 'parallel', 'timeout', 'retry', 'inherit', 'dependencies'];
const DEFAULT_IMAGE = 'buildpack-deps:noble';
/** The file's variables that are its checkout (`checkout:`), not the steps' environment. */
const CHECKOUT_VARIABLES = ['GIT_DEPTH', 'GIT_STRATEGY', 'GIT_SUBMODULE_STRATEGY'];

export function convertGitLab(source: SourceFile): DraftPipeline {
  const lineOf = source.lineOf;
  const { data, unconverted } = resolveReferences(source.data, lineOf);
  const notes: string[] = [];
  for (const [index, include] of listOf(data.include).entries()) unconverted.push(includeUnconverted(include, Array.isArray(data.include) ? lineOf(['include', index]) : lineOf(['include'])));
  if (data.spec !== undefined) unconverted.push({ line: lineOf(['spec']), what: 'spec: inputs', instead: 'give the values as variables: `run --env NAME=VALUE`' });
  const workflow = mapOf(data.workflow);
  const workflowVerdict: RulesVerdict = workflow.rules === undefined ? { ok: true } : rulesVerdict(workflow.rules);
  if (!workflowVerdict.ok) unconverted.push({ line: lineOf(['workflow', 'rules']), what: `workflow: rules (${workflowVerdict.why})`, instead: rulesInstead('every step is written without it') });
  for (const key of Object.keys(workflow).filter((key) => key !== 'rules' && key !== 'name')) unconverted.push({ line: lineOf(['workflow', key]), what: `workflow: ${key}`, instead: key === 'auto_cancel' ? '`concurrency:` at the top: a newer build of the group stops the older one' : 'nothing here says it' });

  const stages = ['.pre', ...(data.stages !== undefined ? textsOf(data.stages) : DEFAULT_STAGES), '.post'];
  const names = Object.keys(data).filter((key) => !GLOBAL_KEYS.includes(key) && !key.startsWith('.') && typeof data[key] === 'object' && data[key] !== null && !Array.isArray(data[key]));
  const jobs = names.map((name) => resolveJob(data, name, lineOf, unconverted));
  const runnable = jobs.filter((job) => {
    if (job.config.trigger !== undefined) {
      unconverted.push({ line: lineOf([job.name, 'trigger']), what: `job "${job.name}": trigger`, instead: 'a downstream pipeline: start that project\'s build with a generic delivery (POST /webhook/generic) from a step' });
      return false;
    }
    if (job.config.script === undefined) {
      unconverted.push({ line: lineOf([job.name]), what: `job "${job.name}" has no script`, instead: 'its commands come from a template or include not in this file: write them as a step' });
      return false;
    }
    return true;
  });
  const labels = uniqueLabels(runnable.map((job) => job.name));
  const stageOf = (job: ResolvedJob) => {
    const stage = textOf(job.config.stage) ?? 'test';
    return stages.includes(stage) ? stages.indexOf(stage) : stages.length;
  };
  const ordered = [...runnable].sort((a, b) => stageOf(a) - stageOf(b));
  const globalVariables = data.variables;
  const checkout = checkoutOf(variablesOf(globalVariables, {}, true), lineOf, unconverted);
  const steps = ordered.map((job) => {
    const step = convertJob(job, labels.get(job.name)!, globalVariables, lineOf);
    step.when = mergeWhen(workflowVerdict.ok ? workflowVerdict.when : undefined, step.when);
    return { job, step };
  });
  if (steps.length > 1) {
    for (const { job, step } of steps) {
      const needs = job.config.needs;
      if (needs !== undefined) {
        const named = listOf(needs).map((need) => (typeof need === 'string' ? need : textOf(mapOf(need).job)));
        const known = named.filter((need): need is string => need !== undefined && labels.has(need));
        // A job of this file that is not converted is listed already; one of another pipeline or file is listed here.
        const elsewhere = named.filter((need) => need === undefined || data[need] === undefined);
        if (elsewhere.length > 0) step.unconverted.push({ line: lineOf([job.name, 'needs']), what: `needs ${elsewhere.map((need) => need ?? 'another pipeline\'s job').join(', ')}`, instead: 'not in this file: started without it; add it as a step and need it' });
        else if (known.length < named.length) step.notes.push(`needs ${named.filter((need) => !labels.has(need!)).join(', ')}, which is not converted: started without it`);
        step.needs = known.map((need) => labels.get(need)!);
      } else {
        // A job without `needs` waits for every job of the stages before its own: the nearest one that has any.
        const own = stageOf(job);
        const earlier = steps.filter((other) => stageOf(other.job) < own);
        const nearest = Math.max(-1, ...earlier.map((other) => stageOf(other.job)));
        step.needs = earlier.filter((other) => stageOf(other.job) === nearest).map((other) => other.step.name);
      }
    }
  }
  const sharedEnv = Object.fromEntries(Object.entries(variablesOf(globalVariables, {}, true)).filter(([key, value]) => !value.includes('$') && !CHECKOUT_VARIABLES.includes(key)));
  return { ...(checkout !== undefined ? { checkout } : {}), steps: steps.map(({ step }) => step), sharedEnv, unconverted, notes };
}

function rulesInstead(written: string): string {
  return `a step's \`when\` holds branch, event, status and changed files, all at once: ${written}; split the step by condition, or test the rest in its commands`;
}

function includeUnconverted(include: unknown, line: number): Unconverted {
  const item = typeof include === 'string' ? { local: include } : mapOf(include);
  const [kind = 'include', target = ''] = Object.entries(item).map(([key, value]) => [key, textOf(value) ?? JSON.stringify(value)] as const)[0] ?? [];
  const instead: Record<string, string> = {
    local: 'import that file too (`step-runner import FILE`) and add its steps to this one',
    template: "GitLab's own template: the jobs it adds are not here; write the steps they run",
    component: 'a CI/CD component: the jobs it adds are not here; write the steps they run',
    project: "another project's file: import it too and add its steps to this one",
    remote: 'a file from a URL: download it, import it too and add its steps to this one',
  };
  return { line, what: `include: ${kind} ${target}`, instead: instead[kind] ?? 'write what it adds as steps' };
}

/** GIT_DEPTH, GIT_STRATEGY and GIT_SUBMODULE_STRATEGY, the file's variables that are its checkout. */
function checkoutOf(variables: Record<string, string>, lineOf: (path: SourcePath) => number, unconverted: Unconverted[]): DraftPipeline['checkout'] {
  if (variables.GIT_STRATEGY === 'none') return false;
  const depth = variables.GIT_DEPTH === undefined ? undefined : Number(variables.GIT_DEPTH);
  const submodules = variables.GIT_SUBMODULE_STRATEGY === 'recursive' || variables.GIT_SUBMODULE_STRATEGY === 'normal';
  if (variables.GIT_DEPTH !== undefined && !(depth !== undefined && Number.isInteger(depth) && depth >= 0)) unconverted.push({ line: lineOf(['variables', 'GIT_DEPTH']), what: `GIT_DEPTH: ${variables.GIT_DEPTH}`, instead: '`checkout: {depth: N}`' });
  if (depth === undefined && !submodules) return undefined;
  return { depth: depth !== undefined && Number.isInteger(depth) && depth >= 0 ? depth : 1, ...(submodules ? { submodules } : {}) };
}

function convertJob(job: ResolvedJob, name: string, globalVariables: unknown, fileLineOf: (path: SourcePath) => number): DraftStep {
  const { config } = job;
  const lineOf = (key: string, ...rest: (string | number)[]) => fileLineOf([...(job.origin.get(key) ?? [job.name, key]), ...rest]);
  const unconverted: Unconverted[] = [];
  const notes: string[] = [];
  const parallel = config.parallel;
  const matrixEntries = listOf(mapOf(parallel).matrix);
  const combination = firstCombination(mapOf(matrixEntries[0]));
  let matrix: ConvertedMatrix | undefined;
  if (matrixEntries.length > 0) {
    const converted = convertGitLabMatrix(matrixEntries);
    if ('reason' in converted) {
      unconverted.push(...matrixUnconverted(combination, lineOf('parallel'), 'parallel: matrix', converted.reason));
      if (matrixEntries.length > 1) unconverted.push({ line: lineOf('parallel'), what: `parallel: matrix, ${matrixEntries.length - 1} more entr${matrixEntries.length === 2 ? 'y' : 'ies'}`, instead: 'copy the step for each of their combinations too' });
    } else matrix = converted;
  } else if (parallel !== undefined) unconverted.push({ line: lineOf('parallel'), what: `parallel: ${textOf(parallel) ?? ''}`, instead: 'copies of the step with `needs` that let them run side by side; each must pick its share of the work itself' });
  const inheritVariables = mapOf(config.inherit).variables !== false;
  // A matrix's variable is the step's own (set per combination), in the image its `${{ matrix.NAME }}`; without one, the first combination's value.
  const matrixValues = matrix ? Object.fromEntries(Object.keys(matrix.names).map((name) => [name, `\${{ matrix.${name} }}`])) : combination.values;
  const variables = { ...variablesOf(globalVariables, config.variables, inheritVariables), ...matrixValues };
  const expand = (text: string) => expandVariables(text, variables);
  // Only the step's image holds a matrix's value (docs/pipeline.md#matrices): a service, a cache or an artifact path gets the first combination's, listed.
  const expandOnce = (key: string) => (text: string) => {
    if (matrix && expand(text).includes('${{ matrix.') && !unconverted.some((part) => part.what === `${key}: ${text}`)) unconverted.push({ line: lineOf(key), what: `${key}: ${text}`, instead: `a matrix value is written into the step's image only: written for ${Object.entries(combination.values).map(([name, value]) => `${name}=${value}`).join(', ')}, the same for every combination` });
    return expandVariables(text, { ...variables, ...combination.values });
  };

  const image = imageOf(config.image, expand, lineOf, unconverted);
  const services = listOf(config.services).map((service, index) => serviceOf(service, index, expandOnce('services'), lineOf, unconverted, notes));
  const before = scriptOf(config.before_script);
  const after = scriptOf(config.after_script);
  if (after.length > 0) unconverted.push({ line: lineOf('after_script'), what: `after_script (${after.length} command${after.length === 1 ? '' : 's'})`, instead: 'written at the end of the commands, so they run only when the script succeeded and their failure fails the step; for a failed build, a step with `when: {status: [failure]}`' });
  const script = [...before, ...scriptOf(config.script), ...after];

  // Variables become the step's env; a value that reads another variable is exported by the shell (Kubernetes expands none).
  const env: Record<string, string> = {};
  const exports: string[] = [];
  for (const [key, value] of Object.entries(variables)) {
    if (CHECKOUT_VARIABLES.includes(key) || matrix?.names[key] !== undefined) continue;
    if (value.includes('$')) exports.push(`export ${key}="${value.replace(/"/g, '\\"')}"`);
    else env[key] = value;
  }
  const reads = new Set([...script, ...exports].flatMap(predefinedReads));
  const provided = [...reads].filter((variable) => PREDEFINED[variable] !== undefined).map((variable) => `export ${variable}="${PREDEFINED[variable]!.replace(/"/g, '\\"')}"`);
  if (reads.has('CI_JOB_NAME')) provided.push(`export CI_JOB_NAME=${JSON.stringify(job.name)}`);
  const missing = [...reads].filter((variable) => PREDEFINED[variable] === undefined && !SAME_NAME.includes(variable) && variable !== 'CI_JOB_NAME' && variables[variable] === undefined);
  if (missing.length > 0) unconverted.push({ line: lineOf('script'), what: `GitLab's variables ${missing.map((variable) => `$${variable}`).join(', ')}`, instead: 'not set here: give them in `env:` (or `run --env NAME=VALUE`), or use the build\'s own (CI_BRANCH, CI_REF, CI_COMMIT_SHA, CI_REPOSITORY, CI_WORKSPACE)' });

  const when = conditionOf(config, lineOf, unconverted);
  // A list of caches may hold lists (`cache: [*anchored_list]`): GitLab flattens them.
  const cache = listOf(config.cache)
    .flat(10)
    .flatMap((entry, index) => cacheOf(mapOf(entry), Array.isArray(config.cache) ? index : undefined, expandOnce('cache'), job.name, lineOf, unconverted));
  const artifacts = artifactsOf(mapOf(config.artifacts), expandOnce('artifacts'), lineOf, unconverted);
  const reports = junitReportsOf(mapOf(config.artifacts), expandOnce('artifacts'), lineOf, unconverted);
  const timeout = textOf(config.timeout) === undefined ? undefined : gitlabTimeout(textOf(config.timeout)!);
  if (textOf(config.timeout) !== undefined && timeout === undefined) unconverted.push({ line: lineOf('timeout'), what: `timeout: ${textOf(config.timeout)}`, instead: 'a duration such as `1h30m`' });
  const retry = retryOf(config.retry, lineOf, unconverted);
  if (config.dependencies !== undefined) notes.push('dependencies: every step works in the same workspace, so what the jobs before it left is there');
  for (const key of Object.keys(config).filter((key) => !READ_KEYS.includes(key))) unconverted.push({ line: lineOf(key), what: `${key}:`, instead: jobKeyInstead(key) });
  return {
    name,
    image,
    commands: [...provided, ...exports, ...script],
    ...(matrix ? { matrix: matrix.matrix } : {}),
    env,
    services,
    cache,
    ...(artifacts ? { artifacts } : {}),
    ...(reports ? { reports } : {}),
    ...(when ? { when } : {}),
    ...(timeout ? { timeout } : {}),
    ...(retry ? { retry } : {}),
    origin: `from job "${job.name}" (line ${fileLineOf([job.name])})`,
    unconverted,
    notes,
  };
}

function jobKeyInstead(key: string): string {
  const instead: Record<string, string> = {
    allow_failure: 'a failing step fails the build here: end its last command with `|| true` if it must not',
    tags: 'runner tags: `node-selector:` picks the nodes a step runs on',
    coverage: 'nothing here reads coverage from the log',
    environment: 'no deployment environments here: give its secrets as `secrets:` and its branch rule as `when.branch`',
    interruptible: '`concurrency:` at the top: a newer build of the group stops the older one',
    resource_group: 'nothing here keeps builds of a group apart: `concurrency:` stops the older one instead',
    release: 'a step that creates the release with the GitLab API or `release-cli`',
    pages: 'a step that publishes the folder',
    id_tokens: 'no OIDC tokens here: give what the step needs as `secrets:`',
    secrets: 'the step\'s `secrets:` from Kubernetes Secrets',
    hooks: 'write the commands into the step',
    start_in: 'no delayed steps here',
  };
  return instead[key] ?? 'nothing here says it';
}

function imageOf(value: unknown, expand: (text: string) => string, lineOf: (key: string, ...rest: (string | number)[]) => number, unconverted: Unconverted[]): string {
  const map = mapOf(value);
  const written = textOf(value) ?? textOf(map.name);
  for (const key of Object.keys(map).filter((key) => key !== 'name')) unconverted.push({ line: lineOf('image', key), what: `image: ${key}`, instead: key === 'entrypoint' ? 'the commands run in /bin/sh whatever the entrypoint: an image whose shell is /bin/sh' : 'nothing here says it' });
  if (written === undefined) {
    unconverted.push({ line: lineOf('image'), what: 'no image: the runner\'s default', instead: `written ${DEFAULT_IMAGE}: name the image the commands need` });
    return DEFAULT_IMAGE;
  }
  const image = expand(written);
  // `${{ matrix.NAME }}` is a matrix's value, filled per combination (lib/pipeline/matrix.ts).
  if (image.replace(/\$\{\{ matrix\.\w+ \}\}/g, '').includes('$')) {
    unconverted.push({ line: lineOf('image'), what: `image: ${written}`, instead: `its variables are not in this file: written ${DEFAULT_IMAGE}, name the image` });
    return DEFAULT_IMAGE;
  }
  return image;
}

/** A service's host name as GitLab makes it (docs.gitlab.com/ci/services/#accessing-the-services): its alias, else from its image. */
function serviceOf(value: unknown, index: number, expand: (text: string) => string, lineOf: (key: string, ...rest: (string | number)[]) => number, unconverted: Unconverted[], notes: string[]): DraftService {
  const map = mapOf(value);
  const image = expand(textOf(value) ?? textOf(map.name) ?? '');
  const alias = textOf(map.alias)?.split(',')[0];
  const repository = image.replace(/[:@].*$/, '').split('/').at(-1) ?? 'service';
  const line = typeof value === 'string' ? lineOf('services', index) : lineOf('services', index, 'name');
  for (const key of Object.keys(map).filter((key) => !['name', 'alias', 'variables'].includes(key))) {
    unconverted.push({ line: lineOf('services', index, key), what: `services[${index}].${key}`, instead: key === 'command' || key === 'entrypoint' ? 'a service runs its image\'s own entrypoint and command here: an image that starts as this one should' : 'nothing here says it for a service' });
  }
  if (image.includes('$')) unconverted.push({ line, what: `service image ${image}`, instead: 'its variables are not in this file: name the image' });
  notes.push(`service ${labelOf(alias ?? repository, 'service')}: list its \`ports:\` for the step to wait until they accept connections (GitLab waits for the image's exposed ports)`);
  const env = Object.fromEntries(Object.entries(mapOf(map.variables)).map(([key, item]) => [key, textOf(item) ?? '']));
  return { name: labelOf(alias ?? repository, 'service'), image: image.includes('$') ? DEFAULT_IMAGE : image, ...(Object.keys(env).length > 0 ? { env } : {}) };
}

function conditionOf(config: Record<string, unknown>, lineOf: (key: string, ...rest: (string | number)[]) => number, unconverted: Unconverted[]): DraftWhen | undefined {
  let when: DraftWhen | undefined;
  if (config.rules !== undefined) {
    const verdict = rulesVerdict(config.rules);
    if (verdict.ok) when = verdict.when;
    else unconverted.push({ line: lineOf('rules'), what: `rules (${verdict.why})`, instead: rulesInstead('written without a condition') });
  }
  if (config.only !== undefined || config.except !== undefined) {
    const verdict = onlyExceptVerdict(config.only, config.except);
    if (verdict.ok) when = mergeWhen(when, verdict.when);
    else unconverted.push({ line: lineOf(config.only !== undefined ? 'only' : 'except'), what: verdict.why, instead: rulesInstead('written without it') });
  }
  const own = jobWhen(config.when);
  if (own.unconverted) unconverted.push({ line: lineOf('when'), what: `when: ${textOf(config.when)}`, instead: own.unconverted });
  return mergeWhen(when, own.when);
}

function cacheOf(entry: Record<string, unknown>, index: number | undefined, expand: (text: string) => string, job: string, lineOf: (key: string, ...rest: (string | number)[]) => number, unconverted: Unconverted[]): DraftCache[] {
  const at = (...rest: (string | number)[]) => lineOf('cache', ...(index === undefined ? [] : [index]), ...rest);
  const keyMap = mapOf(entry.key);
  const files = textsOf(keyMap.files).map((file) => workspaceRelative(expand(file)));
  // Entries here are kept per branch already (docs/pipeline.md#the-cache-between-builds): the ref in a key adds nothing.
  const keyText = expand(textOf(entry.key) ?? textOf(keyMap.prefix) ?? '').replace(/\$\{?CI_COMMIT_REF_(SLUG|NAME)\}?/g, '').replace(/\$\{?CI_JOB_NAME\}?/g, job);
  const prefix = keyText === '' ? (files.length > 0 ? undefined : 'default') : cacheName(keyText);
  if (keyText.includes('$') || (keyText !== '' && prefix === undefined)) unconverted.push({ line: at('key'), what: `cache key ${textOf(entry.key) ?? textOf(keyMap.prefix) ?? ''}`, instead: `a key of files and a name: written ${prefix ?? 'the files alone'}` });
  const paths = textsOf(entry.paths).map((path) => workspaceRelative(expand(path)));
  const outside = paths.filter((path) => /[*?[]/.test(path) || workspacePathProblem(path) !== undefined);
  if (outside.length > 0) unconverted.push({ line: at('paths'), what: `cache paths ${outside.join(', ')}`, instead: 'a cache keeps files and folders in the workspace, without globs: name them' });
  for (const key of Object.keys(entry).filter((key) => !['key', 'paths', 'policy', 'fallback_keys'].includes(key))) unconverted.push({ line: at(key), what: `cache ${key}: ${JSON.stringify(entry[key])}`, instead: key === 'when' ? 'a cache is saved when the step succeeds' : 'nothing here says it for a cache' });
  const kept = paths.filter((path) => !outside.includes(path));
  if (kept.length === 0) {
    if (paths.length === 0) unconverted.push({ line: at(), what: 'cache without paths', instead: 'a `cache:` entry names the files and folders it keeps (`paths`)' });
    return [];
  }
  const policy = textOf(entry.policy) === undefined ? undefined : expand(textOf(entry.policy)!);
  if (policy !== undefined && !['pull', 'push', 'pull-push'].includes(policy)) unconverted.push({ line: at('policy'), what: `cache policy: ${textOf(entry.policy)}`, instead: 'pull, push or pull-push: written pull-push' });
  const fallbacks = textsOf(entry.fallback_keys).flatMap((key) => cacheName(expand(key)) ?? []);
  return [
    {
      key: { ...(files.length > 0 ? { files } : {}), ...(prefix !== undefined ? { prefix } : {}) },
      paths: kept,
      ...(fallbacks.length > 0 ? { 'fallback-keys': fallbacks } : {}),
      ...(policy !== undefined && ['pull', 'push'].includes(policy) ? { policy } : {}),
    },
  ];
}

function artifactsOf(artifacts: Record<string, unknown>, expand: (text: string) => string, lineOf: (key: string, ...rest: (string | number)[]) => number, unconverted: Unconverted[]): DraftStep['artifacts'] {
  if (Object.keys(artifacts).length === 0) return undefined;
  const paths = textsOf(artifacts.paths).map((path) => expand(path).replace(/^\$\{?CI_PROJECT_DIR\}?\//, '').replace(/^(\.\/)+/, ''));
  const reports = mapOf(artifacts.reports);
  // JUnit reports are read as the step's `reports:` (junitReportsOf); the other kinds are kept as files.
  for (const [kind, files] of Object.entries(reports).filter(([kind]) => kind !== 'junit')) {
    const named = textsOf(files);
    paths.push(...named);
    unconverted.push({ line: lineOf('artifacts', 'reports', kind), what: `artifacts:reports:${kind} ${named.join(', ')}`, instead: 'kept as artifacts of the step; nothing here reads them as a report yet' });
  }
  const refused = paths.filter((path) => /[*?[]/.test(path) || workspacePathProblem(path.replace(/\/$/, '')) !== undefined);
  if (refused.length > 0) unconverted.push({ line: lineOf('artifacts', 'paths'), what: `artifacts paths ${refused.join(', ')}`, instead: 'artifacts are files or folders (a trailing /) in the workspace, without globs: name them' });
  for (const key of Object.keys(artifacts).filter((key) => !['paths', 'reports', 'expire_in', 'when'].includes(key))) unconverted.push({ line: lineOf('artifacts', key), what: `artifacts ${key}`, instead: 'nothing here says it for artifacts' });
  const expireText = textOf(artifacts.expire_in);
  const expireIn = expireText === undefined ? undefined : gitlabExpireIn(expireText);
  if (expireText !== undefined && expireIn === undefined) unconverted.push({ line: lineOf('artifacts', 'expire_in'), what: `expire_in: ${expireText}`, instead: 'artifacts are kept 1 to 365 days (`expire-in`): written the default, 30d' });
  const kept = [...new Set(paths.filter((path) => !refused.includes(path)))];
  if (kept.length === 0) return undefined;
  return { paths: kept, ...(expireIn ? { 'expire-in': expireIn } : {}) };
}

/**
 * `artifacts:reports:junit` (https://docs.gitlab.com/ci/yaml/artifacts_reports/#artifactsreportsjunit:
 * JUnit XML files, globs allowed, relative to the project's folder) as the step's `reports: {junit}`.
 * A glob the pipeline would refuse is listed instead.
 */
function junitReportsOf(artifacts: Record<string, unknown>, expand: (text: string) => string, lineOf: (key: string, ...rest: (string | number)[]) => number, unconverted: Unconverted[]): DraftStep['reports'] {
  const files = textsOf(mapOf(artifacts.reports).junit).map((path) => expand(path).replace(/^\$\{?CI_PROJECT_DIR\}?\//, '').replace(/^(\.\/)+/, ''));
  const refused = files.filter((glob) => reportGlobProblem(glob) !== undefined);
  if (refused.length > 0) unconverted.push({ line: lineOf('artifacts', 'reports', 'junit'), what: `artifacts:reports:junit ${refused.join(', ')}`, instead: reportGlobProblem(refused[0]!)! });
  const junit = [...new Set(files.filter((glob) => !refused.includes(glob)))];
  return junit.length > 0 ? { junit } : undefined;
}

// https://docs.gitlab.com/ci/yaml/#retrywhen
const RETRY_WHEN: Record<string, string> = {
  always: 'StepFailed',
  script_failure: 'StepFailed',
  runner_system_failure: 'StepInterrupted',
  stuck_or_timeout_failure: 'StepTimedOut',
  job_execution_timeout: 'StepTimedOut',
};

function retryOf(value: unknown, lineOf: (key: string, ...rest: (string | number)[]) => number, unconverted: Unconverted[]): DraftStep['retry'] {
  if (value === undefined) return undefined;
  const map = mapOf(value);
  const max = Number(textOf(value) ?? textOf(map.max) ?? 0);
  if (!Number.isInteger(max) || max < 0) return undefined;
  const whens = map.when === undefined ? ['always'] : textsOf(map.when);
  const on = [...new Set(whens.flatMap((when) => RETRY_WHEN[when] ?? []))];
  const unknown = whens.filter((when) => RETRY_WHEN[when] === undefined);
  if (unknown.length > 0 || map.exit_codes !== undefined) unconverted.push({ line: lineOf('retry'), what: `retry when ${[...unknown, ...(map.exit_codes !== undefined ? ['exit_codes'] : [])].join(', ')}`, instead: '`retry.on` takes StepFailed, StepInterrupted, StepTimedOut, PodLost, ServiceFailed, ContainerRuntimeTimeout' });
  // A retry here also covers an interrupted pod, as the default does.
  return { max: Math.min(max, 5), on: [...new Set([...on, 'StepInterrupted'])] };
}
