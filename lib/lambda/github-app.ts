/**
 * The deployment's GitHub App on AWS: its id from the environment, its private key from Secrets
 * Manager. The key is read on the first token a warm function needs, not at every invocation as
 * the secrets middleware would: a build that needs no token never depends on the key, and a key
 * that cannot be read fails only the builds that need it, as CredentialsUnavailable.
 */
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { gitHubApp, type GitHubApp, type GitHubAppOptions } from '../forge/github-app.js';
import { secretText } from '../forge/secret-text.js';
import { cachedRead, secretsManagerClient } from './secrets.js';
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

/** A secret's text (the App's PEM), read on first use and kept; see cachedRead. */
export function cachedSecretText(secretId: string): () => Promise<string> {
  return cachedRead(() =>
    secretsManagerClient()
      .send(new GetSecretValueCommand({ SecretId: secretId }))
      .then(({ SecretString }) => {
        const text = secretText(jsonOrText(SecretString));
        if (!text) throw new EmptySecret('the secret has no text value (store the .pem file as plain text)');
        return text;
      }),
  );
}

/** The secret exists but holds nothing usable. */
export class EmptySecret extends Error {
  override readonly name = 'EmptySecret';
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
