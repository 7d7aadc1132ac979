/**
 * GitLab's `rules`, `only`/`except` and `when` (docs.gitlab.com/ci/jobs/job_rules/) as a step's
 * `when`, where they say what a `when` can: the branch, the pipeline's source, a tag, changed
 * files, a failed pipeline. Rules are tried in order and the first that matches decides, so a
 * list of them is an "or": it fits one `when` only when every rule tests the same one thing.
 */
import { listOf, mapOf, textOf, textsOf } from './source.js';
import type { DraftWhen } from './types.js';

export type RulesVerdict = { ok: true; when?: DraftWhen } | { ok: false; why: string };

// https://docs.gitlab.com/ci/jobs/job_rules/#ci_pipeline_source-predefined-variable
const SOURCES: Record<string, string> = {
  push: 'push',
  merge_request_event: 'pull_request',
  external_pull_request_event: 'pull_request',
  web: 'generic',
  api: 'generic',
  trigger: 'generic',
  schedule: 'generic',
  pipeline: 'generic',
};

/** One `if:` made of `&&`-joined tests, or undefined. */
export function ifCondition(expression: string): DraftWhen | undefined {
  if (expression.includes('||') || expression.includes('(')) return undefined;
  const when: DraftWhen = {};
  for (const term of expression.split('&&').map((part) => part.trim())) {
    const left = /^\$(\w+)\s*==\s*["']([^"']*)["']$/.exec(term);
    const right = /^["']([^"']*)["']\s*==\s*\$(\w+)$/.exec(term);
    const bare = /^\$(\w+)$/.exec(term);
    const [variable, value] = left ? [left[1], left[2]] : right ? [right[2], right[1]] : [bare?.[1], undefined];
    if ((variable === 'CI_COMMIT_BRANCH' || variable === 'CI_COMMIT_REF_NAME') && value !== undefined) when.branch = [value];
    else if (variable === 'CI_PIPELINE_SOURCE' && value !== undefined && SOURCES[value]) when.event = [SOURCES[value]];
    else if ((variable === 'CI_MERGE_REQUEST_IID' || variable === 'CI_MERGE_REQUEST_ID') && value === undefined) when.event = ['pull_request'];
    else if (variable === 'CI_COMMIT_TAG' && value === undefined) when.event = ['tag'];
    else if (variable === 'CI_COMMIT_BRANCH' && value === undefined) when.event = ['push'];
    else return undefined;
  }
  return when;
}

/** Several conditions, any of which runs the job, as one `when`; undefined when they test different things. */
function anyOf(conditions: readonly DraftWhen[]): DraftWhen | undefined | 'always' {
  if (conditions.some((condition) => Object.keys(condition).length === 0)) return 'always';
  const keys = new Set(conditions.flatMap((condition) => Object.keys(condition)));
  if (keys.size !== 1 || conditions.some((condition) => Object.keys(condition).length !== 1)) return undefined;
  const [key] = [...keys] as [keyof DraftWhen];
  return { [key]: [...new Set(conditions.flatMap((condition) => condition[key]!))] };
}

/** `rules:` as a `when`, or why not. */
export function rulesVerdict(rules: unknown): RulesVerdict {
  const conditions: DraftWhen[] = [];
  let untestable: string | undefined;
  for (const raw of listOf(rules)) {
    const rule = mapOf(raw);
    const other = Object.keys(rule).filter((key) => !['if', 'changes', 'when'].includes(key));
    if (other.length > 0) return { ok: false, why: `a rule with ${other.join(', ')}` };
    const when = textOf(rule.when) ?? 'on_success';
    if (when !== 'on_success' && when !== 'always') return { ok: false, why: `a rule with \`when: ${when}\`` };
    const condition: DraftWhen = {};
    const ifText = textOf(rule.if);
    if (ifText !== undefined) {
      const tested = ifCondition(ifText);
      // Untestable, but a rule with no condition further down runs the job anyway.
      if (!tested) {
        untestable ??= ifText;
        continue;
      }
      Object.assign(condition, tested);
    }
    if (rule.changes !== undefined) {
      const changes = Array.isArray(rule.changes) ? textsOf(rule.changes) : textsOf(mapOf(rule.changes).paths);
      if (!Array.isArray(rule.changes) && mapOf(rule.changes).compare_to !== undefined) return { ok: false, why: '`changes: {compare_to}`' };
      condition.paths = changes;
    }
    conditions.push(condition);
  }
  const any = conditions.length === 0 ? undefined : anyOf(conditions);
  if (any === 'always') return { ok: true };
  if (untestable !== undefined) return { ok: false, why: `\`if: ${untestable}\`` };
  if (conditions.length === 0) return { ok: true };
  return any ? { ok: true, when: any } : { ok: false, why: 'rules that test different things (a `when` holds all of its keys at once)' };
}

