/**
 * The forge side's deployment settings, read from the environment as Lambda passes them
 * (serverless.yml sets them). Secrets are never in the environment on AWS, only their ids; the
 * local server takes plain values (GITHUB_WEBHOOK_SECRET, --secret) instead.
 */
import type { WebhookSecrets } from './webhook.js';

export const ForgeEnvNames = {
  stateMachineArn: 'STATE_MACHINE_ARN',
  githubWebhookSecretId: 'GITHUB_WEBHOOK_SECRET_ID',
  genericWebhookSecretId: 'GENERIC_WEBHOOK_SECRET_ID',
  githubTokenSecretId: 'GITHUB_TOKEN_SECRET_ID',
  githubApiUrl: 'GITHUB_API_URL',
  buildForkPullRequests: 'BUILD_FORK_PULL_REQUESTS',
  /** Local only. */
  githubWebhookSecret: 'GITHUB_WEBHOOK_SECRET',
  genericWebhookSecret: 'GENERIC_WEBHOOK_SECRET',
} as const;

/**
 * How long a secret fetched from Secrets Manager is reused by a warm Lambda: long enough to spare
 * a GetSecretValue per request, short enough that a rotated secret is picked up the same hour.
 */
export const SECRETS_CACHE_MS = 15 * 60 * 1000;

/** Secrets Manager ids by the context key the secret lands on, for the ids that are set. */
export function secretIds(env: NodeJS.ProcessEnv, keys: readonly (keyof WebhookSecrets)[]): Partial<Record<keyof WebhookSecrets, string>> {
  const envName = {
    githubWebhookSecret: ForgeEnvNames.githubWebhookSecretId,
    genericWebhookSecret: ForgeEnvNames.genericWebhookSecretId,
    githubToken: ForgeEnvNames.githubTokenSecretId,
  } as const;
  const ids: Partial<Record<keyof WebhookSecrets, string>> = {};
  for (const key of keys) {
    const id = env[envName[key]];
    if (id) ids[key] = id;
  }
  return ids;
}

/** One middy cache entry per set of secrets, so two handlers in one process never share values. */
export function secretsCacheKey(ids: Record<string, string>): string {
  return `step-runner-secrets:${JSON.stringify(ids)}`;
}

/**
 * A secret's text. Secrets Manager values are strings, or (a secret created as key/value pairs in
 * the console) objects that @middy/secrets-manager has parsed: their one string value is taken.
 */
export function secretText(value: unknown): string | undefined {
  if (typeof value === 'string') return value || undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const strings = Object.values(value).filter((v): v is string => typeof v === 'string' && v !== '');
  return strings.length === 1 ? strings[0] : undefined;
}
