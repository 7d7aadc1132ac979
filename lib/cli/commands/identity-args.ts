/** `run --identity NAME=ROLE_ARN`: the identities a local build's steps may ask for. */
import { identityNameProblem } from '../../pipeline/index.js';
import { roleArnProblem, type Identity } from '../../workflow/identities.js';
import { UsageError } from './usage.js';

/**
 * The identities, each once. They carry no rules: whoever runs the build declares them for it, so
 * every local build may use them (the deployment's rules are for builds others start).
 */
export function identityOptions(values: readonly string[]): Identity[] {
  const identities = new Map<string, Identity>();
  for (const given of values) {
    const at = given.indexOf('=');
    if (at < 0) throw new UsageError(`--identity takes NAME=ROLE_ARN, got ${JSON.stringify(given)}`);
    const name = given.slice(0, at);
    const roleArn = given.slice(at + 1);
    const nameProblem = identityNameProblem(name);
    if (nameProblem) throw new UsageError(`--identity ${nameProblem}`);
    const roleProblem = roleArnProblem(roleArn);
    if (roleProblem) throw new UsageError(`--identity ${name}: the role ${roleProblem}`);
    if (identities.has(name) && identities.get(name)!.roleArn !== roleArn) throw new UsageError(`--identity ${name} is given twice, with two roles`);
    identities.set(name, { name, roleArn });
  }
  return [...identities.values()];
}
