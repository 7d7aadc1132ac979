/**
 * A GitHub Actions workflow (docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax)
 * as a draft pipeline: each job one step, its `run:` steps that step's commands in one shell, in
 * the image its setup action or `container:` names. Jobs without `needs` start together.
 */
import { applyAction, inputsOf, versionTag, type JobParts } from './github-actions.js';
import { conditionOf, shellTestOf, substitute } from './github-expressions.js';
import { triggersOf } from './github-triggers.js';
import { uniqueLabels, labelOf } from './names.js';
import { convertGitHubMatrix, firstCombination, matrixUnconverted, type ConvertedMatrix } from './matrix.js';
import { listOf, mapOf, textOf, textsOf, type SourceFile } from './source.js';
import { mergeWhen } from './when.js';
import type { DraftPipeline, DraftSecret, DraftService, DraftStep, Unconverted } from './types.js';

/** The Kubernetes Secret that `secrets.NAME` is read from, key NAME (`run --secret imported-secrets/NAME`). */
export const IMPORTED_SECRET = 'imported-secrets';

/** `runs-on` labels -> an image with what a hosted runner's tools most need (git, curl, a compiler). */
function runnerImage(runsOn: string): string | undefined {
  if (/ubuntu-22\.04/.test(runsOn)) return 'buildpack-deps:jammy';
  if (/ubuntu|linux|self-hosted/.test(runsOn)) return 'buildpack-deps:noble';
  return undefined;
}

