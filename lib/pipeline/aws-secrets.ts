/**
 * A step's `secrets` entries that name AWS, beside those that name a Kubernetes Secret:
 * `{env, aws-secret: NAME_OR_ARN, key: JSON_KEY}` (a Secrets Manager secret, the whole string or one
 * key of its JSON) and `{env, ssm-parameter: /PATH}` (an SSM parameter, a SecureString decrypted).
 * Each entry's form is told by its keys, so its problems are the form's own, not a union's. Pure,
 * like schema.ts: schema.ts hands in the Kubernetes form and how a wrong value is named.
 */
import * as z from 'zod';
import { envNameProblem } from './names.js';
import { suggestKey } from './suggest.js';
import type { AwsSecretEnv, SecretEnv } from './types.js';

/** The key that tells each AWS form apart from the Kubernetes one. */
export const AwsSecretKeys = { secretsManager: 'aws-secret', ssm: 'ssm-parameter' } as const;

// Secrets Manager: a name is 1-512 of letters, digits and /_+=.@- (CreateSecret's Name); an ARN is
// arn:PARTITION:secretsmanager:REGION:ACCOUNT:secret:NAME-6RANDOM, and GetSecretValue's SecretId
// takes either (docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetSecretValue.html).
const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const SECRET_ARN = /^arn:aws(?:-[a-z]+)*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}$/;

/** Why a text is not a Secrets Manager secret's name or ARN, or undefined. */
export function awsSecretIdProblem(id: string): string | undefined {
  if (id.startsWith('arn:')) {
    return SECRET_ARN.test(id) ? undefined : `${JSON.stringify(id)} is not a Secrets Manager secret's ARN (arn:aws:secretsmanager:REGION:ACCOUNT:secret:NAME-abcdef)`;
  }
  if (SECRET_NAME.test(id)) return undefined;
  return `${JSON.stringify(id)} is not a Secrets Manager secret's name (at most 512 letters, digits and /_+=.@-) or ARN`;
}

// SSM: a name is letters, digits and _.-/, a hierarchy starting with "/", at most 2048 characters
// with its path; GetParameter's Name also takes the ARN and a `:VERSION` or `:LABEL` after the name
// (docs.aws.amazon.com/systems-manager/latest/APIReference/API_GetParameter.html,
// docs.aws.amazon.com/systems-manager/latest/userguide/sysman-paramstore-su-create.html).
const SSM_NAME = /^[A-Za-z0-9_.\-/]{1,2048}(?::[A-Za-z0-9_.-]{1,100})?$/;
const SSM_ARN = /^arn:aws(?:-[a-z]+)*:ssm:[a-z0-9-]+:\d{12}:parameter\/[A-Za-z0-9_.\-/]{1,2048}(?::[A-Za-z0-9_.-]{1,100})?$/;

/** Why a text is not an SSM parameter's name (or ARN), or undefined. */
export function ssmParameterProblem(name: string): string | undefined {
  if (name.startsWith('arn:')) {
    return SSM_ARN.test(name) ? undefined : `${JSON.stringify(name)} is not an SSM parameter's ARN (arn:aws:ssm:REGION:ACCOUNT:parameter/PATH)`;
  }
  if (SSM_NAME.test(name) && !name.endsWith('/') && !name.includes('//')) return undefined;
  return `${JSON.stringify(name)} is not an SSM parameter's name: a path such as /team/app/token, of letters, digits and _.-/`;
}

/**
 * One entry of `secrets`: the Kubernetes form (`secret` and `key`) unless the entry has
 * `aws-secret` or `ssm-parameter`. The result is the Kubernetes form as it was, or an AwsSecretEnv.
 */
