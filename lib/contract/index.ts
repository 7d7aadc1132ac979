/**
 * What several layers agree on, and nothing else: the Errors a build can end with (errors.ts, one
 * table: name, meaning, whether a retry helps, where the reference says more; lambda-error.ts,
 * imported as it is, reads a Cause back from Lambda's error JSON), the build reference and the execution input the
 * webhook starts a build with, and what the definition hands ReportStatus. It imports nothing of
 * the project, so every layer may import it (test/import-direction.test.ts keeps it that way).
 * docs/contracts.md describes each of them.
 */

import type { TestSummary } from './test-summary.js';
export { MAX_FAILURES, MAX_FAILURE_MESSAGE, type TestFailure, type TestSummary } from './test-summary.js';
export {
  DEFAULT_RETRY_ERRORS,
  ERRORS,
  ErrorNames,
  RETRYABLE_ERRORS,
  StepRunnerError,
  isErrorName,
  notRetryableWhy,
  type ErrorEntry,
  type ErrorName,
  type ErrorRetry,
  type RetryableError,
} from './errors.js';

export interface BuildRef {
  /** Unique per build; the execution name and the pods' build label derive from it. */
  id: string;
  /** What started it, for people: "local run", "github push", ... */
  trigger?: string;
  repository?: string;
  commit?: string;
  ref?: string;
  /** What kind of event started it: push, pull_request, generic, manual, schedule or local (CI_EVENT). */
  event?: string;
  /** A pull request's base branch (`refs/heads/main`): the branch a step's `when: branch` is matched with. */
  baseRef?: string;
  /**
   * The repository's default branch (`main`): a build reads the cache entries its default branch
   * saved when its own branch has none. Absent: `main`.
   */
  defaultBranch?: string;
  /**
   * The pull request that started the build: its cache entries are its own, and one from a fork
   * saves none, so nothing a fork wrote is ever restored elsewhere.
   */
  pullRequest?: { number: number; fork: boolean };
  /**
   * When the forge says the build's commit was pushed (ISO 8601): for a push the payload's
   * `repository.pushed_at`, for a pull request its `pull_request.updated_at`. Of two builds of one
   * concurrency group, the later one is the newer and supersedes the other (lib/workflow/superseding.ts).
   * Absent (a generic delivery, a local run): the time the build claims its group.
   */
  pushedAt?: string;
  /**
   * The GitHub App installation the delivery came through (the payload's `installation.id`), so
   * the tasks that need GitHub credentials can ask the deployment's App for a token of this
   * installation. An id, not a credential: it grants nothing without the App's private key.
   */
  installationId?: number;
  /**
   * Who pushed the change, as GitHub names them (a push's or a pull request's `sender.login`): an
   * approval with `self-approval: false` refuses their decision. Absent: not known (a re-run, a
   * generic delivery), and nobody is refused as the pusher.
   */
  pushedBy?: string;
  /**
   * Variables every step sees besides the runner's own (`run --env NAME=VALUE`); a step's own env
   * and secrets win over them. Not secret: they are in the execution's input and history.
   */
  variables?: Record<string, string>;
  /**
   * The values of the pipeline's `inputs:` a manual run or a schedule gives (`trigger --input`,
   * `run --input`, a schedule's `inputs`): PrepareBuild checks them against the pipeline and
   * writes them back with the defaults filled in; every step sees each as `CI_INPUT_<NAME>`.
   * Absent: no one gave any (a push), and the defaults apply. Not secret, as `variables`.
   */
  inputs?: Record<string, string>;
}

/** Where the build's checkout comes from: a repository git can fetch from, and the commit to check out. */
export interface BuildSource {
  /**
   * https:// (or http://, git://), or for local runs a file:// URL or path on the machine the clone
   * runs on. Never holds a credential.
   */
  url: string;
  commit: string;
  /** The ref the commit was pushed to, fetched when the server will not serve the commit by id. */
  ref?: string;
  /**
   * `github`: the clone authenticates to GitHub, with an installation token of the deployment's
   * GitHub App (for `build.installationId`) or else the deployment's GitHub token, handed to the
   * clone container through a Secret of the build's own (never in a spec, an input or a log).
   */
  credentials?: 'github';
  /**
   * The runner that started the build sends the repository into the clone's container through the
   * Kubernetes API (exec, as `kubectl cp` does), since the cluster cannot reach it: a local run
   * against a cluster given by --kubeconfig. `url` then only names it for people; the clone waits
   * for it in the workspace (UPLOADED_SOURCE in lib/workflow/checkout-step.ts).
   */
  upload?: true;
}