const JOB_KEYS_READ = ['name', 'runs-on', 'steps', 'needs', 'if', 'env', 'strategy', 'container', 'services', 'timeout-minutes'];
const STEP_KEYS_READ = ['name', 'id', 'uses', 'with', 'run', 'env', 'if', 'working-directory', 'shell'];
// Runner files that pass values between a job's steps: here they are commands of one shell.
const RUNNER_FILES = /\$\{?(GITHUB_OUTPUT|GITHUB_ENV|GITHUB_PATH|GITHUB_STEP_SUMMARY)\b/;
const BASHISM = /<\(|\[\[|\bpipefail\b|\bshopt\b|\$'/;

export function convertGitHub(source: SourceFile): DraftPipeline {
  const triggers = triggersOf(source);
  const jobs = mapOf(source.data.jobs);
  const ids = Object.keys(jobs);
  const labels = uniqueLabels(ids);
  const unconverted: Unconverted[] = [...triggers.unconverted];
  for (const key of ['permissions', 'concurrency', 'defaults']) {
    if (source.data[key] !== undefined) unconverted.push({ line: source.lineOf([key]), what: `${key}:`, instead: topLevelInstead(key) });
  }
  const workflowEnv = mapOf(source.data.env);
  const steps: DraftStep[] = [];
  const checkouts: NonNullable<JobParts['checkout']>[] = [];
  for (const id of ids) {
    const job = mapOf(jobs[id]);
    if (job.uses !== undefined) {
      unconverted.push({ line: source.lineOf(['jobs', id, 'uses']), what: `jobs.${id}: uses: ${textOf(job.uses) ?? ''}`, instead: 'a reusable workflow: import that workflow\'s file too and add its steps here' });
      continue;
    }
    const { step, checkout } = convertJob(source, id, job, labels.get(id)!, workflowEnv);
    step.when = mergeWhen(triggers.when, step.when);
    if (ids.length > 1) {
      const needs = textsOf(job.needs);
      step.needs = needs.filter((need) => jobs[need] !== undefined).map((need) => labels.get(need)!);
    }
    if (checkout) checkouts.push(checkout);
    steps.push(step);
  }
  for (const step of steps) {
    const dropped = (step.needs ?? []).length;
    step.needs = step.needs?.filter((need) => steps.some((other) => other.name === need));
    if (step.needs && step.needs.length < dropped) step.notes.push('needs a job that is not converted: started without it');
  }
  // A cache keyed on files needs the checkout that hashes them, even where no job checked out.
  const hashesFiles = steps.some((step) => step.cache?.some((cache) => cache.key.files !== undefined));
  return {
    checkout: checkouts.length === 0 && hashesFiles ? undefined : checkoutOf(checkouts),
    ...(Object.keys(triggers.paths).length > 0 ? { when: triggers.paths } : {}),
    steps,
    sharedEnv: Object.fromEntries(Object.entries(workflowEnv).flatMap(([key, value]) => {
      const text = textOf(value);
      return text === undefined || text.includes('$') ? [] : [[key, text]];
    })),
    unconverted,
    notes: triggers.notes,
  };
}

function topLevelInstead(key: string): string {
  if (key === 'permissions') return 'steps here get no GitHub token: give one as a secret if a step calls GitHub';
  if (key === 'concurrency') return '`concurrency: {group, cancel-in-progress}` at the top, its group from the build\'s variables (e.g. "${CI_REPOSITORY}-${CI_PR_OR_BRANCH}")';
  return 'write the shell or working directory into each command (`cd DIR && ...`)';
}

/** No job checks out: neither does the build. The deepest history any job asks for. */
function checkoutOf(checkouts: readonly NonNullable<JobParts['checkout']>[]): DraftPipeline['checkout'] {
  if (checkouts.length === 0) return false;
  const depths = checkouts.map((checkout) => checkout.depth ?? 1);
  const depth = depths.includes(0) ? 0 : Math.max(...depths);
  const submodules = checkouts.some((checkout) => checkout.submodules);
  return depth === 1 && !submodules ? undefined : { depth, ...(submodules ? { submodules } : {}) };
}

function convertJob(source: SourceFile, id: string, job: Record<string, unknown>, name: string, workflowEnv: Record<string, unknown>) {
  const at = (...path: (string | number)[]) => source.lineOf(['jobs', id, ...path]);
  const parts: JobParts = { images: [], versionAxes: [], matrixNames: [], commands: [], setup: [], cache: [], artifacts: [], checkout: undefined, unconverted: [], notes: [] };
  const strategy = mapOf(job.strategy);
  const first = firstCombination(mapOf(strategy.matrix));
  const matrix = strategyMatrix(strategy, first, at, parts);
  parts.matrixNames = Object.values(matrix?.names ?? {});
  // `${{ matrix.X }}` is the step's variable in commands, the image's template in an image; without a matrix, the first combination's value.
  const inCommands = matrix ? Object.fromEntries(Object.entries(matrix.names).map(([from, to]) => [from, `\${${to}}`])) : first.values;
  const inImage = matrix ? Object.fromEntries(Object.entries(matrix.names).map(([from, to]) => [from, `\${{ matrix.${to} }}`])) : first.values;
  const env: Record<string, string> = {};
  const envLines: Record<string, number> = {};
  const exports: string[] = [];
  const secrets: DraftSecret[] = [];
  const sub = (text: string, line: number) => {
    const done = substitute(text, inCommands, matrix !== undefined);
    for (const secret of done.secrets) addSecret(secrets, secret, secret);
    for (const expression of done.unknown) parts.unconverted.push({ line, what: expression, instead: 'a value the step can read: a variable (`env:`), a secret (`secrets:`) or the build\'s own (CI_BRANCH, CI_COMMIT_SHA, ...)' });
    return done;
  };
  const addEnv = (values: Record<string, unknown>, line: (key: string) => number) => {
    for (const [key, raw] of Object.entries(values)) {
      const text = textOf(raw) ?? '';
      const secret = /^\$\{\{\s*secrets\.(\w+)\s*\}\}$/.exec(text)?.[1];
      if (secret !== undefined) {
        addSecret(secrets, key, secret);
        continue;
      }
      const done = sub(text, line(key));
      // Kubernetes does not expand `$X` in an env value: a value that reads a variable is exported by the shell.
      if (done.readsVariable) exports.push(`export ${key}="${done.text.replace(/"/g, '\\"')}"`);
      else if (env[key] !== undefined && env[key] !== done.text) parts.unconverted.push({ line: line(key), what: `env ${key}: ${text}`, instead: `one value per step: written ${env[key]}; set it in the command that needs this one (\`${key}=... cmd\`)` });
      else {
        env[key] = done.text;
        envLines[key] = line(key);
      }
    }
  };
  addEnv(workflowEnv, (key) => source.lineOf(['env', key]));
  addEnv(mapOf(mapOf(job.container).env), (key) => at('container', 'env', key));
  addEnv(mapOf(job.env), (key) => at('env', key));

  listOf(job.steps).forEach((raw, index) => {
    const step = mapOf(raw);
    const uses = textOf(step.uses);
    const line = at('steps', index, 'uses');
    const ifText = textOf(step.if);
    for (const key of Object.keys(step).filter((key) => !STEP_KEYS_READ.includes(key))) {
      parts.unconverted.push({ line: at('steps', index, key), what: `${key}: ${JSON.stringify(step[key])}`, instead: key === 'continue-on-error' ? 'end the command with `|| true` if its failure must not fail the step' : 'nothing here says it: write it into the command' });
    }
    if (uses !== undefined) {
      if (ifText !== undefined) parts.unconverted.push({ line: at('steps', index, 'if'), what: `if: ${ifText} on uses: ${uses}`, instead: 'what the action becomes here runs every time' });
      if (uses.startsWith('./') || uses.startsWith('docker://')) {
        parts.unconverted.push({ line, what: `uses: ${uses}`, instead: uses.startsWith('docker://') ? `a step with \`image: ${uses.slice('docker://'.length)}\` and the commands it should run` : 'the commands of that local action, as commands of this step' });
        return;
      }
      const action = uses.replace(/@.*$/, '');
      // An action's inputs are its to read (a cache key's hashFiles()); what none can say is reported by the action's own rule.
      applyAction(action, inputsOf(step.with, (text) => substitute(text, inImage).text), parts, line);
      return;
    }
    const run = textOf(step.run);
    if (run === undefined) return;
    addEnv(mapOf(step.env), (key) => at('steps', index, 'env', key));
    let command = sub(run.replace(/\n$/, ''), at('steps', index, 'run')).text;
    const shell = textOf(step.shell);
    if (shell !== undefined && !/^(bash|sh)\b/.test(shell)) {
      parts.unconverted.push({ line: at('steps', index, 'shell'), what: `shell: ${shell}`, instead: `commands run in /bin/sh: call the interpreter in the command (e.g. \`${shell.split(' ')[0]} script\`)` });
    }
    if (BASHISM.test(command)) parts.unconverted.push({ line: at('steps', index, 'run'), what: `run: ${firstLine(command)} (bash)`, instead: 'commands run in /bin/sh, GitHub runs bash: write it for sh, or as `bash -c \'...\'` in an image with bash' });
    if (RUNNER_FILES.test(command)) parts.unconverted.push({ line: at('steps', index, 'run'), what: `run: ${firstLine(command)} (${RUNNER_FILES.exec(command)![1]})`, instead: 'a job\'s steps are commands of one shell here: `export NAME=value` instead of writing to the runner\'s files' });
    const directory = textOf(step['working-directory']);
    if (directory !== undefined) command = command.includes('\n') ? `(\ncd ${JSON.stringify(directory)}\n${command}\n)` : `(cd ${JSON.stringify(directory)} && ${command})`;
    if (ifText !== undefined) {
      const test = conditionOf(ifText);
      const shellTest = test && shellTestOf(test);
      if (!shellTest) {
        parts.unconverted.push({ line: at('steps', index, 'if'), what: `if: ${ifText} on run: ${firstLine(command)}`, instead: 'not written (it is above the step, as a comment): it runs only under a condition the shell cannot test here; test what it can in the command with the build\'s variables (CI_BRANCH, CI_EVENT)' });
        parts.notes.push(`not written, the command of line ${at('steps', index, 'run')}:\n${command.split('\n').map((text) => `    ${text}`).join('\n')}`);
        return;
      }
      command = `if ${shellTest}; then\n${command}\nfi`;
    }
    parts.commands.push(command);
  });

  const leftover = Object.keys(job).filter((key) => !JOB_KEYS_READ.includes(key));
  for (const key of leftover) parts.unconverted.push({ line: at(key), what: `${key}:`, instead: jobKeyInstead(key) });

  const image = jobImage(job, parts, inImage, first.values, at);
  if (matrix) versionValues(matrix, parts);
  const when = textOf(job.if) === undefined ? undefined : jobCondition(textOf(job.if)!, at('if'), parts.unconverted);
  const timeout = Number(job['timeout-minutes']);
  if (job['timeout-minutes'] !== undefined && !(Number.isInteger(timeout) && timeout > 0)) parts.unconverted.push({ line: at('timeout-minutes'), what: `timeout-minutes: ${textOf(job['timeout-minutes']) ?? ''}`, instead: 'a `timeout:` duration such as `30m`' });
  // A variable is a secret or a value, never both (lib/pipeline/cross-step-rules.ts): the secret wins.
  for (const secret of secrets.filter((secret) => env[secret.env] !== undefined)) {
    parts.unconverted.push({ line: envLines[secret.env] ?? at('env'), what: `env ${secret.env}: ${env[secret.env]}`, instead: `the step reads ${secret.env} from a secret elsewhere in the job; one variable has one value per step: rename one of them` });
    delete env[secret.env];
  }
  // A matrix's variable is set per combination (lib/pipeline/matrix-steps.ts refuses it in env or secrets too): the matrix's value wins.
  for (const key of Object.values(matrix?.names ?? {}).filter((key) => env[key] !== undefined || secrets.some((secret) => secret.env === key))) {
    parts.unconverted.push({ line: envLines[key] ?? at('env'), what: `env ${key}`, instead: `the matrix sets ${key} per combination: not written; rename one of them` });
    delete env[key];
    secrets.splice(0, secrets.length, ...secrets.filter((secret) => secret.env !== key));
  }
  const services = jobServices(mapOf(job.services), parts.unconverted, (...path) => at('services', ...path));
  for (const secret of secrets) {
    const github = secret.key === 'GITHUB_TOKEN' ? ' (GitHub\'s token for one run: give a token of your own)' : '';
    parts.notes.push(`${secret.env} is read from the Kubernetes Secret ${IMPORTED_SECRET}, key ${secret.key}${github}: create it in the build namespace, or give it to \`run --secret ${IMPORTED_SECRET}/${secret.key}\``);
  }
  const commands = [...parts.setup, ...exports, ...parts.commands];
  if (commands.length === 0) {
    parts.notes.push('the job runs no command of its own here: `true` keeps the step (and what needs it) in place');
    commands.push('true');
  }
  const step: DraftStep = {
    name,
    image,
    commands,
    ...(matrix ? { matrix: matrix.matrix } : {}),
    ...(matrix && strategy['fail-fast'] === false ? { 'fail-fast': false } : {}),
    env,
    secrets,
    services,
    cache: parts.cache,
    ...(parts.artifacts.length > 0 ? { artifacts: { paths: [...new Set(parts.artifacts)], ...(parts.expireIn ? { 'expire-in': parts.expireIn } : {}) } } : {}),
    ...(when ? { when } : {}),
    ...(Number.isInteger(timeout) && timeout > 0 ? { timeout: `${timeout}m` } : {}),
    origin: `from job "${id}" (line ${at()})`,
    unconverted: parts.unconverted,
    notes: parts.notes,
  };
  return { step, checkout: parts.checkout };
}

function addSecret(secrets: DraftSecret[], env: string, name: string): void {
  if (!secrets.some((secret) => secret.env === env)) secrets.push({ env, secret: IMPORTED_SECRET, key: name });
}

function firstLine(command: string): string {
  const [first = ''] = command.split('\n');
  return first.length > 60 || command.includes('\n') ? `${first.slice(0, 60)}...` : first;
}

function jobKeyInstead(key: string): string {
  switch (key) {
    case 'permissions':
      return 'steps here get no GitHub token: give one as a secret if the step calls GitHub';
    case 'environment':
      return 'no deployment environments here: give its secrets as `secrets:` and its branch rule as `when.branch`';
    case 'outputs':
      return 'jobs share the workspace here: write the value to a file that the steps after it read';
    case 'continue-on-error':
      return 'end the last command with `|| true` if the step must not fail the build';
    case 'concurrency':
      return '`concurrency:` at the top holds for the whole build';
    default:
      return 'nothing here says it';
  }
}

/** `container:` wins; else the first setup action's image; else the runner's. */
function jobImage(job: Record<string, unknown>, parts: JobParts, matrix: Readonly<Record<string, string>>, first: Readonly<Record<string, string>>, at: (...path: (string | number)[]) => number): string {
  const container = typeof job.container === 'string' ? job.container : textOf(mapOf(job.container).image);
  const written = textsOf(job['runs-on']).join(',');
  // With the step's own matrix (its image's values are templates, not the first combination's), a runner axis chooses nothing here.
  if (/\bmatrix\./.test(written) && matrix !== first) {
    parts.unconverted.push({ line: at('runs-on'), what: `runs-on: ${written}`, instead: 'every combination runs in a Linux container here: exclude the combinations for other systems, or drop the axis' });
  }
  const [setup, ...others] = parts.images;
  for (const other of others) parts.unconverted.push({ line: other.line, what: `uses: ${other.action} beside ${setup!.action}`, instead: `one image per step: written ${setup!.image}; use an image that has both` });
  if (container !== undefined) {
    const image = substitute(container, matrix).text;
    if (setup) parts.notes.push(`the container's image is used; ${setup.action} (line ${setup.line}) is not`);
    for (const key of Object.keys(mapOf(job.container)).filter((key) => key !== 'image' && key !== 'env')) parts.unconverted.push({ line: at('container', key), what: `container.${key}`, instead: 'nothing here says it' });
    return image;
  }
  if (setup) return setup.image;
  const runsOn = substitute(written, first).text;
  const image = runnerImage(runsOn);
  if (image) {
    parts.notes.push(`runs-on ${runsOn}: written ${image}, an image with git, curl and build tools; pick the image the commands need`);
    return image;
  }
  parts.unconverted.push({ line: at('runs-on'), what: `runs-on: ${runsOn}`, instead: 'steps run in Linux containers: written buildpack-deps:noble; pick a Linux image the commands work in' });
  return 'buildpack-deps:noble';
}

/**
 * The job's `strategy` as the step's `matrix:` (and `fail-fast`), or undefined: no matrix, one
 * combination only (its values written in place), or one that is listed instead.
 */
function strategyMatrix(strategy: Record<string, unknown>, first: ReturnType<typeof firstCombination>, at: (...path: (string | number)[]) => number, parts: JobParts): ConvertedMatrix | undefined {
  const raw = strategy.matrix;
  const line = at('strategy', 'matrix');
  const single = first.adjusted.length === 0 && Object.values(first.axes).every((values) => values.length <= 1);
  let matrix: ConvertedMatrix | undefined;
  if (typeof raw === 'string') {
    parts.unconverted.push({ line, what: `strategy.matrix: ${raw}`, instead: 'a matrix an expression makes: write the step\'s `matrix:` with the axes it gives' });
  } else if (raw !== undefined && !single) {
    const converted = convertGitHubMatrix(mapOf(raw));
    if ('reason' in converted) parts.unconverted.push(...matrixUnconverted(first, line, 'strategy.matrix', converted.reason));
    else {
      matrix = converted;
      parts.notes.push(...converted.notes);
    }
  }
  for (const key of Object.keys(strategy).filter((key) => key !== 'matrix')) {
    if (key === 'fail-fast' && matrix) continue;
    if (key === 'fail-fast' && single) {
      parts.notes.push(`strategy.fail-fast: the matrix has one combination, written in place, so there is nothing to wait for`);
      continue;
    }
    parts.unconverted.push({
      line: at('strategy', key),
      what: `strategy.${key}${textOf(strategy[key]) === undefined ? '' : `: ${textOf(strategy[key])}`}`,
      instead: key === 'max-parallel' ? 'the combinations run side by side, as many at a time as the build runs steps' : key === 'fail-fast' ? 'for a step\'s `matrix:`: `fail-fast: false` beside it' : 'nothing here says it',
    });
  }
  return matrix;
}

/** A setup action's version from the matrix is the image's tag: `22.x` is written `22`, as for a version given in place. */
function versionValues(matrix: ConvertedMatrix, parts: JobParts): void {
  for (const axis of new Set(parts.versionAxes)) {
    const changed: string[] = [];
    const tag = (value: string) => {
      const written = versionTag(value) ?? value;
      if (written !== value) changed.push(`${value} is ${written}`);
      return written;
    };
    for (const [key, list] of Object.entries(matrix.matrix)) {
      if (key === axis) matrix.matrix[key] = (list as string[]).map(tag);
      else if (key === 'include' || key === 'exclude') for (const entry of list as Record<string, string>[]) if (entry[axis] !== undefined) entry[axis] = tag(entry[axis]);
    }
    if (changed.length > 0) parts.notes.push(`matrix ${axis}: ${[...new Set(changed)].join(', ')}, the image's tag (the step reads it as $${axis} too)`);
  }
}

function jobCondition(expression: string, line: number, unconverted: Unconverted[]) {
  const when = conditionOf(expression);
  if (when) return when;
  const always = /always\(\)/.test(expression);
  unconverted.push({
    line,
    what: `if: ${expression}`,
    instead: always
      ? 'a step runs once what it needs has succeeded; for a run after a failure too, copy the step with `when: {status: [failure]}`'
      : '`when:` holds branch, event, status and changed files only: written without a condition',
  });
  return undefined;
}

function jobServices(services: Record<string, unknown>, unconverted: Unconverted[], at: (...path: (string | number)[]) => number): DraftService[] {
  return Object.entries(services).map(([id, raw]) => {
    const service = typeof raw === 'string' ? { image: raw } : mapOf(raw);
    const ports = textsOf(service.ports).flatMap((port) => {
      const container = Number(port.split(':').at(-1)!.replace(/\/tcp$/, ''));
      if (port.includes(':') && port.split(':')[0] !== port.split(':').at(-1)) unconverted.push({ line: at(id, 'ports'), what: `ports: ${port}`, instead: `a service is reached on its own port here (localhost:${container} or ${labelOf(id)}:${container})` });
      return Number.isInteger(container) && container > 0 ? [container] : [];
    });
    for (const key of Object.keys(service).filter((key) => !['image', 'env', 'ports'].includes(key))) unconverted.push({ line: at(id, key), what: `services.${id}.${key}`, instead: 'nothing here says it for a service' });
    const env: Record<string, string> = {};
    const secrets: DraftSecret[] = [];
    for (const [key, value] of Object.entries(mapOf(service.env))) {
      const text = textOf(value) ?? '';
      const secret = /^\$\{\{\s*secrets\.(\w+)\s*\}\}$/.exec(text)?.[1];
      if (secret !== undefined) addSecret(secrets, key, secret);
      else if (text.includes('${{')) unconverted.push({ line: at(id, 'env', key), what: `services.${id}.env.${key}: ${text}`, instead: 'a service\'s env is text as written: write the value' });
      else env[key] = text;
    }
    return {
      name: labelOf(id, 'service'),
      image: textOf(service.image) ?? '',
      ...(Object.keys(env).length > 0 ? { env } : {}),
      ...(ports.length > 0 ? { ports } : {}),
      ...(secrets.length > 0 ? { secrets } : {}),
    };
  });
}