export function secretEntrySchema(kubernetes: z.ZodType<SecretEnv, unknown>, describe: (value: unknown) => string) {
  const text = (what: string) =>
    z.string({ error: (issue) => (issue.input === undefined ? `missing (${what})` : `must be text, not ${describe(issue.input)}`) });
  const obeys = (rule: (value: string) => string | undefined) => (value: string, ctx: z.RefinementCtx) => {
    const problem = rule(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  };
  const env = text('the environment variable the step sees').superRefine(obeys(envNameProblem));
  const secretsManager = z.strictObject({
    env,
    'aws-secret': text("the Secrets Manager secret's name or ARN").superRefine(obeys(awsSecretIdProblem)),
    key: text('a key of the secret\'s JSON; leave key out for the whole string').refine((key) => key !== '', { error: 'must not be empty (leave key out for the whole string)' }).optional(),
  });
  const ssm = z.strictObject({
    env,
    'ssm-parameter': text("the SSM parameter's name").superRefine(obeys(ssmParameterProblem)),
  });
  const form = (value: unknown) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return kubernetes;
    if (AwsSecretKeys.secretsManager in value) return secretsManager;
    if (AwsSecretKeys.ssm in value) return ssm;
    return kubernetes;
  };
  return z.unknown().transform((value, ctx): SecretEnv | AwsSecretEnv => {
    const parsed = form(value).safeParse(value, { reportInput: true });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        // An AWS form's unknown keys are matched against its own keys, not the Kubernetes form's.
        if (issue.code === 'unrecognized_keys' && form(value) !== kubernetes) {
          const known = Object.keys((form(value) as typeof ssm).shape);
          for (const key of issue.keys) {
            const suggestion = suggestKey(key, known);
            const hint = suggestion ? ` (did you mean ${JSON.stringify(suggestion)}?)` : ` (expected one of: ${known.join(', ')})`;
            ctx.addIssue({ code: 'custom', path: [...issue.path, key], message: `unknown field ${JSON.stringify(key)}${hint}` });
          }
        } else ctx.addIssue({ ...issue } as z.core.$ZodRawIssue);
      }
      return z.NEVER;
    }
    const data = parsed.data as Record<string, string>;
    if (data['aws-secret'] !== undefined) return { env: data['env']!, awsSecret: data['aws-secret'], ...(data['key'] !== undefined ? { key: data['key'] } : {}) };
    if (data['ssm-parameter'] !== undefined) return { env: data['env']!, ssmParameter: data['ssm-parameter'] };
    return parsed.data as SecretEnv;
  });
}

export function isAwsSecret(entry: SecretEnv | AwsSecretEnv): entry is AwsSecretEnv {
  return 'awsSecret' in entry || 'ssmParameter' in entry;
}

/** How an entry is named to people: `aws-secret prod/db (key password)`, `ssm-parameter /team/token`. */
export function awsSecretWords(entry: AwsSecretEnv): string {
  if ('ssmParameter' in entry) return `SSM parameter ${entry.ssmParameter}`;
  return `Secrets Manager secret ${entry.awsSecret}${entry.key !== undefined ? ` (key ${JSON.stringify(entry.key)})` : ''}`;
}

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * An AWS entry on a step with no identity, its own or the pipeline's: AWS secrets are read with
 * the step's identity, so that IAM decides who reads what; without one there is nobody to read
 * them as (the runner's own role never reads a pipeline's secrets). On the raw data, as the other
 * rules across fields are, so it is said with every other problem, at the entry's line.
 */
export function awsSecretIdentityProblems(data: unknown): { path: (string | number)[]; message: string }[] {
  if (!isMap(data) || !Array.isArray(data['steps']) || data['identity'] !== undefined) return [];
  return data['steps'].flatMap((step: unknown, index: number) => {
    if (!isMap(step) || step['identity'] !== undefined || !Array.isArray(step['secrets'])) return [];
    return step['secrets'].flatMap((entry: unknown, secretIndex: number) => {
      const key = isMap(entry) ? Object.values(AwsSecretKeys).find((name) => name in entry) : undefined;
      if (!key) return [];
      return [
        {
          path: ['steps', index, 'secrets', secretIndex, key],
          message: `is read from AWS with the step's identity, and the step has none: give it "identity: NAME" (one the deployment declares, whose role may read it), or the pipeline an "identity" for every step`,
        },
      ];
    });
  });
}
