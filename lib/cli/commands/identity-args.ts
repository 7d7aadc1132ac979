/** `run --identity NAME=ROLE_ARN`: the identities a local build's steps may ask for. */
import { identityNameProblem } from '../../pipeline/index.js';
import YAML from 'yaml';
import { checkIdentities, roleArnProblem, type Identity } from '../../workflow/identities.js';
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

/**
 * `run --identities FILE`: the identities of a deployment's identities file (deploy/identities.example.yml's
 * format, checked as the deployment checks it), each with its role and without its rules, as
 * --identity gives them; a name --identity also gives must name the same role.
 */
export function identitiesFromFile(text: string, file: string, given: readonly Identity[] = []): Identity[] {
  let declared: unknown;
  try {
    declared = YAML.parse(text);
  } catch (error) {
    throw new UsageError(`--identities ${file}: not YAML: ${(error as Error).message}`);
  }
  const checked = checkIdentities(declared ?? {});
  if (!checked.ok) throw new UsageError(`--identities ${file}: ${checked.problems.join('; ')}`);
  const identities = new Map(given.map((identity) => [identity.name, identity]));
  for (const { name, roleArn } of checked.value) {
    const other = identities.get(name);
    if (other && other.roleArn !== roleArn) throw new UsageError(`--identity ${name} names the role ${other.roleArn}, and --identities ${file} the role ${roleArn}: give one`);
    identities.set(name, { name, roleArn });
  }
  return [...identities.values()];
}
