/**
 * The deployment's GitHub App on AWS: its id from the environment, its private key from Secrets
 * Manager. The key is read on the first token a warm function needs, not at every invocation as
 * the secrets middleware would: a build that needs no token never depends on the key, and a key
 * that cannot be read fails only the builds that need it, as CredentialsUnavailable.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { gitHubApp, type GitHubApp, type GitHubAppOptions } from '../forge/github-app.js';
import { secretText } from '../forge/secret-text.js';
import { SECRETS_CACHE_MS } from './secrets.js';
import type { GitHubAppSettings } from './settings.js';

/** What a test may change: the GitHub API's address, the clock, the waits between attempts. */
export type LambdaGitHubAppOptions = Omit<GitHubAppOptions, 'appId' | 'privateKey' | 'keySource'>;

export function lambdaGitHubApp(settings: GitHubAppSettings, options: LambdaGitHubAppOptions = {}): GitHubApp {
  return gitHubApp({
    ...options,
    appId: settings.appId,
    keySource: `Secrets Manager secret ${settings.privateKeySecretId}`,
    privateKey: cachedSecretText(settings.privateKeySecretId),
  });
}

/**
 * A secret's text, fetched on first use and kept as long as the middleware keeps the others (a
 * rotated key is picked up within that time). A failed read is not kept: the next build tries again.
 */
export function cachedSecretText(secretId: string): () => Promise<string> {
  let kept: { value: Promise<string>; at: number } | undefined;
  return () => {
    if (kept && Date.now() - kept.at < SECRETS_CACHE_MS) return kept.value;
    const value = secretsManagerClient()
      .send(new GetSecretValueCommand({ SecretId: secretId }))
      .then(({ SecretString }) => {
        const text = secretText(jsonOrText(SecretString));
        if (!text) throw new EmptySecret('the secret has no text value (store the .pem file as plain text)');
        return text;
      });
    const entry = { value, at: Date.now() };
    kept = entry;
    value.catch(() => {
      if (kept === entry) kept = undefined;
    });
    return value;
  };
}

/** The secret exists but holds nothing usable. */
export class EmptySecret extends Error {
  override readonly name = 'EmptySecret';
}

// Made on first use: a function whose builds need no key never builds an SDK client.
let client: SecretsManagerClient | undefined;
function secretsManagerClient(): SecretsManagerClient {
  client ??= new SecretsManagerClient({});
  return client;
}

/** A key/value secret made in the console is JSON; a PEM never starts with "{". */
function jsonOrText(value: string | undefined): unknown {
  if (!value?.trimStart().startsWith('{')) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
