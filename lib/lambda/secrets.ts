/**
 * The forge's secrets on AWS: Secrets Manager ids in the environment, fetched and cached by
 * @middy/secrets-manager onto the invocation's context (never into the environment or a log).
 */
import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { MiddlewareObj } from '@middy/core';
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

/**
 * Secrets for a function whose GitHub token is only a fallback (a GitHub App is configured): the
 * token is read like the others but may not exist, since an App-only deployment never creates it
 * and must not fail every invocation on its absence. Any other failure to read it still fails.
 */
export function secretsWithOptionalToken(ids: Partial<Record<keyof WebhookSecrets, string>>): MiddlewareObj {
  const { githubToken: tokenId, ...required } = ids;
  const others = Object.keys(required).length > 0 ? (secretsMiddleware(required) as MiddlewareObj) : undefined;
  const token = tokenId ? optionalSecretString(tokenId) : undefined;
  return {
    before: async (request) => {
      await others?.before?.(request);
      const value = await token?.();
      if (value !== undefined) Object.assign(request.context, { githubToken: value });
    },
  };
}

/** A secret's string, or undefined (kept so) when there is no secret of that id. */
export function optionalSecretString(secretId: string): () => Promise<string | undefined> {
  return cachedRead(() =>
    secretsManagerClient()
      .send(new GetSecretValueCommand({ SecretId: secretId }))
      .then(
        ({ SecretString }) => SecretString,
        (error: unknown) => {
          if (error instanceof ResourceNotFoundException) return undefined;
          throw error;
        },
      ),
  );
}

/**
 * `read` on first use, its answer kept as long as the middleware keeps the secrets (a rotated one
 * is picked up within that time). A failed read is not kept: the next invocation tries again.
 */
export function cachedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let kept: { value: Promise<T>; at: number } | undefined;
  return () => {
    if (kept && Date.now() - kept.at < SECRETS_CACHE_MS) return kept.value;
    const value = read();
    const entry = { value, at: Date.now() };
    kept = entry;
    value.catch(() => {
      if (kept === entry) kept = undefined;
    });
    return value;
  };
}

// Made on first use: a function that reads no secret this way never builds an SDK client.
let client: SecretsManagerClient | undefined;
export function secretsManagerClient(): SecretsManagerClient {
  client ??= new SecretsManagerClient({});
  return client;
}