/** The execution input: what a webhook (or `run`) starts a build with. */
export interface BuildInput {
  build: BuildRef;
  pipeline: { file: string; text: string };
  /** Absent: nothing to check out (a pipeline with `checkout: false` needs none). */
  source?: BuildSource;
  /**
   * Why this build has no source although its pipeline checks out, when whoever started it knew
   * (a local file outside any git work tree): it then runs with an empty workspace instead of
   * being refused.
   */
  withoutSource?: string;
  /** Overrides the deployment's namespace. */
  namespace?: string;
  /**
   * Only these steps of the pipeline (and the checkout), plus the steps they need unless `needs`
   * is false (`run --step`); PrepareBuild lists the others as skipped. Absent: every step.
   */
  only?: { steps: string[]; needs: boolean };
  /**
   * The files the build's change touches, as repository paths, for `when.paths` and
   * `when.paths-ignore`: a push's commits' added, modified and removed files (or the compare
   * API's when the payload cannot say), a pull request's files, `run --changed` or the work tree
   * against `--base`. `known: false`, with why (a new branch, a forced push, more files than
   * CHANGED_FILES_LIMIT): no step is skipped by paths. Absent: the trigger has no change (a
   * manual run, a re-run), and no step is skipped by paths either.
   */
  changes?: BuildChanges;
}

export type BuildChanges = { known: true; files: string[] } | { known: false; why: string };

/**
 * What the webhook could not ask GitHub within its budget (lib/forge/webhook.ts), so PrepareBuild
 * asks instead: the pipeline file at build.commit, a pull request's head commit message (for
 * `[skip ci]`), the changed files (for `when.paths`). A repository without the file, or a head
 * commit that asks for no build, ends the execution with no step run and no commit status, as the
 * webhook's own 422 / 202 "skipped" answers do.
 */
export interface DeferredLookup {
  /** Why the webhook left it to the build, for the log. */
  why: string;
  /** Read this pipeline file from build.repository at build.commit; the input then has no `pipeline`. */
  pipelineFile?: string;
  headCommitMessage?: true;
  /**
   * Resolve build.ref to the commit at its head first (a schedule names a branch, not a commit):
   * build.commit and source.commit are then that commit. The build's id, absent from such an
   * input (it is the same every time), derives from the execution's name, as the cleanup of ended
   * executions derives it.
   */
  commit?: true;
  changes?: { kind: 'compare'; base: string; head: string; why: string } | { kind: 'pullRequest'; number: number; changedFiles?: number };
}

/**
 * An execution input whose GitHub lookups PrepareBuild still has to make. With `lookup.commit`,
 * the build has no id yet and neither it nor its source a commit.
 */
export type PendingBuildInput = Omit<BuildInput, 'pipeline' | 'build' | 'source'> & {
  build: Omit<BuildRef, 'id'> & { id?: string };
  source?: Omit<BuildSource, 'commit'> & { commit?: string };
  pipeline?: BuildInput['pipeline'];
  lookup: DeferredLookup;
};

/** What an execution starts with: complete, or with lookups left to PrepareBuild. */
export type ExecutionInput = BuildInput | PendingBuildInput;

/**
 * At most this many changed files travel in a build's input: Step Functions caps an execution's
 * input at 256 KiB, and more than this many paths (about 100 bytes each) would crowd it. A change
 * touching more is `known: false`, so every step runs.
 */
export const CHANGED_FILES_LIMIT = 1000;

/**
 * The files of a change as BuildInput.changes holds them: once each and sorted (a redelivery
 * then starts the same input whatever order they were listed in), or `known: false` past the limit.
 */
export function changesOf(files: readonly string[], limit = CHANGED_FILES_LIMIT): BuildChanges {
  const unique = [...new Set(files)].sort();
  if (unique.length > limit) return { known: false, why: `the change touches ${unique.length} files, more than the ${limit} a build's input holds` };
  return { known: true, files: unique };
}

/**
 * Which ReportStatus state is reporting: the `outcome` of its Parameters. `stopped`: the execution
 * ended outside the definition (aborted, timed out, or failed where no Catch runs), reported by
 * the cleanup of ended executions, not by a state.
 */
