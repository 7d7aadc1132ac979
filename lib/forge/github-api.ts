/**
 * The GitHub REST calls the runner makes, over fetch: read a file at a commit, post a commit
 * status, and (authenticated as a GitHub App, with its JWT) create an installation access token.
 * The base URL is configurable (GitHub Enterprise, or a loopback server in tests); the token is
 * never part of an error message.
 */
export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';

export interface GitHubApiOptions {
  baseUrl?: string;
  token?: string;
  /** Per request; GitHub answers these calls in well under a second. */
  timeoutMs?: number;
}

export interface CommitStatus {
  state: 'pending' | 'success' | 'failure' | 'error';
  description: string;
  target_url?: string;
  context: string;
}

export type FileRead = { found: true; text: string } | { found: false; reason: string };

/** What an installation token may do: GitHub's permission names, e.g. `{ contents: 'read' }`. */
export type InstallationPermissions = Readonly<Record<string, 'read' | 'write'>>;

/** The body of POST /app/installations/{id}/access_tokens: at most these repositories and permissions. */
export interface InstallationTokenRequest {
  /** Repository names (without the owner: the installation's account owns them). */
  repositories: string[];
  permissions: InstallationPermissions;
}

export interface InstallationToken {
  token: string;
  /** ISO 8601, as GitHub answers it (an hour after creation). */
  expiresAt: string;
}

export interface GitHubApi {
  readFile(repository: string, path: string, ref: string): Promise<FileRead>;
  createCommitStatus(repository: string, sha: string, status: CommitStatus): Promise<void>;
  /** Needs the App's JWT as the token. */
  createInstallationToken(installationId: number, request: InstallationTokenRequest): Promise<InstallationToken>;
}

/** A GitHub API call that did not succeed. `status` is 0 when no HTTP answer came back. */
export class GitHubApiError extends Error {
  override readonly name = 'GitHubApiError';
  constructor(
    message: string,
    readonly operation: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export function gitHubApi(options: GitHubApiOptions = {}): GitHubApi {
  const baseUrl = (options.baseUrl || DEFAULT_GITHUB_API_URL).replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function call(operation: string, path: string, init: { method: string; accept: string; body?: unknown }): Promise<Response> {
    const headers: Record<string, string> = {
      accept: init.accept,
      'user-agent': 'serverless-step-runner',
      'x-github-api-version': '2022-11-28',
    };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await fetch(`${baseUrl}${path}`, {
        method: init.method,
        headers,
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const why = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (error as Error).message;
      throw new GitHubApiError(`${operation}: GitHub API unreachable (${why})`, operation, 0);
    }
  }

  async function failure(operation: string, response: Response): Promise<GitHubApiError> {
    // GitHub's error bodies are {"message": "..."}: its words help (e.g. "Bad credentials").
    const body = await response.text().catch(() => '');
    let message = '';
    try {
      message = String((JSON.parse(body) as { message?: unknown }).message ?? '');
    } catch {
      message = '';
    }
    // A proxy or GitHub Enterprise may quote the credentials it refused; they must not travel on.
    if (options.token) message = message.split(options.token).join('***');
    return new GitHubApiError(
      `${operation}: GitHub API answered ${response.status}${message ? ` (${message.slice(0, 200)})` : ''}`,
      operation,
      response.status,
    );
  }

  return {
    async readFile(repository, path, ref) {
      const operation = `GET ${path} of ${repository} at ${ref}`;
      const url = `/repos/${repoPath(repository)}/contents/${path.split('/').map(encodeURIComponent).join('/')}?ref=${encodeURIComponent(ref)}`;
      // The raw media type answers with the file's bytes; servers that ignore it answer with the
      // JSON form (base64 content), which is handled too.
      const response = await call(operation, url, { method: 'GET', accept: 'application/vnd.github.raw+json' });
      if (response.status === 404) {
        await response.body?.cancel();
        return { found: false, reason: 'not found' };
      }
      if (!response.ok) throw await failure(operation, response);
      const contentType = response.headers.get('content-type') ?? '';
      if (!/^application\/json\b/i.test(contentType)) return { found: true, text: await response.text() };
      const entry = (await response.json()) as unknown;
      if (Array.isArray(entry)) return { found: false, reason: 'it is a directory' };
      const file = entry as { type?: string; encoding?: string; content?: string };
      if (file.type !== undefined && file.type !== 'file') return { found: false, reason: `it is a ${file.type}, not a file` };
      if (file.encoding === 'base64' && typeof file.content === 'string') {
        return { found: true, text: Buffer.from(file.content, 'base64').toString('utf8') };
      }
      throw new GitHubApiError(`${operation}: GitHub API answered without the file's content`, operation, response.status);
    },

    async createCommitStatus(repository, sha, status) {
      const operation = `POST status ${status.state} for ${repository}@${sha.slice(0, 7)}`;
      const response = await call(operation, `/repos/${repoPath(repository)}/statuses/${encodeURIComponent(sha)}`, {
        method: 'POST',
        accept: 'application/vnd.github+json',
        body: status,
      });
      if (!response.ok) throw await failure(operation, response);
      await response.body?.cancel();
    },

    async createInstallationToken(installationId, request) {
      const operation = `POST access token for installation ${installationId}`;
      const response = await call(operation, `/app/installations/${encodeURIComponent(String(installationId))}/access_tokens`, {
        method: 'POST',
        accept: 'application/vnd.github+json',
        body: request,
      });
      if (!response.ok) throw await failure(operation, response);
      const answer = (await response.json().catch(() => ({}))) as { token?: unknown; expires_at?: unknown };
      if (typeof answer.token !== 'string' || answer.token === '') {
        throw new GitHubApiError(`${operation}: GitHub API answered ${response.status} without a token`, operation, response.status);
      }
      return { token: answer.token, expiresAt: typeof answer.expires_at === 'string' ? answer.expires_at : '' };
    },
  };
}

function repoPath(repository: string): string {
  const [owner, name, ...rest] = repository.split('/');
  if (!owner || !name || rest.length > 0) throw new TypeError(`Not an owner/name repository: ${repository}`);
  return `${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
}
