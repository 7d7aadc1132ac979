/**
 * The identities a deployment declares (its STEP_IDENTITIES setting, or `run --identity` locally):
 * each a name, the IAM role EKS Pod Identity gives its service account, and the rules of which
 * builds may use it. A pipeline only names one (`identity: NAME`); whether the build may have it is
 * decided here, from the build alone, by rules the pipeline file cannot change. Pure.
 *
 * Rules are allow-lists, each required: a repository, a ref and an event the build must match, and
 * a fork's pull request refused unless the identity says `forks: true`. Nothing is allowed by
 * leaving a field out (the pipeline file is written by whoever opens a pull request; Woodpecker's
 * GHSA-qf34-295c-26v8 is what a runner that let it choose looked like).
 */
import { ErrorNames, StepRunnerError, type BuildRef } from '../contract/index.js';
import { WhenEvents, branchOfRef, buildEvent, globMatches, identityNameProblem, InvalidPipeline, type SettingCheck, type Step } from '../pipeline/index.js';

export interface IdentityRules {
  /** `owner/name` globs (`acme/*`; `**` for any). */
  repositories: string[];
  /** Full-ref globs: `refs/heads/main`, `refs/heads/release/*`, `refs/tags/v*`. A pull request is matched by its base branch. */
  refs: string[];
  /** The build's event as `when.event` reads it (WhenEvents): `tag` for a tag ref. */
  events: string[];
  /** A pull request from a fork may use it: never unless said. */
  forks: boolean;
}

export interface Identity {
  name: string;
  /** The IAM role its service account is associated with (an EKS Pod Identity association). */
  roleArn: string;
  /**
   * Which builds may use it. Absent only for an identity a person declared for a run of their own
   * (`run --identity`): every local build may use it.
   */
  rules?: IdentityRules;
}

/** A build's part in the decision: what the forge said about it (BuildRef). */
export type IdentityBuild = Pick<BuildRef, 'repository' | 'ref' | 'event' | 'baseRef' | 'pullRequest'>;

export type IdentityVerdict = { allowed: true } | { allowed: false; rule: string };

// arn:PARTITION:iam::ACCOUNT:role/PATH/NAME (IAM's role ARN; paths allowed).
const ROLE_ARN = /^arn:aws(?:-[a-z]+)*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;
/** Why a text is not an IAM role's ARN, or undefined. */
export function roleArnProblem(role: unknown): string | undefined {
  if (typeof role === 'string' && ROLE_ARN.test(role)) return undefined;
  return `must be an IAM role's ARN (arn:aws:iam::123456789012:role/NAME), got ${role === undefined ? 'nothing' : JSON.stringify(role)}`;
}

const RULE_FIELDS = ['repositories', 'refs', 'events'] as const;
const IDENTITY_FIELDS = ['role', ...RULE_FIELDS, 'forks'];

/**
 * The deployment's setting: a map of name to `{role, repositories, refs, events, forks}` (JSON,
 * or what YAML reads). Every problem is named with its identity and field.
 */
export function checkIdentities(value: unknown): SettingCheck<Identity[]> {
  if (!isMap(value)) return { ok: false, problems: ['must be a map of identity name to {role, repositories, refs, events, forks}'] };
  const problems: string[] = [];
  const identities: Identity[] = [];
  for (const [name, given] of Object.entries(value)) {
    const at = `identity ${JSON.stringify(name)}`;
    const nameProblem = identityNameProblem(name);
    if (nameProblem) problems.push(`${at}: ${nameProblem}`);
    if (!isMap(given)) {
      problems.push(`${at}: must be a map with role, repositories, refs, events and optionally forks`);
      continue;
    }
    for (const key of Object.keys(given)) {
      if (!IDENTITY_FIELDS.includes(key)) problems.push(`${at}: unknown field ${JSON.stringify(key)} (expected one of: ${IDENTITY_FIELDS.join(', ')})`);
    }
    const role = given['role'];
    const roleProblem = roleArnProblem(role);
    if (roleProblem) problems.push(`${at}, role: ${roleProblem}`);
    const lists = RULE_FIELDS.map((field) => {
      const list = given[field];
      const items = typeof list === 'string' ? [list] : list;
      if (!Array.isArray(items) || items.length === 0 || !items.every((item) => typeof item === 'string' && item.trim() !== '')) {
        problems.push(`${at}, ${field}: must list at least one ${field === 'repositories' ? 'repository glob (owner/name, "**" for any)' : field === 'refs' ? 'ref glob (refs/heads/main, refs/tags/v*; "**" for any)' : `event (${WhenEvents.join(', ')})`}: nothing is allowed by leaving it out`);
        return [];
      }
      return items as string[];
    });
    const [repositories = [], refs = [], events = []] = lists;
    for (const event of events) {
      if (!(WhenEvents as readonly string[]).includes(event)) problems.push(`${at}, events: ${JSON.stringify(event)} is not one of ${WhenEvents.join(', ')}`);
    }
    const forks = given['forks'] ?? false;
    if (typeof forks !== 'boolean') problems.push(`${at}, forks: must be true or false, got ${JSON.stringify(forks)}`);
    identities.push({ name, roleArn: String(role), rules: { repositories, refs, events, forks: forks === true } });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: identities };
}