/** `progress`: a step has ended (ReportProgress), for a check run's summary; a commit status says nothing then. */
export const Outcomes = { started: 'started', progress: 'progress', succeeded: 'succeeded', failed: 'failed', stopped: 'stopped' } as const;
export type Outcome = (typeof Outcomes)[keyof typeof Outcomes];

/** What Step Functions puts at $.failure when a Catch fires. */
export interface CaughtFailure {
  Error?: string;
  Cause?: string;
}

/**
 * What the ReportStarted / ReportSucceeded / ReportFailed states hand ReportStatus (their
 * Parameters: build.$: $.build, outcome, executionArn.$: $$.Execution.Id, failure.$: $.failure).
 */
export interface StatusRequest {
  build: BuildRef;
  outcome: Outcome;
  executionArn?: string;
  failure?: CaughtFailure;
  /**
   * A build in which no step runs (ReportSkipped: every step skipped, e.g. by `when.paths`): why,
   * worded for the status's description. It still reports success, so that branch protection
   * waiting on a required status does not wait forever.
   */
  skipped?: string;
  /** The build's steps as a check run's summary shows them (ReportStatus fills them in); absent: not known. */
  steps?: StatusStep[];
  /** The pipeline file's path in the repository, where a check run's annotation of the failing step points. */
  pipelineFile?: string;
  /** What the build cost (lib/workflow/cost-model.ts), for the check run's summary; absent: not known. */
  cost?: CostSummary;
  /** ReportWaiting: the approval step that now waits (its check run shows the Approve and Reject buttons). */
  waiting?: WaitingStepReport;
  /**
   * A step's end or an approval's start (`outcome: progress`): every approval step of the build
   * waiting as the report is made, the one waiting longest first (ReportStatus reads them from the
   * execution's history; [] for a build with no approval step, or with no check run to show them:
   * no `build.installationId`). A check run's buttons are made from these on every such update.
   * Absent: not known, and a check run is then left as it is.
   */
  approvals?: WaitingStepReport[];
  /**
   * ReportDecision: the approval step just approved, by whom, when and with what comment, however
   * it was decided (a check run's button, the console page, the CLI, the local server's route, a
   * signed generic approval). Its check run says so at once, and its buttons go to the approval
   * waiting next (`approvals`), or go.
   */
  approved?: ApprovedStepReport;
}

/** An approval step's approval, as ReportDecision hands it over (`steps[].approval` of run --json, approved). */
export interface ApprovedStepReport {
  step: string;
  /** Who approved (a GitHub login; locally, the local user; a generic approval's `by`). */
  by: string;
  /** When (ISO 8601). */
  at: string;
  comment: string | null;
}

/**
 * A build's cost as `run --json`, `GET /executions/NAME` and the reports show it (`cost: {usd,
 * parts}`): dollars, and the parts they are made of (stepFunctions, lambda, s3, pods), at the list
 * prices of `prices.region` on `prices.asOf`. How each part is counted: docs/cost.md.
 */
export interface CostSummary {
  usd: number;
  parts: Record<string, number>;
  prices: { region: string; asOf: string };
}

/** An approval step as ReportWaiting hands it over: the step (its `approval` in the normal form) and its iteration. */
export interface WaitingStepReport {
  step: {
    name: string;
    approval?: {
      message?: string;
      approvers?: { users: string[]; teams: string[]; permission?: 'write' | 'maintain' | 'admin' };
      selfApproval: boolean;
      timeoutSeconds: number;
    };
  };
  index: number;
}

/** A step as a report shows it: how it stands or ended, for how long, with which Error. */
export interface StatusStep {
  name: string;
  status: 'succeeded' | 'failed' | 'running' | 'queued' | 'skipped' | 'aborted' | 'not-run';
  durationSeconds?: number;
  error?: string | null;
  /** Why it was skipped, e.g. `branch feature/x is not main`. */
  reason?: string;
  /** 1-based line of the step in the pipeline file. */
  line?: number;
  /** The identity its pod ran as (`identity:`), for the check run's table. */
  identity?: string;
  /** A build step's push (`steps[].pushed`): the registry's digest of the image, and the tags. */
  pushed?: { digest: string; tags: string[] };
  /** What its test reports said (`reports:`), for the check run's tests and annotations; absent: none. */
  tests?: TestSummary;
}

/** ReportStatus's output: `posted` only when the forge has the status; else `reason` says why. */
export type StatusReport =
  | { posted: true; state: string; description: string }
  | { posted: false; reason: string; state?: string; description?: string };