// https://docs.gitlab.com/ci/yaml/deprecated_keywords/#only--except
const ONLY_KEYWORDS: Record<string, DraftWhen> = {
  branches: { event: ['push'] },
  tags: { event: ['tag'] },
  merge_requests: { event: ['pull_request'] },
  external_pull_requests: { event: ['pull_request'] },
  web: { event: ['generic'] },
  api: { event: ['generic'] },
  triggers: { event: ['generic'] },
  schedules: { event: ['generic'] },
  pipelines: { event: ['generic'] },
};
const EVERY_EVENT = ['push', 'pull_request', 'tag', 'generic'];

/** `only:` and `except:` as a `when`, or why not. */
export function onlyExceptVerdict(only: unknown, except: unknown): RulesVerdict {
  const when: DraftWhen = {};
  if (only !== undefined) {
    const onlyMap = Array.isArray(only) || typeof only === 'string' ? { refs: only } : mapOf(only);
    const other = Object.keys(onlyMap).filter((key) => key !== 'refs' && key !== 'changes');
    if (other.length > 0) return { ok: false, why: `only: ${other.join(', ')}` };
    const conditions = textsOf(onlyMap.refs).map((ref): DraftWhen | undefined => ONLY_KEYWORDS[ref] ?? (ref.startsWith('/') ? undefined : { branch: [ref] }));
    if (conditions.some((condition) => condition === undefined)) return { ok: false, why: 'only: a /regular expression/' };
    const any = conditions.length === 0 ? 'always' : anyOf(conditions as DraftWhen[]);
    if (any === undefined) return { ok: false, why: 'only: refs that test different things' };
    if (any !== 'always') Object.assign(when, any);
    if (onlyMap.changes !== undefined) when.paths = textsOf(onlyMap.changes);
  }
  if (except !== undefined) {
    const refs = Array.isArray(except) || typeof except === 'string' ? textsOf(except) : textsOf(mapOf(except).refs);
    const other = Array.isArray(except) || typeof except === 'string' ? [] : Object.keys(mapOf(except)).filter((key) => key !== 'refs');
    const events = refs.map((ref) => ONLY_KEYWORDS[ref]?.event?.[0]);
    if (other.length > 0 || events.some((event) => event === undefined)) return { ok: false, why: 'except: branches or conditions (`when` lists what runs, not what does not)' };
    const left = (when.event ?? EVERY_EVENT).filter((event) => !events.includes(event));
    when.event = left;
  }
  return { ok: true, ...(Object.keys(when).length > 0 ? { when } : {}) };
}

/** `when:` on a job: `on_failure` is a `when.status`; manual and delayed jobs are what nothing here does. */
export function jobWhen(value: unknown): { when?: DraftWhen; unconverted?: string } {
  const text = textOf(value);
  if (text === undefined || text === 'on_success') return {};
  if (text === 'on_failure') return { when: { status: ['failure'] } };
  if (text === 'always') return { unconverted: 'written to run once what it needs has succeeded; for a failed build too, copy it with `when: {status: [failure]}`' };
  return { when: { event: ['generic'] }, unconverted: 'no manual or delayed steps here: written for generic deliveries only (`run --event generic`, POST /webhook/generic), so that no push starts it' };
}
