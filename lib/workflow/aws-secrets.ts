/**
 * A step's AWS secrets (`secrets: [{env, aws-secret, key}, {env, ssm-parameter}]`), read by
 * LaunchStep with the step's identity, while its pod waits gated, into a Secret of the step's own
 * (lib/kube/step-aws-secret.ts) that its env reads by secretKeyRef. So the values are in no
 * execution input or history (only the names are), no pod spec, and no log line of a task; the
 * step's masking reads them back from that Secret as it reads any other (stepSecretRefs).
 *
 * Read with the step's identity, so that IAM decides who reads what: the credentials are the ones
 * EKS Pod Identity gives the step's pod (IdentityCredentials, injected: lib/lambda on AWS, the
 * local Pod Identity agent locally). A secret that does not exist, lacks the key, or that the
 * identity may not read fails the step at once, SecretUnavailable, with AWS's own words: never a
 * step that runs with an empty variable.
 */
import { ErrorNames, StepRunnerError } from '../contract/index.js';
import type { AwsCredentialsProvider, IdentityCredentials } from '../contract/aws-credentials.js';
import { identityServiceAccount, stepAwsSecretName, type BoundPod } from '../kube/index.js';
import { awsSecretWords, type AwsSecretEnv, type SecretEnv, type Step } from '../pipeline/index.js';

export class SecretUnavailable extends StepRunnerError {
  override readonly name = ErrorNames.SecretUnavailable;
}

/** What a secret's value is read with (aws-secret-reader.ts on AWS and locally; a fake in unit tests). */
export interface AwsSecretReader {
  /** GetSecretValue's SecretString; rejects with the service's error, or SecretBinaryOnly. */
  secretString(secretId: string): Promise<string>;
  /** GetParameter's value, WithDecryption (a SecureString arrives decrypted). */
  parameter(name: string): Promise<string>;
  /** Lets go of its connections. */
  close?(): void;
}

/** A secret that holds binary data and no string: nothing an environment variable can carry. */
export class SecretBinaryOnly extends Error {
  override readonly name = 'SecretBinaryOnly';
}

export type AwsSecretReaderFor = (credentials: AwsCredentialsProvider) => AwsSecretReader;

/** The Kubernetes Secret keys a step's env reads its AWS secrets from: the variable's name, in the step's own Secret. */
export function awsSecretRefs(buildId: string, step: Pick<Step, 'name' | 'awsSecrets'>): SecretEnv[] {
  const name = stepAwsSecretName(buildId, step.name);
  return (step.awsSecrets ?? []).map((entry) => ({ env: entry.env, secret: name, key: entry.env }));
}

/** Every Secret key the step's own container reads, its AWS secrets' included: what its output is masked with. */
export function stepSecretRefs(buildId: string, step: Pick<Step, 'name' | 'secrets' | 'awsSecrets'>): SecretEnv[] {
  return [...step.secrets, ...awsSecretRefs(buildId, step)];
}

/**
 * Reads each of the step's AWS secrets with its identity's credentials: the variables' values, by
 * name. Throws SecretUnavailable at the first that cannot be read, naming it, the identity and
 * AWS's error; never a value.
 */
export async function readStepAwsSecrets(input: {
  step: Pick<Step, 'name' | 'awsSecrets' | 'identity'>;
  namespace: string;
  /** The step's pod, made gated (LaunchStep), and a token bound to it. */
  pod: BoundPod;
  podToken: () => Promise<string>;
  identityCredentials: IdentityCredentials | undefined;
  readerFor: AwsSecretReaderFor;
}): Promise<Record<string, string>> {
  const { step } = input;
  const entries = step.awsSecrets ?? [];
  const values: Record<string, string> = {};
  if (entries.length === 0) return values;
  const first = entries[0]!;
  // The pipeline's rules refuse an AWS secret on a step without an identity; a definition edited by hand is still refused here.
  if (step.identity === undefined) throw new SecretUnavailable(`${unreadable(step.name, first)}: the step has no identity to read it with (identity: NAME).`);
  if (!input.identityCredentials) {
    throw new SecretUnavailable(`${unreadable(step.name, first)}: this runner cannot get credentials for the identity "${step.identity}" (no Pod Identity credentials are configured).`);
  }
  const credentials = input.identityCredentials({
    identity: step.identity,
    serviceAccount: identityServiceAccount(step.identity),
    namespace: input.namespace,
    podName: input.pod.name,
    podUid: input.pod.uid,
    podToken: input.podToken,
  });
  const reader = input.readerFor(credentials);
  try {
    for (const entry of entries) {
      values[entry.env] = await readOne(reader, entry).catch((error: unknown) => {
        throw new SecretUnavailable(`${unreadable(step.name, entry)} with the identity "${step.identity}": ${awsWords(error)}`, { cause: error });
      });
    }
  } finally {
    reader.close?.();
  }
  return values;
}

async function readOne(reader: AwsSecretReader, entry: AwsSecretEnv): Promise<string> {
  if ('ssmParameter' in entry) return reader.parameter(entry.ssmParameter);
  const text = await reader.secretString(entry.awsSecret);
  return entry.key === undefined ? text : jsonKey(text, entry.key);
}

/** A missing key of the secret's JSON, as the reader's errors are. */
export class SecretKeyMissing extends Error {
  override readonly name = 'SecretKeyMissing';
}

/**
 * One key of a secret's JSON, as ECS's `valueFrom: ARN:json-key::` takes it: a text value as it
 * is, any other JSON value as JSON (a port number, `true`). A secret that is not a JSON object,
 * or lacks the key, has no such value.
 */
export function jsonKey(text: string, key: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SecretKeyMissing(`the secret's value is not JSON, so it has no key ${JSON.stringify(key)} (leave key out for the whole string)`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SecretKeyMissing(`the secret's value is not a JSON object, so it has no key ${JSON.stringify(key)} (leave key out for the whole string)`);
  }
  if (!Object.hasOwn(parsed, key)) {
    // The other keys' names only: a name is no secret, and tells a misspelt key at once.
    const keys = Object.keys(parsed);
    throw new SecretKeyMissing(`the secret's JSON has no key ${JSON.stringify(key)}${keys.length > 0 ? ` (its keys: ${keys.map((k) => JSON.stringify(k)).join(', ')})` : ''}`);
  }
  const value = (parsed as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function unreadable(step: string, entry: AwsSecretEnv): string {
  return `Step "${step}" could not read its ${entry.env} from the ${awsSecretWords(entry)}`;
}

/** AWS's own words: the error's name (its code: ResourceNotFoundException, AccessDeniedException...) and message. */
export function awsWords(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error instanceof SecretKeyMissing || error instanceof SecretBinaryOnly) return `${error.message}.`;
  const message = error.message.trim();
  return `${error.name}: ${message === '' || message === 'UnknownError' ? '(AWS gave no message)' : message}`;
}
