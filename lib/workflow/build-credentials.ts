/**
 * The GitHub credentials a build's clone gets, as the runtime provides them (lib/lambda: the
 * deployment's GitHub App or token; locally none): PrepareBuild stores them in the build's Secret,
 * LaunchStep renews one that expires.
 */
import type { BuildRef } from '../contract/index.js';

export interface BuildCredentials {
  /**
   * The GitHub token for sources that ask for it (private repositories): the deployment's, or a
   * function that gets one for this build (a GitHub App installation token, which expires), called
   * only when the build checks such a source out.
   */
  githubToken?: string | ((build: BuildRef) => Promise<GitToken | undefined>);
}

export interface GitToken {
  token: string;
  /** ISO 8601; absent for a token that does not expire. */
  expiresAt?: string | undefined;
}

/** The token for this build, if the deployment has one for it. */
export async function buildToken(credentials: BuildCredentials, build: BuildRef): Promise<GitToken | undefined> {
  const { githubToken } = credentials;
  return typeof githubToken === 'function' ? githubToken(build) : githubToken ? { token: githubToken } : undefined;
}
