/**
 * The forge's secrets on AWS: Secrets Manager ids in the environment, fetched and cached by
 * @middy/secrets-manager onto the invocation's context (never into the environment or a log).
 */
import secretsManager from '@middy/secrets-manager';
import type { WebhookSecrets } from '../forge/webhook.js';
import { EnvNames } from './settings.js';

/**
 * How long a secret fetched from Secrets Manager is reused by a warm Lambda: long enough to spare
 * a GetSecretValue per request, short enough that a rotated secret is picked up the same hour.
 */
export const SECRETS_CACHE_MS = 15 * 60 * 1000;

const SECRET_ID_ENV = {
  githubWebhookSecret: EnvNames.githubWebhookSecretId,
  genericWebhookSecret: EnvNames.genericWebhookSecretId,
  githubToken: EnvNames.githubTokenSecretId,
} as const;

/** Secrets Manager ids by the context key the secret lands on, for the ids that are set. */
export function secretIds(env: NodeJS.ProcessEnv, keys: readonly (keyof WebhookSecrets)[]): Partial<Record<keyof WebhookSecrets, string>> {
  const ids: Partial<Record<keyof WebhookSecrets, string>> = {};
  for (const key of keys) {
    const id = env[SECRET_ID_ENV[key]];
    if (id) ids[key] = id;
  }
  return ids;
}

/** The middleware that puts these secrets on the context; one cache entry per set of ids. */
export function secretsMiddleware(ids: Partial<Record<keyof WebhookSecrets, string>>) {
  return secretsManager({
    fetchData: ids,
    setToContext: true,
    cacheKey: `step-runner-secrets:${JSON.stringify(ids)}`,
    cacheExpiry: SECRETS_CACHE_MS,
  });
}
