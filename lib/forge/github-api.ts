/**
 * The GitHub REST calls the runner makes, over fetch: read a file at a commit, post a commit
 * status, read a commit's message, the files a comparison or a pull request changes, create,
 * update and find check runs (with an installation token), a person's role on a repository and
 * their membership of a team (who may decide an approval), and (authenticated as a GitHub App,
 * with its JWT) create an installation access token.
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

/** The conclusions a build's check run ends with (GitHub has `action_required` and `stale` too). */
export type CheckConclusion = 'success' | 'failure' | 'cancelled' | 'timed_out' | 'neutral' | 'skipped';

/** One annotation: a line of a file of the commit, shown on the pull request's Files changed. */
export interface CheckAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'notice' | 'warning' | 'failure';
  message: string;
  title?: string;
  raw_details?: string;
}

export interface CheckRunOutput {
  title: string;
  summary: string;
  text?: string;
  annotations?: CheckAnnotation[];
}

/** The body of PATCH /repos/{owner}/{repo}/check-runs/{check_run_id} ("Update a check run"). */
export interface CheckRunUpdate {
  status?: 'in_progress' | 'completed';
  conclusion?: CheckConclusion;
  completed_at?: string;
  details_url?: string;
  output?: CheckRunOutput;
  /** The buttons the check run shows ("A maximum of three actions are accepted"); `[]` takes them away. */
  actions?: CheckRunAction[];
}

/** A requested action: label at most 20 characters, description 40, identifier 20 (GitHub's REST description). */
export interface CheckRunAction {
  label: string;
  description: string;
  identifier: string;
}

/** The body of POST /repos/{owner}/{repo}/check-runs ("Create a check run"). */
export interface CheckRunCreate extends CheckRunUpdate {
  name: string;
  head_sha: string;
  external_id?: string;
  started_at?: string;
}

/** What the runner reads of a check run GitHub answers with. */
export interface CheckRunFound {
  id: number;
  name: string;
  external_id: string | null;
  status: string;
}

export type FileRead = { found: true; text: string } | { found: false; reason: string };

export type RefRead = { found: true; sha: string } | { found: false; reason: string };

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

/** A file of a comparison or a pull request: its path, and a rename's old path. */
export interface ChangedFile {
  filename: string;
  previous_filename?: string;
}

export interface GitHubApi {
  readFile(repository: string, path: string, ref: string): Promise<FileRead>;
  /** The commit at the head of a ref (`refs/heads/main`, `refs/tags/v1`, or a sha): GET /repos/{owner}/{repo}/commits/{ref}. */
  refHead(repository: string, ref: string): Promise<RefRead>;
  /** The message of a commit (the Git database API: no diff is computed for it). */
  commitMessage(repository: string, sha: string): Promise<string>;
  /**
   * The git tree id of a folder (`.`: the root) at a commit, or undefined when it is no folder
   * there: the commit's `tree` (GET /repos/{owner}/{repo}/git/commits/{sha}), then each segment's
   * `tree` entry (GET /repos/{owner}/{repo}/git/trees/{tree_sha}, not recursive).
   */
  treeId(repository: string, path: string, sha: string): Promise<string | undefined>;
  /** GET /repos/{owner}/{repo}/compare/{base}...{head}: the comparison's files (at most 300, unpaginated). */
  compareFiles(repository: string, base: string, head: string): Promise<ChangedFile[]>;
  /** One page of GET /repos/{owner}/{repo}/pulls/{number}/files. */
  pullRequestFiles(repository: string, number: number, page: number, perPage: number): Promise<ChangedFile[]>;
  createCommitStatus(repository: string, sha: string, status: CommitStatus): Promise<void>;
  /** Needs an installation token: only a GitHub App may write check runs. */
  createCheckRun(repository: string, body: CheckRunCreate): Promise<CheckRunFound>;
  updateCheckRun(repository: string, id: number, body: CheckRunUpdate): Promise<CheckRunFound>;
  /** GET /repos/{owner}/{repo}/commits/{ref}/check-runs?check_name=NAME&filter=all: one page of 100. */
  checkRunsNamed(repository: string, ref: string, name: string): Promise<CheckRunFound[]>;
  /**
   * `role_name` of GET /repos/{owner}/{repo}/collaborators/{username}/permission (admin, maintain,
   * write, triage, read, or a custom role's name); `none` when GitHub answers 404 (no such person
   * among those with access).
   */
  repositoryRole(repository: string, username: string): Promise<string>;
  /**
   * Whether GET /orgs/{org}/teams/{team_slug}/memberships/{username} says an active member (a
   * pending invitation is not; 404 is no membership). Team members include the members of child teams.
   */
  activeTeamMember(org: string, teamSlug: string, username: string): Promise<boolean>;
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

