/**
 * The Secrets a local build's steps read (`secrets: [{env, secret, key}]`), made from the values
 * given by `run --secret` and `--secret-file`: created in the build's namespace under the names the
 * pipeline gives (the pods' secretKeyRef names them), labelled with the build as its clone
 * credentials are, so that the build's cleanup deletes them; checked before any pod, so that a
 * value nobody gave fails the run at once instead of as a pod that cannot start.
 */
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { httpStatus, unexpectedKubeError } from '../kube/api-error.js';
import { deleteBuildObject } from '../kube/cleanup.js';
import { Annotations, BuildObjectKinds, labelValue, Labels, MANAGED_BY, withKubeRetries } from '../kube/index.js';
import { selectSteps, skipReason, type BuildFacts, type Pipeline, type StepSelection } from '../pipeline/index.js';
import { pipelineSecretRefs, type SecretValue } from './commands/secret-args.js';

export type BuildSecretsApi = Pick<CoreV1Api, 'readNamespacedSecret' | 'createNamespacedSecret'>;

/** A `secrets` entry of a step that runs in this build. */
export interface SecretReader {
  secret: string;
  key: string;
  env: string;
  step: string;
}

/** A value was given for a Secret the cluster already has and that this run did not make: it is left alone. */
export class SecretAlreadyExists extends Error {
  override readonly name = 'SecretAlreadyExists';
}

/** A step reads a Secret key that nobody gave and that the cluster does not have. */
export class SecretMissing extends Error {
  override readonly name = 'SecretMissing';
}

/** The `secrets` entries of the steps this build runs: those its `when` and `--step` leave in. */
export function runningSecretReaders(pipeline: Pick<Pipeline, 'steps'>, build: BuildFacts, only?: StepSelection): SecretReader[] {
  const steps = only ? selectSteps(pipeline.steps, only).steps : pipeline.steps;
  return pipelineSecretRefs({ steps: steps.filter((step) => skipReason(step.when, build) === undefined) });
}

export function buildSecretManifests(values: readonly SecretValue[], build: { buildId: string; namespace: string }): V1Secret[] {
  const bySecret = new Map<string, Record<string, string>>();
  for (const { secret, key, value } of values) bySecret.set(secret, { ...bySecret.get(secret), [key]: value });
  return [...bySecret].map(([name, stringData]) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name,
      namespace: build.namespace,
      labels: { [Labels.managedBy]: MANAGED_BY, [Labels.build]: labelValue(build.buildId) },
      annotations: { [Annotations.build]: build.buildId },
    },
    stringData,
  }));
}

/**
 * Checks every Secret the running steps read (one read each) and creates the given ones. Returns
 * the names it created, for the caller to delete should the build's own cleanup not run. Throws
 * SecretAlreadyExists or SecretMissing before creating anything.
 */
export async function createBuildSecrets(
  api: BuildSecretsApi,
  input: { buildId: string; namespace: string; values: readonly SecretValue[]; readers: readonly SecretReader[] },
): Promise<string[]> {
  const { namespace } = input;
  const given = new Set(input.values.map((value) => value.secret));
  const missing: string[] = [];
  for (const name of new Set([...given, ...input.readers.map((reader) => reader.secret)])) {
    const existing = await readSecret(api, namespace, name);
    if (given.has(name)) {
      if (existing) throw new SecretAlreadyExists(alreadyExists(name, namespace, existing));
      continue;
    }
    for (const reader of input.readers.filter((r) => r.secret === name && existing?.data?.[r.key] === undefined)) {
      missing.push(missingLine(reader));
    }
  }
  // A Secret given with some of its keys only: the others are missing too.
  const givenKeys = new Set(input.values.map((value) => `${value.secret}/${value.key}`));
  for (const reader of input.readers) {
    if (given.has(reader.secret) && !givenKeys.has(`${reader.secret}/${reader.key}`)) missing.push(missingLine(reader));
  }
  if (missing.length > 0) {
    const unique = [...new Set(missing)];
    throw new SecretMissing(
      `${unique.length === 1 ? 'A secret the steps read is' : 'Secrets the steps read are'} neither given nor on the cluster (namespace ${namespace}): ${unique.join('; ')}. ` +
        `Give a value with --secret SECRET/KEY=VALUE, or --secret SECRET/KEY to take it from the step's env variable in this shell, or in a --secret-file FILE.`,
    );
  }
  const created: string[] = [];
  for (const manifest of buildSecretManifests(input.values, input)) {
    const name = manifest.metadata!.name!;
    const operation = `create secret ${namespace}/${name}`;
    try {
      await withKubeRetries(operation, () => api.createNamespacedSecret({ namespace, body: manifest }));
    } catch (error) {
      // Made between the read and now by someone else: still theirs.
      if (httpStatus(error) === 409) throw new SecretAlreadyExists(alreadyExists(name, namespace));
      throw unexpectedKubeError(operation, error);
    }
    created.push(name);
  }
  return created;
}

/** Deletes the Secrets this run made; those the build's cleanup already deleted are just as good. */
export async function deleteBuildSecrets(api: CoreV1Api, namespace: string, names: readonly string[]): Promise<void> {
  for (const name of names) await deleteBuildObject(api, BuildObjectKinds.secret, namespace, name);
}

async function readSecret(api: BuildSecretsApi, namespace: string, name: string): Promise<V1Secret | undefined> {
  const operation = `read secret ${namespace}/${name}`;
  try {
    return await withKubeRetries(operation, () => api.readNamespacedSecret({ name, namespace }));
  } catch (error) {
    if (httpStatus(error) === 404) return undefined;
    throw unexpectedKubeError(operation, error);
  }
}

function missingLine(reader: SecretReader): string {
  return `${reader.secret}/${reader.key}, read by step "${reader.step}" as ${reader.env} (--secret ${reader.secret}/${reader.key}=VALUE)`;
}

function alreadyExists(name: string, namespace: string, existing?: V1Secret): string {
  const leftover = existing?.metadata?.labels?.[Labels.managedBy] === MANAGED_BY ? ` (left by build ${existing.metadata.annotations?.[Annotations.build] ?? '?'})` : '';
  return (
    `Secret "${name}" already exists in namespace ${namespace}${leftover}, and this run did not make it: it is not overwritten. ` +
    `Drop the --secret values for ${name} to use it as it is, or delete it first (kubectl delete secret ${name} -n ${namespace}).`
  );
}
