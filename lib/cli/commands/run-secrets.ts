/** `run`'s --secret and --secret-file, from the command line to the build's Secrets on the cluster. */
import type { BuildFacts, Pipeline, StepSelection } from '../../pipeline/index.js';
import type { LocalTaskRuntime } from '../../local/task-runtime.js';
import { createBuildSecrets, deleteBuildSecrets, runningSecretReaders } from '../build-secrets.js';
import type { RunOptions } from './run-args.js';
import { readSecretFile, resolveSecretValues, type SecretArgument, type SecretValue } from './secret-args.js';

/** The values given, files first so that a --secret wins; throws UsageError for one that cannot be used. */
export async function givenSecretValues(
  options: Pick<RunOptions, 'secrets' | 'secretFiles'>,
  pipeline: Pick<Pipeline, 'steps'>,
  environment: Readonly<Record<string, string | undefined>> = process.env,
): Promise<SecretValue[]> {
  const given: SecretArgument[] = [];
  for (const file of options.secretFiles ?? []) given.push(...(await readSecretFile(file)));
  given.push(...(options.secrets ?? []));
  return resolveSecretValues(given, pipeline, environment);
}

/**
 * Checks the Secrets the running steps read and creates the given ones (SecretMissing,
 * SecretAlreadyExists before anything is made). Returns what deletes them again: the build's
 * cleanup deletes them by their label too, but a run that stops before its cleanup must not leave
 * them on a cluster of the user's own.
 */
export async function storeRunSecrets(
  runtime: Pick<LocalTaskRuntime, 'kube' | 'settings'>,
  build: { buildId: string; facts: BuildFacts; only?: StepSelection | undefined },
  pipeline: Pick<Pipeline, 'steps'>,
  values: readonly SecretValue[],
): Promise<() => Promise<void>> {
  const readers = runningSecretReaders(pipeline, build.facts, build.only);
  if (readers.length === 0 && values.length === 0) return async () => {};
  const api = await runtime.kube();
  const namespace = runtime.settings.namespace;
  const created = await createBuildSecrets(api, { buildId: build.buildId, namespace, values, readers });
  return () => deleteBuildSecrets(api, namespace, created);
}
