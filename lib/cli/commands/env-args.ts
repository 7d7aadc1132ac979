/** `run --env NAME=VALUE`: build variables given on the command line. */
import { envNameProblem } from '../../pipeline/names.js';
import { BuildVariables } from '../../workflow/build-environment.js';
import { UsageError } from './usage.js';

const RUNNER_VARIABLES: ReadonlySet<string> = new Set(Object.values(BuildVariables));

/**
 * The variables, in the order given (a later NAME wins, as in a shell). A name the runner sets
 * itself (CI_BRANCH...) is refused: the build's own facts come from --branch, --event and the
 * source, and a step that saw another CI_COMMIT_SHA than the one checked out would be lied to.
 */
export function envOptions(values: readonly string[]): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const given of values) {
    const at = given.indexOf('=');
    if (at < 0) throw new UsageError(`--env takes NAME=VALUE, got ${JSON.stringify(given)}`);
    const name = given.slice(0, at);
    const problem = envNameProblem(name);
    if (problem) throw new UsageError(`--env ${problem}`);
    if (RUNNER_VARIABLES.has(name)) throw new UsageError(`--env ${name}: the runner sets ${name} itself (docs/contracts.md#build-variables); use --branch or --event for the build's facts`);
    variables[name] = given.slice(at + 1);
  }
  return variables;
}
