/**
 * GitHub App authentication, as CI systems that run as an App do it: a JWT signed with the App's
 * private key (RS256, by universal-github-app-jwt) is exchanged for an installation access token
 * that reaches only the one repository a build is about, with only the permissions the task needs,
 * for an hour at most. The key, the JWT and the token never enter an error message or a log line.
 */
import { createPrivateKey } from 'node:crypto';
import githubAppJwt from 'universal-github-app-jwt';
import { ErrorNames, StepRunnerError } from '../contract/index.js';
import { gitHubApi, GitHubApiError, type InstallationPermissions, type InstallationToken } from './github-api.js';

/** The clone fetches the repository and nothing else. */
export const CLONE_PERMISSIONS: InstallationPermissions = { contents: 'read' };
/** The webhook reads the pipeline file at the pushed commit. */
export const PIPELINE_PERMISSIONS: InstallationPermissions = { contents: 'read' };
/** ReportStatus posts commit statuses. */
export const STATUS_PERMISSIONS: InstallationPermissions = { statuses: 'write' };
/** ReportStatus writes the build's check run, when the build came through the App. */
export const CHECKS_PERMISSIONS: InstallationPermissions = { checks: 'write' };

/**
 * A build needs GitHub credentials that the deployment's GitHub App could not provide: its private
 * key cannot be read or used, GitHub refused the token (App uninstalled or suspended, repository or
 * permission not granted), or GitHub kept failing. The message names the App, the installation,
 * the repository and GitHub's own words.
 */
export class CredentialsUnavailable extends StepRunnerError {
  override readonly name = ErrorNames.CredentialsUnavailable;
}

/**
 * GitHub refuses a JWT issued "in the future" by its clock; a minute back absorbs a skewed clock
 * (GitHub's own advice). universal-github-app-jwt already backdates by 30 s, so its clock is set
 * back by the rest. Its expiry is 10 min after iat: 9 min from now, inside GitHub's 10 min limit.
 */
const JWT_BACKDATE_SECONDS = 60;
const LIBRARY_BACKDATE_SECONDS = 30;

/** Attempts that a retry may cure (no answer, 429, 5xx) wait this long, doubling, between them. */
const RETRY_DELAY_MS = 500;
/** Enough for the installations of one deployment; the oldest token is forgotten first. */
const MAX_REUSED_TOKENS = 100;

export interface GitHubAppOptions {
  /** The App's id (digits) or its client id (`Iv...`): the JWT's issuer. */
  appId: string;
  /** The PEM. Read only when a token is needed, so a build that needs none never reads it. */
  privateKey(): Promise<string>;
  /** Where the key is kept, for messages (e.g. the Secrets Manager id); never the key. */
  keySource?: string;
  baseUrl?: string;
  /** Per request. */
  timeoutMs?: number;
  /** Seconds since the epoch. */
  now?: () => number;
  /** Attempts per token when GitHub fails in a way a retry may cure; default 3. */
  attempts?: number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * Reuse a token of the same installation, repository and permissions while it has more than this
   * many seconds left. Absent: every call gets a new token (a clone may start long after).
   */
  reuseSeconds?: number;
}

export interface GitHubApp {
  readonly appId: string;
  /** A token of the installation for one repository (`owner/name`), with these permissions only. */
  installationToken(installationId: number, repository: string, permissions: InstallationPermissions): Promise<InstallationToken>;
}

/** The App's JWT (RS256): iat a minute ago, exp nine minutes ahead, iss the App. */
export async function appJwt(appId: string, privateKey: string, nowSeconds: number): Promise<string> {
  // A numeric id goes out as a number, as GitHub's own examples send it; a client id as text.
  const id: number | string = /^\d+$/.test(appId) ? Number(appId) : appId;
  const { token } = await githubAppJwt({ id, privateKey, now: nowSeconds - (JWT_BACKDATE_SECONDS - LIBRARY_BACKDATE_SECONDS) });
  return token;
}