/**
 * Whether the build may use the identity, or the rule that refuses it. A pull request is matched
 * by the branch it would merge into (as `when.branch` reads it), never by its head.
 */
export function identityVerdict(identity: Identity, build: IdentityBuild): IdentityVerdict {
  const { rules } = identity;
  if (!rules) return { allowed: true };
  if (build.pullRequest?.fork && !rules.forks) return { allowed: false, rule: 'forks (a pull request from a fork, and the identity does not say forks: true)' };
  const repository = build.repository;
  if (repository === undefined || !rules.repositories.some((pattern) => globMatches(pattern, repository))) {
    return { allowed: false, rule: `repositories [${rules.repositories.join(', ')}]` };
  }
  const ref = identityRef(build);
  if (ref === undefined || !rules.refs.some((pattern) => globMatches(pattern, ref))) return { allowed: false, rule: `refs [${rules.refs.join(', ')}]` };
  const event = buildEvent(build);
  if (event === undefined || !rules.events.includes(event)) return { allowed: false, rule: `events [${rules.events.join(', ')}]` };
  return { allowed: true };
}

/** The ref the rules read: a pull request's base branch, else the build's own. */
function identityRef(build: IdentityBuild): string | undefined {
  if (build.event !== 'pull_request') return build.ref;
  return branchOfRef(build.baseRef) !== undefined ? build.baseRef : undefined;
}

export class IdentityNotAllowed extends StepRunnerError {
  override readonly name = ErrorNames.IdentityNotAllowed;
}

/**
 * Each identity the steps ask for, checked before any pod: an undeclared name is a pipeline
 * problem (InvalidPipeline, at its line); a build the rules refuse fails IdentityNotAllowed.
 */
export function checkStepIdentities(steps: readonly Step[], declared: readonly Identity[], build: IdentityBuild, file: string): void {
  const byName = new Map(declared.map((identity) => [identity.name, identity]));
  for (const step of steps) {
    if (step.identity === undefined) continue;
    const identity = byName.get(step.identity);
    const line = step.identityLine ?? step.line;
    if (!identity) {
      const known = `${declared.length > 0 ? `it declares ${declared.map((d) => JSON.stringify(d.name)).join(', ')}` : 'it declares none'}; a local run declares one with --identity ${step.identity}=ROLE_ARN`;
      throw new InvalidPipeline(
        `${file}${line !== undefined ? ` line ${line}` : ''}: step "${step.name}": identity: ${JSON.stringify(step.identity)} is not an identity this deployment declares (${known})`,
        { file, step: step.name, field: 'identity', ...(line !== undefined ? { line } : {}) },
      );
    }
    const verdict = identityVerdict(identity, build);
    if (!verdict.allowed) {
      throw new IdentityNotAllowed(
        `Step "${step.name}" asks for the identity "${identity.name}", whose rule ${verdict.rule} does not allow this build: ` +
          `repository ${build.repository ?? '(none)'}, ref ${build.ref ?? '(none)'}${build.event === 'pull_request' && build.baseRef ? ` (into ${build.baseRef})` : ''}, event ${buildEvent(build) ?? '(none)'}` +
          `${build.pullRequest?.fork ? ', from a fork' : ''}. The deployment's rules decide who may use an identity; the pipeline file cannot.`,
      );
    }
  }
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
