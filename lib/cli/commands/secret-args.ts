/**
 * `run --secret SECRET/KEY[=VALUE]` and `--secret-file FILE`: the values a pipeline's
 * `secrets: [{env, secret, key}]` read, given on the command line instead of kept on a cluster.
 */
import { readFile } from 'node:fs/promises';
import type { Pipeline, SecretEnv } from '../../pipeline/index.js';
import { dnsSubdomainProblem, secretKeyProblem } from '../../pipeline/names.js';
import { UsageError } from './usage.js';

/** One `SECRET/KEY[=VALUE]` as given; `value` absent: from the environment variable the pipeline reads it as. */
export interface SecretArgument {
  secret: string;
  key: string;
  value?: string;
  /** For messages: `--secret ci-db/password`, `secrets.env:3`. */
  givenBy: string;
}

/** A Secret key's value, ready to be stored. */
export interface SecretValue {
  secret: string;
  key: string;
  value: string;
}

/** Parses `SECRET/KEY` or `SECRET/KEY=VALUE` (the value is everything after the first `=`). */
export function secretArgument(text: string, givenBy: string): SecretArgument {
  const at = text.indexOf('=');
  const ref = at < 0 ? text : text.slice(0, at);
  const slash = ref.indexOf('/');
  if (slash < 0) throw new UsageError(`${givenBy}: expected SECRET/KEY=VALUE or SECRET/KEY, got ${JSON.stringify(ref)}`);
  const secret = ref.slice(0, slash);
  const key = ref.slice(slash + 1);
  const problem = dnsSubdomainProblem(secret) ?? secretKeyProblem(key);
  if (problem) throw new UsageError(`${givenBy}: ${problem}`);
  return { secret, key, ...(at < 0 ? {} : { value: text.slice(at + 1) }), givenBy };
}

/**
 * A secret file's lines: `SECRET/KEY=VALUE`, blank lines and `#` comments. A value is the rest of
 * its line, as is; one that starts and ends with `"` is a JSON string, which is how a value holds
 * a newline (`"line 1\nline 2"`) or leading and trailing spaces.
 */
export function parseSecretFile(text: string, file: string): SecretArgument[] {
  const found: SecretArgument[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const givenBy = `${file}:${index + 1}`;
    const argument = secretArgument(line.trimStart(), givenBy);
    found.push(argument.value === undefined ? argument : { ...argument, value: fileValue(argument.value, givenBy) });
  });
  return found;
}

function fileValue(raw: string, givenBy: string): string {
  if (!(raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"'))) return raw;
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === 'string') return value;
  } catch {
    // Reported below.
  }
  throw new UsageError(`${givenBy}: a value in double quotes must be a JSON string, got ${raw}`);
}

export async function readSecretFile(file: string): Promise<SecretArgument[]> {
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--secret-file ${file}: ${(error as Error).message}`);
  }
  return parseSecretFile(text, file);
}

/** Every `secrets` entry of the pipeline's steps and services, with the step that reads it. */
export function pipelineSecretRefs(pipeline: Pick<Pipeline, 'steps'>): (SecretEnv & { step: string })[] {
  return pipeline.steps.flatMap((step) => [
    ...step.secrets.map((ref) => ({ ...ref, step: step.name })),
    ...(step.services ?? []).flatMap((service) => service.secrets.map((ref) => ({ ...ref, step: `${step.name} (service ${service.name})` }))),
  ]);
}

/**
 * The values to store. A SECRET/KEY the pipeline never reads is refused (a typo would otherwise
 * leave the step without its value); one given without a value takes the environment variable the
 * pipeline reads it as. Later arguments win over earlier ones, the command line over the files
 * (the caller passes them in that order).
 */
export function resolveSecretValues(
  given: readonly SecretArgument[],
  pipeline: Pick<Pipeline, 'steps'>,
  environment: Readonly<Record<string, string | undefined>>,
): SecretValue[] {
  const refs = pipelineSecretRefs(pipeline);
  const values = new Map<string, SecretValue>();
  for (const argument of given) {
    const readers = refs.filter((ref) => ref.secret === argument.secret && ref.key === argument.key);
    const name = `${argument.secret}/${argument.key}`;
    if (readers.length === 0) {
      const known = [...new Set(refs.map((ref) => `${ref.secret}/${ref.key}`))];
      throw new UsageError(`${argument.givenBy}: the pipeline reads no secret ${name} (${known.length > 0 ? `it reads ${known.join(', ')}` : 'it reads none'})`);
    }
    let value = argument.value;
    if (value === undefined) {
      const envNames = [...new Set(readers.map((ref) => ref.env))];
      value = envNames.map((env) => environment[env]).find((found) => found !== undefined);
      if (value === undefined) {
        throw new UsageError(`${argument.givenBy}: takes its value from $${envNames.join(' or $')}, which is not set; give it as --secret ${name}=VALUE`);
      }
    }
    values.set(name, { secret: argument.secret, key: argument.key, value });
  }
  return [...values.values()];
}
