/**
 * GitHub Actions' `${{ }}` expressions (docs.github.com/en/actions/reference/workflows-and-actions/expressions):
 * the few a step can say in its own words (the build's variables, docs/contracts.md#build-variables),
 * and the `if:` conditions that are a `when`.
 */
import type { DraftWhen } from './types.js';

/** `github.*` contexts that are one of the build's variables. */
const CONTEXT_VARIABLES: Record<string, string> = {
  'github.sha': 'CI_COMMIT_SHA',
  'github.ref': 'CI_REF',
  'github.ref_name': 'CI_BRANCH',
  'github.head_ref': 'CI_BRANCH',
  'github.repository': 'CI_REPOSITORY',
  'github.event_name': 'CI_EVENT',
  'github.workspace': 'CI_WORKSPACE',
  'github.run_id': 'CI_BUILD_ID',
};

/** What the expressions of one text became. */
export interface Substituted {
  text: string;
  /** `secrets.NAME` read: the names, each now `$NAME` in the text. */
  secrets: string[];
  /** Expressions left as written: nothing here can say them. */
  unknown: string[];
  /** The text reads a variable (`$NAME`) where it had an expression. */
  readsVariable: boolean;
}

const EXPRESSION = /\$\{\{\s*(.*?)\s*\}\}/g;

/**
 * Replaces each expression it can: `matrix.X` by what `matrix` says for X (a value, the step's
 * variable `${X}`, or the image's `${{ matrix.X }}`; `matrixReadsVariable` when it is the
 * variable), `env.X` and `secrets.X` by `$X`, build facts by their variable. The rest stay, and
 * are reported.
 */
export function substitute(text: string, matrix: Readonly<Record<string, string>>, matrixReadsVariable = false): Substituted {
  const secrets: string[] = [];
  const unknown: string[] = [];
  let readsVariable = false;
  const replaced = text.replace(EXPRESSION, (whole: string, expression: string) => {
    const matrixKey = /^matrix\.([\w-]+)$/.exec(expression)?.[1];
    if (matrixKey !== undefined && matrix[matrixKey] !== undefined) {
      readsVariable ||= matrixReadsVariable;
      return matrix[matrixKey];
    }
    const secret = /^secrets\.(\w+)$/.exec(expression)?.[1];
    if (secret !== undefined) {
      secrets.push(secret);
      readsVariable = true;
      return `$${secret}`;
    }
    const variable = /^env\.(\w+)$/.exec(expression)?.[1] ?? CONTEXT_VARIABLES[expression];
    if (variable !== undefined) {
      readsVariable = true;
      return `$${variable}`;
    }
    unknown.push(whole);
    return whole;
  });
  return { text: replaced, secrets, unknown, readsVariable };
}

const EVENTS: Record<string, string> = { push: 'push', pull_request: 'pull_request', pull_request_target: 'pull_request' };

/**
 * An `if:` made of `&&`-joined tests a `when` can say (the ref, the event, success or failure), or
 * undefined. `||`, negation and any other function are not a `when`.
 */
export function conditionOf(expression: string): DraftWhen | undefined {
  const bare = expression.trim().replace(/^\$\{\{\s*([\s\S]*?)\s*\}\}$/, '$1').trim();
  if (bare === '' || bare.includes('||')) return undefined;
  const when: DraftWhen = {};
  for (const term of bare.split('&&').map((part) => part.trim().replace(/^\((.*)\)$/, '$1').trim())) {
    if (term === 'success()') continue;
    if (term === 'failure()') {
      when.status = ['failure'];
      continue;
    }
    const [context, value] = comparison(term) ?? [];
    if (context === 'github.ref' && value?.startsWith('refs/heads/')) when.branch = [value.slice('refs/heads/'.length)];
    else if (context === 'github.ref_name' && value !== undefined) when.branch = [value];
    else if (context === 'github.event_name' && value !== undefined && EVENTS[value]) when.event = [EVENTS[value]];
    else if (/^startsWith\(\s*github\.ref\s*,\s*'refs\/tags\/'\s*\)$/.test(term)) when.event = ['tag'];
    else {
      const prefix = /^startsWith\(\s*github\.ref\s*,\s*'refs\/heads\/([^']*)'\s*\)$/.exec(term)?.[1];
      if (prefix === undefined || prefix === '') return undefined;
      when.branch = [`${prefix}**`];
    }
  }
  return when;
}

/** `github.X == 'v'` (either way round) as [github.X, v]. */
function comparison(term: string): [string, string] | undefined {
  const left = /^(github\.[\w.]+)\s*==\s*'([^']*)'$/.exec(term);
  if (left) return [left[1]!, left[2]!];
  const right = /^'([^']*)'\s*==\s*(github\.[\w.]+)$/.exec(term);
  return right ? [right[2]!, right[1]!] : undefined;
}

/**
 * The same condition as a test in the step's shell, for an `if:` on one of a job's steps (the job
 * is one step here): only the branch and the event can be tested there.
 */
export function shellTestOf(when: DraftWhen): string | undefined {
  if (when.status || when.paths || when['paths-ignore']) return undefined;
  const tests: string[] = [];
  for (const branch of when.branch ?? []) {
    if (/[*?[]/.test(branch)) return undefined;
    tests.push(`[ "$CI_BRANCH" = ${JSON.stringify(branch)} ]`);
  }
  // A local run is a push to `when` (docs/pipeline.md#conditional-steps), so to this test too.
  for (const event of when.event ?? []) tests.push(event === 'push' ? '{ [ "$CI_EVENT" = push ] || [ "$CI_EVENT" = local ]; }' : `[ "$CI_EVENT" = ${event} ]`);
  return tests.length === 0 ? undefined : tests.join(' && ');
}