export function gitHubApp(options: GitHubAppOptions): GitHubApp {
  const { appId } = options;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const attempts = Math.max(1, options.attempts ?? 3);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const where = options.keySource ? ` (${options.keySource})` : '';
  const reused = new Map<string, InstallationToken>();

  async function jwt(): Promise<string> {
    let raw: string;
    try {
      raw = await options.privateKey();
    } catch (error) {
      throw new CredentialsUnavailable(`GitHub App ${appId}: its private key${where} could not be read: ${describeError(error)}`);
    }
    const pem = usablePem(raw, `GitHub App ${appId}: its private key${where}`);
    try {
      return await appJwt(appId, pem, now());
    } catch (error) {
      const words = oneLine((error as Error).message).split(pem).join('***');
      throw new CredentialsUnavailable(`GitHub App ${appId}: its private key${where} could not sign the App's JWT: ${words}`);
    }
  }

  async function create(installationId: number, repository: string, permissions: InstallationPermissions): Promise<InstallationToken> {
    const what = `GitHub App ${appId} could not get a token of installation ${installationId} for ${repository} (${describePermissions(permissions)})`;
    const name = repository.split('/').at(-1) ?? repository;
    const api = gitHubApi({ ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}), token: await jwt(), timeoutMs: options.timeoutMs ?? 5_000 });
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await api.createInstallationToken(installationId, { repositories: [name], permissions });
      } catch (error) {
        if (!(error instanceof GitHubApiError)) throw error;
        if (retryable(error.status) && attempt < attempts) {
          await sleep(RETRY_DELAY_MS * 2 ** (attempt - 1));
          continue;
        }
        const answer = error.message.startsWith(`${error.operation}: `) ? error.message.slice(error.operation.length + 2) : error.message;
        const tries = attempt > 1 ? ` after ${attempt} attempts` : '';
        throw new CredentialsUnavailable(`${what}: ${answer}${tries}. ${hint(error.status, repository, permissions)}`);
      }
    }
  }

  return {
    appId,
    async installationToken(installationId, repository, permissions) {
      if (options.reuseSeconds === undefined) return create(installationId, repository, permissions);
      const key = `${installationId} ${repository} ${describePermissions(permissions)}`;
      const kept = reused.get(key);
      if (kept && Date.parse(kept.expiresAt) / 1000 - now() > options.reuseSeconds) return kept;
      const token = await create(installationId, repository, permissions);
      reused.delete(key);
      if (reused.size >= MAX_REUSED_TOKENS) reused.delete(reused.keys().next().value!);
      reused.set(key, token);
      return token;
    },
  };
}

/**
 * Checked before signing, so a wrong secret says what is wrong with it in plain words rather than
 * in WebCrypto's. Keys pasted through an environment or a JSON value often arrive with "\n" escaped.
 */
function usablePem(raw: string, whose: string): string {
  const pem = raw.replace(/\\n/g, '\n').trim();
  let type: string | undefined;
  try {
    type = createPrivateKey(pem).asymmetricKeyType;
  } catch {
    throw new CredentialsUnavailable(
      `${whose} is not a private key in PEM form: store the whole .pem file GitHub gave, its BEGIN and END lines included.`,
    );
  }
  if (type !== 'rsa') throw new CredentialsUnavailable(`${whose} is ${type ? `an ${type.toUpperCase()}` : 'not an RSA'} key: a GitHub App signs with the RSA key GitHub gave (.pem).`);
  return pem;
}

function retryable(status: number): boolean {
  return status === 0 || status === 429 || status >= 500;
}

function hint(status: number, repository: string, permissions: InstallationPermissions): string {
  if (status === 401) {
    return 'GitHub did not accept the App\'s JWT: the App id (GITHUB_APP_ID) and the private key must be of the same App, and the key must not have been deleted on GitHub.';
  }
  if (status === 403) return 'The installation may be suspended, or the App may not create tokens there.';
  if (status === 404) return 'The App is no longer installed there (or GITHUB_API_URL points at another GitHub).';
  if (status === 422) {
    return `The installation may not reach ${repository}, or the App lacks ${describePermissions(permissions)}: grant it in the App's settings and accept it on the installation.`;
  }
  return 'GitHub kept failing; a later build may get through.';
}

function describePermissions(permissions: InstallationPermissions): string {
  return Object.entries(permissions)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, level]) => `${name}: ${level}`)
    .join(', ');
}

function describeError(error: unknown): string {
  const { name, message } = error as Error;
  return oneLine(name && name !== 'Error' ? `${name}: ${message}` : String(message));
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/**
 * The credentials a deployment has for GitHub: its App, for deliveries that came through it, and
 * its long-lived token, for the others (or when it has no App).
 */
export interface GitHubCredentials {
  app?: GitHubApp;
  token?: string;
}

export interface ChosenToken {
  token: string;
  /** For log lines: which credential this is, never its value. */
  description: string;
  /** When it stops working (ISO 8601): an installation token's hour; absent for the deployment's token. */
  expiresAt?: string;
}

/**
 * The token for a call about one repository: an installation token of the App when the build came
 * through it (and the App is configured), else the deployment's token, else none (public
 * repositories only). An App that cannot give one throws CredentialsUnavailable: falling back to
 * the deployment's token would hide a broken App until that token is gone.
 */
export async function gitHubTokenFor(
  credentials: GitHubCredentials,
  target: { repository?: string | undefined; installationId?: number | undefined },
  permissions: InstallationPermissions,
): Promise<ChosenToken | undefined> {
  const { app } = credentials;
  if (app && target.installationId !== undefined && target.repository) {
    const { token, expiresAt } = await app.installationToken(target.installationId, target.repository, permissions);
    return {
      token,
      expiresAt,
      description: `an installation token of GitHub App ${app.appId} (installation ${target.installationId}; ${describePermissions(permissions)} on ${target.repository} only)`,
    };
  }
  return credentials.token ? { token: credentials.token, description: "the deployment's GitHub token" } : undefined;
}