  async function getJson(operation: string, path: string): Promise<unknown> {
    const response = await call(operation, path, { method: 'GET', accept: 'application/vnd.github+json' });
    if (!response.ok) throw await failure(operation, response);
    try {
      return (await response.json()) as unknown;
    } catch {
      throw new GitHubApiError(`${operation}: GitHub API answered ${response.status} with a body that is not JSON`, operation, response.status);
    }
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

    async refHead(repository, ref) {
      const operation = `GET commit at ${ref} of ${repository}`;
      // "Get a commit" takes `heads/BRANCH` or `tags/TAG` (or a sha); its `application/vnd.github.sha`
      // media type answers with the sha alone, without the commit's files (@octokit/openapi,
      // repos/get-commit). An unknown ref is a 422 ("No commit found for SHA: ...") or a 404.
      const name = ref.replace(/^refs\//, '');
      const response = await call(operation, `/repos/${repoPath(repository)}/commits/${encodeURIComponent(name)}`, { method: 'GET', accept: 'application/vnd.github.sha' });
      if (response.status === 404 || response.status === 422) {
        await response.body?.cancel();
        return { found: false, reason: `no commit at ${ref}` };
      }
      if (!response.ok) throw await failure(operation, response);
      const text = (await response.text()).trim();
      let sha = text;
      // A server that ignores the media type answers with the commit as JSON.
      if (text.startsWith('{')) sha = String((JSON.parse(text) as { sha?: unknown }).sha ?? '');
      if (!/^[0-9a-f]{40}$/.test(sha)) throw new GitHubApiError(`${operation}: GitHub API answered without a commit sha`, operation, response.status);
      return { found: true, sha };
    },

    async treeId(repository, path, sha) {
      const operation = `GET tree of ${path} in ${repository} at ${sha.slice(0, 7)}`;
      const commit = await getJson(operation, `/repos/${repoPath(repository)}/git/commits/${encodeURIComponent(sha)}`);
      let tree = (commit as { tree?: { sha?: unknown } } | null)?.tree?.sha;
      for (const segment of path.split('/').filter((part) => part !== '' && part !== '.')) {
        if (typeof tree !== 'string') return undefined;
        const listed = await getJson(operation, `/repos/${repoPath(repository)}/git/trees/${encodeURIComponent(tree)}`);
        const entries = (listed as { tree?: { path?: unknown; type?: unknown; sha?: unknown }[] } | null)?.tree ?? [];
        tree = entries.find((entry) => entry.path === segment && entry.type === 'tree')?.sha;
      }
      return typeof tree === 'string' && /^[0-9a-f]{40,64}$/.test(tree) ? tree : undefined;
    },

    async commitMessage(repository, sha) {
      const operation = `GET commit ${sha.slice(0, 7)} of ${repository}`;
      const answer = await getJson(operation, `/repos/${repoPath(repository)}/git/commits/${encodeURIComponent(sha)}`);
      const message = (answer as { message?: unknown } | null)?.message;
      if (typeof message !== 'string') throw new GitHubApiError(`${operation}: GitHub API answered without the commit's message`, operation, 200);
      return message;
    },

    async compareFiles(repository, base, head) {
      const operation = `GET compare ${base.slice(0, 7)}...${head.slice(0, 7)} of ${repository}`;
      // The files are on the first page whatever its size; one commit a page keeps the answer small.
      const path = `/repos/${repoPath(repository)}/compare/${encodeURIComponent(base)}...${encodeURIComponent(head)}?per_page=1`;
      const files = ((await getJson(operation, path)) as { files?: unknown } | null)?.files;
      // A comparison of identical commits has no "files" at all.
      return files === undefined ? [] : changedFiles(operation, files);
    },

    async pullRequestFiles(repository, number, page, perPage) {
      const operation = `GET files of pull request #${number} of ${repository} (page ${page})`;
      const path = `/repos/${repoPath(repository)}/pulls/${encodeURIComponent(String(number))}/files?per_page=${perPage}&page=${page}`;
      return changedFiles(operation, await getJson(operation, path));
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

    async createCheckRun(repository, body) {
      const operation = `POST check run ${body.name} for ${repository}@${body.head_sha.slice(0, 7)}`;
      const response = await call(operation, `/repos/${repoPath(repository)}/check-runs`, { method: 'POST', accept: 'application/vnd.github+json', body });
      if (!response.ok) throw await failure(operation, response);
      return checkRunFound(operation, await response.json().catch(() => undefined));
    },

    async updateCheckRun(repository, id, body) {
      const operation = `PATCH check run ${id} of ${repository}${body.conclusion ? ` (${body.conclusion})` : ''}`;
      const response = await call(operation, `/repos/${repoPath(repository)}/check-runs/${encodeURIComponent(String(id))}`, {
        method: 'PATCH',
        accept: 'application/vnd.github+json',
        body,
      });
      if (!response.ok) throw await failure(operation, response);
      return checkRunFound(operation, await response.json().catch(() => undefined));
    },

    async checkRunsNamed(repository, ref, name) {
      const operation = `GET check runs ${name} of ${repository}@${ref.slice(0, 7)}`;
      const path = `/repos/${repoPath(repository)}/commits/${encodeURIComponent(ref)}/check-runs?check_name=${encodeURIComponent(name)}&filter=all&per_page=100`;
      const runs = ((await getJson(operation, path)) as { check_runs?: unknown } | null)?.check_runs;
      if (!Array.isArray(runs)) throw new GitHubApiError(`${operation}: GitHub API answered without check_runs`, operation, 200);
      return runs.map((run) => checkRunFound(operation, run));
    },

    async repositoryRole(repository, username) {
      const operation = `GET permission of ${username} on ${repository}`;
      const response = await call(operation, `/repos/${repoPath(repository)}/collaborators/${encodeURIComponent(username)}/permission`, { method: 'GET', accept: 'application/vnd.github+json' });
      if (response.status === 404) {
        await response.body?.cancel();
        return 'none';
      }
      if (!response.ok) throw await failure(operation, response);
      const answer = (await response.json().catch(() => undefined)) as { role_name?: unknown; permission?: unknown } | undefined;
      // role_name is the role itself (maintain, triage); permission maps those to write and read.
      const role = typeof answer?.role_name === 'string' ? answer.role_name : answer?.permission;
      if (typeof role !== 'string') throw new GitHubApiError(`${operation}: GitHub API answered without role_name`, operation, response.status);
      return role;
    },

    async activeTeamMember(org, teamSlug, username) {
      const operation = `GET membership of ${username} in team ${org}/${teamSlug}`;
      const response = await call(operation, `/orgs/${encodeURIComponent(org)}/teams/${encodeURIComponent(teamSlug)}/memberships/${encodeURIComponent(username)}`, {
        method: 'GET',
        accept: 'application/vnd.github+json',
      });
      if (response.status === 404) {
        await response.body?.cancel();
        return false;
      }
      if (!response.ok) throw await failure(operation, response);
      const answer = (await response.json().catch(() => undefined)) as { state?: unknown } | undefined;
      return answer?.state === 'active';
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

function checkRunFound(operation: string, value: unknown): CheckRunFound {
  const run = value as Partial<CheckRunFound> | null | undefined;
  if (typeof run?.id !== 'number' || typeof run.name !== 'string') {
    throw new GitHubApiError(`${operation}: GitHub API answered with a check run not of the documented shape`, operation, 200);
  }
  return { id: run.id, name: run.name, external_id: typeof run.external_id === 'string' ? run.external_id : null, status: String(run.status ?? '') };
}

function changedFiles(operation: string, value: unknown): ChangedFile[] {
  const usable = (f: unknown): f is ChangedFile =>
    typeof (f as ChangedFile | null)?.filename === 'string' &&
    ['string', 'undefined'].includes(typeof (f as ChangedFile).previous_filename);
  if (!Array.isArray(value) || !value.every(usable)) {
    throw new GitHubApiError(`${operation}: GitHub API answered with a file list not of the documented shape`, operation, 200);
  }
  return value.map(({ filename, previous_filename }) => ({ filename, ...(previous_filename !== undefined ? { previous_filename } : {}) }));
}

function repoPath(repository: string): string {
  const [owner, name, ...rest] = repository.split('/');
  if (!owner || !name || rest.length > 0) throw new TypeError(`Not an owner/name repository: ${repository}`);
  return `${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
}
