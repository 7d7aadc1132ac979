/**
 * The rules that relate one step to another, or one field to another, run on the raw data beside
 * the schema (schema.ts) so they are reported along with any other problem: unique step names,
 * `needs` (needs.ts) and `when: {status: [failure]}`, secret env names, a toleration's fields, node
 * selector keys, services (services.ts) and caches (cache.ts) across steps, an AWS secret's identity
 * (aws-secrets.ts), an image naming another step's digest (step-image.ts), and the steps' time budget.
 */
import { formatDuration } from './duration.js';
import { DEFAULT_APPROVAL_TIMEOUT_SECONDS, MAX_APPROVAL_TIMEOUT_SECONDS } from './approval.js';
import { labelKeyProblem } from './names.js';
import { needsProblems } from './needs.js';
import { serviceProblems } from './services.js';
import { cacheProblems } from './cache.js';
import { awsSecretIdentityProblems } from './aws-secrets.js';
import { expandMatrix, type MatrixInput } from './matrix.js';
import { approvalStepProblems } from './approval.js';
import { stepImageProblems } from './step-image.js';
import { isRecord, ProblemKinds, type PathSegment, type SchemaProblem } from './schema.js';
import { BUILD_TIME_LIMIT_SECONDS, CHECKOUT_STEP, DEFAULT_STEP_TIMEOUT_SECONDS } from './types.js';

/** The deployment's `maxParallelSteps` unless it says otherwise (lib/workflow/settings.ts): what the time budget assumes of a matrix. */
const DEFAULT_MAX_PARALLEL = 10;

/** Every rule across steps and fields, on the raw data. */
export function crossStepRuleProblems(data: unknown): SchemaProblem[] {
  return [
    ...crossStepProblems(data),
    ...serviceProblems(data).map((problem) => ({ ...problem, kind: ProblemKinds.other })),
    ...cacheProblems(data).map((problem) => ({ ...problem, kind: ProblemKinds.other })),
    ...awsSecretIdentityProblems(data).map((problem) => ({ ...problem, kind: ProblemKinds.other })),
    ...approvalStepProblems(data).map((problem) => ({ ...problem, kind: ProblemKinds.other })),
    ...stepImageProblems(data).map((problem) => ({ ...problem, kind: ProblemKinds.other })),
  ];
}

/**
 * The steps' timeouts together, once each is known: past the execution's limit Step Functions ends
 * the build. A matrix's combinations run side by side, `maxParallel` at a time (the pipeline's
 * `max-parallel`, else the deployment's default, 10): each group of that many counts once. An
 * approval's wait is not a step's run: it is bounded on its own (approval.ts), and the
 * definition's limit is the build's 24 h and the longest waits together (ApprovalTimedOut).
 */
export function timeBudgetProblem(
  steps: readonly { timeout?: number | undefined; matrix?: MatrixInput | undefined; approval?: { timeout?: number | undefined } | undefined }[],
  maxParallel = DEFAULT_MAX_PARALLEL,
): SchemaProblem | undefined {
  const approvals = steps.reduce((sum, step) => sum + (step.approval ? (step.approval.timeout ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS) : 0), 0);
  if (approvals > MAX_APPROVAL_TIMEOUT_SECONDS) {
    const message =
      `the approvals' timeouts add up to ${formatDuration(approvals)} (an approval without "timeout" counts ${formatDuration(DEFAULT_APPROVAL_TIMEOUT_SECONDS)}), ` +
      `more than the ${formatDuration(MAX_APPROVAL_TIMEOUT_SECONDS)} a build may wait for people, past which Step Functions stops it as TIMED_OUT; give the approvals shorter "timeout"s`;
    return { path: ['steps'], message, kind: ProblemKinds.other };
  }
  const rounds = (step: { matrix?: MatrixInput | undefined }) => (step.matrix ? Math.ceil(expandMatrix(step.matrix).length / maxParallel) : 1);
  const total = steps.reduce((sum, step) => sum + (step.approval ? 0 : rounds(step) * (step.timeout ?? DEFAULT_STEP_TIMEOUT_SECONDS)), 0);
  if (total <= BUILD_TIME_LIMIT_SECONDS) return undefined;
  const message =
    `the steps' timeouts add up to ${formatDuration(total)} (a step without "timeout" counts ${formatDuration(DEFAULT_STEP_TIMEOUT_SECONDS)}), ` +
    `more than the ${formatDuration(BUILD_TIME_LIMIT_SECONDS)} a build may run, past which Step Functions stops it as TIMED_OUT; give the steps shorter "timeout"s`;
  return { path: ['steps'], message, kind: ProblemKinds.other };
}

/** Label keys of a node selector as written; run on the raw data, as the rules across fields are. */
export function nodeSelectorKeyProblems(value: unknown): { path: PathSegment[]; message: string }[] {
  if (!isRecord(value)) return [];
  return Object.keys(value).flatMap((key) => {
    const message = labelKeyProblem(key);
    return message ? [{ path: [key], message }] : [];
  });
}

/**
 * Kubernetes' rules across a toleration's fields (ValidateTolerations), on the raw data so they
 * are said along with any other problem of the same toleration.
 */
export function tolerationRuleProblems(value: unknown): { path: PathSegment[]; message: string }[] {
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
