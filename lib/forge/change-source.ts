/**
 * What the webhook asks GitHub about a delivery's change besides its pipeline: a pull request's
 * head commit message (the payload has none) and the changed files the payload cannot list.
 * Neither may fail a delivery or hold it up: every call of one delivery shares one short budget,
 * and any failure is an answer (`known: false` with why, or "no message") instead of an error.
 */
import { CHANGED_FILES_LIMIT, type BuildChanges } from '../contract/index.js';
import type { BuildRequest } from './build-request.js';
import {
  compareChanges,
  PULL_REQUEST_FILES_LIMIT,
  PULL_REQUEST_FILES_PER_PAGE,
  pullRequestChanges,
  unknownChanges,
  type ChangeQuery,
} from './changed-files.js';
import { gitHubApi, type ChangedFile, type GitHubApi, type GitHubApiOptions, type InstallationPermissions } from './github-api.js';
import { gitHubTokenFor, PIPELINE_PERMISSIONS, type GitHubCredentials } from './github-app.js';

/** The commit and comparison calls read the repository, as the pipeline read does (so its token is reused). */
export const CHANGE_PERMISSIONS: InstallationPermissions = PIPELINE_PERMISSIONS;
/** "List pull requests files" needs the pull requests permission. */
export const PULL_REQUEST_FILES_PERMISSIONS: InstallationPermissions = { pull_requests: 'read' };

/**
 * Each question (a message; the files, every page, and the App token they need) is answered
 * within this, whatever GitHub does: GitHub gives a delivery 10 s, and the pipeline read and
 * StartExecution need most of it.
 */
export const CHANGE_BUDGET_MS = 2_500;

export type HeadCommitMessage = { known: true; message: string } | { known: false; why: string };

export interface ChangeSource {
  headCommitMessage(request: BuildRequest): Promise<HeadCommitMessage>;
  /** Never rejects: a failure is `known: false` with why. */
  changes(request: BuildRequest, query: ChangeQuery): Promise<BuildChanges>;
}

export interface ChangeSourceOptions extends Omit<GitHubApiOptions, 'token' | 'timeoutMs'> {
  budgetMs?: number;
  now?: () => number;
}

/** Answers without asking anyone: a deployment without a GitHub API client (serve, tests). */
export const noChangeSource: ChangeSource = {
  headCommitMessage: async () => ({ known: false, why: 'no GitHub API client is configured' }),
  changes: async (_request, query) => (query.kind === 'known' ? query.changes : unknownChanges(`${whyAsked(query)}, and no GitHub API client is configured to ask`)),
};

export function gitHubChangeSource(credentials: GitHubCredentials, options: ChangeSourceOptions = {}): ChangeSource {
  const budgetMs = options.budgetMs ?? CHANGE_BUDGET_MS;
  const now = options.now ?? Date.now;
  const { budgetMs: _budget, now: _now, ...apiOptions } = options;

  /** An API client whose every call ends by the deadline, with the token the delivery allows. */
  async function apiFor(request: BuildRequest, permissions: InstallationPermissions, deadline: number): Promise<() => GitHubApi> {
    const chosen = await gitHubTokenFor(credentials, request, permissions);
    return () => {
      const left = deadline - now();
      if (left <= 0) throw new BudgetSpent(`no answer within ${budgetMs} ms`);
      return gitHubApi({ ...apiOptions, timeoutMs: left, ...(chosen ? { token: chosen.token } : {}) });
    };
  }

  /**
   * The answer, or what `fallback` makes of the budget running out first. The calls' own timeouts
   * end the work left behind; the race also bounds what has none of ours (an App's token).
   */
  async function withinBudget<T>(work: () => Promise<T>, fallback: (why: string) => T): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const spent = new Promise<T>((resolve) => {
      timer = setTimeout(() => resolve(fallback(`no answer within ${budgetMs} ms`)), budgetMs);
    });
    try {
      return await Promise.race([work(), spent]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    async headCommitMessage(request) {
      return withinBudget<HeadCommitMessage>(
        async () => {
          try {
            const api = await apiFor(request, CHANGE_PERMISSIONS, now() + budgetMs);
            return { known: true, message: await api().commitMessage(request.repository, request.commit) };
          } catch (error) {
            return { known: false, why: describe(error) };
          }
        },
        (why) => ({ known: false, why }),
      );
    },

    async changes(request, query) {
      if (query.kind === 'known') return query.changes;
      return withinBudget(() => listChanges(request, query), (why) => unknownChanges(`${whyAsked(query)}, and GitHub did not say: ${why}`));
    },
  };

  async function listChanges(request: BuildRequest, query: Exclude<ChangeQuery, { kind: 'known' }>): Promise<BuildChanges> {
    try {
      const deadline = now() + budgetMs;
      if (query.kind === 'compare') {
        const api = await apiFor(request, CHANGE_PERMISSIONS, deadline);
        return compareChanges(await api().compareFiles(request.repository, query.base, query.head));
      }
      if (query.changedFiles !== undefined && query.changedFiles > CHANGED_FILES_LIMIT) {
        return unknownChanges(`the pull request touches ${query.changedFiles} files, more than the ${CHANGED_FILES_LIMIT} a build's input holds`);
      }
      const api = await apiFor(request, PULL_REQUEST_FILES_PERMISSIONS, deadline);
      const files: ChangedFile[] = [];
      // Pages until a short one, and never more than the input could hold (with renames, a page
      // of 100 may hold up to 200 paths: the limit is checked again on the paths).
      const pages = Math.ceil(Math.min(CHANGED_FILES_LIMIT + 1, PULL_REQUEST_FILES_LIMIT) / PULL_REQUEST_FILES_PER_PAGE);
      for (let page = 1; page <= pages; page += 1) {
        const got = await api().pullRequestFiles(request.repository, query.number, page, PULL_REQUEST_FILES_PER_PAGE);
        files.push(...got);
        if (got.length < PULL_REQUEST_FILES_PER_PAGE) return pullRequestChanges(files);
      }
      return unknownChanges(`the pull request touches more than ${CHANGED_FILES_LIMIT} files, the most a build's input holds`);
    } catch (error) {
      return unknownChanges(`${whyAsked(query)}, and GitHub did not say: ${describe(error)}`);
    }
  }
}

class BudgetSpent extends Error {
  override readonly name = 'BudgetSpent';
}

function whyAsked(query: Exclude<ChangeQuery, { kind: 'known' }>): string {
  return query.kind === 'compare' ? `${query.why} (the compare API would list the files)` : `pull request #${query.number}'s files are listed by GitHub's API only`;
}

/** GitHubApiError and CredentialsUnavailable messages never hold a token; others are cut short. */
function describe(error: unknown): string {
  return String((error as Error).message ?? error).replace(/\s+/g, ' ').trim().slice(0, 300);
}
