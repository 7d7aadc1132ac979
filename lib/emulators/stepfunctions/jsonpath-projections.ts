/**
 * A wildcard projection that matches nothing is the empty list, as Step Functions answers it: a
 * path such as `$[*].failure` in a Parameters or ResultSelector field is not a reference path
 * ("Using JSONPath paths",
 * https://docs.aws.amazon.com/step-functions/latest/dg/amazon-states-language-paths.html) and
 * selects a list of the values it finds, none being `[]` (found against Step Functions itself in
 * localstack/localstack#12318, whose fix moto's interpreter carries:
 * moto/stepfunctions/parser/asl/utils/json_path.py, and again with `test-state` in
 * ministackorg/ministack#1217).
 *
 * aws-local-stepfunctions 3.0.0 asks jsonpath-plus for an unwrapped result (`wrap: false`), which
 * is `undefined` when nothing matches, and then fails the state with States.Runtime ("does not
 * point to a value"). jsonpath-plus already keeps a wildcard's single match in a list; only the
 * empty case differs, and only that is changed here, for paths with a `[*]` wildcard (the
 * definition's RunSteps ResultSelector). Imported for its effect by executor.ts, as polyfills.ts is.
 */
import { JSONPath } from 'jsonpath-plus';

/** Whether the path projects over an array's elements with `[*]`. Pure. */
export function isWildcardProjection(path: unknown): boolean {
  return typeof path === 'string' && path.includes('[*]');
}

type Evaluate = (this: { path?: unknown }, expr?: unknown, ...rest: unknown[]) => unknown;
const prototype = (JSONPath as unknown as { prototype: { evaluate: Evaluate; wildcardsAsLists?: true } }).prototype;

if (!prototype.wildcardsAsLists) {
  const evaluate = prototype.evaluate;
  prototype.evaluate = function (this: { path?: unknown }, expr?: unknown, ...rest: unknown[]) {
    const result = evaluate.call(this, expr, ...rest);
    if (result !== undefined) return result;
    const path = typeof expr === 'string' ? expr : expr && typeof expr === 'object' && !Array.isArray(expr) ? (expr as { path?: unknown }).path : this.path;
    return isWildcardProjection(path) ? [] : result;
  };
  prototype.wildcardsAsLists = true;
}
