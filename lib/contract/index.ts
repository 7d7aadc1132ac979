/**
 * What several layers agree on, and nothing else: the Error names the Step Functions console shows,
 * the build reference and the execution input the webhook starts a build with, and what the
 * definition hands ReportStatus. It imports nothing of the project, so every layer may import it
 * (test/import-direction.test.ts keeps it that way). docs/contracts.md describes each of them.
 */

/**
 * The errors a build can end with. A class's `name` is the `Error` the console shows (Lambda
 * reports `errorType` from `error.name`), so the names are a contract. The classes live beside the
 * code that raises them: lib/pipeline/errors.ts and lib/kube/errors.ts.
 */
export const ErrorNames = {
  InvalidPipeline: 'InvalidPipeline',
  InvalidImage: 'InvalidImage',
  ImagePullFailed: 'ImagePullFailed',
  PodConfigError: 'PodConfigError',
  Unschedulable: 'Unschedulable',
  StepFailed: 'StepFailed',
  StepTimedOut: 'StepTimedOut',
  PodLost: 'PodLost',
  KubernetesUnavailable: 'KubernetesUnavailable',
} as const;

export type ErrorName = (typeof ErrorNames)[keyof typeof ErrorNames];

/** The base of every named error: its message is the Cause, one readable paragraph. */
export abstract class StepRunnerError extends Error {
  abstract override readonly name: ErrorName;
}

export interface BuildRef {
  /** Unique per build; the execution name and the pods' build label derive from it. */
  id: string;
  /** What started it, for people: "local run", "github push", ... */
  trigger?: string;
  repository?: string;
  commit?: string;
  ref?: string;
}

/** The execution input: what a webhook (or `run`) starts a build with. */
export interface BuildInput {
  build: BuildRef;
  pipeline: { file: string; text: string };
  /** Overrides the deployment's namespace. */
  namespace?: string;
}

/** Which ReportStatus state is reporting: the `outcome` of its Parameters. */
export const Outcomes = { started: 'started', succeeded: 'succeeded', failed: 'failed' } as const;
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
}

/** ReportStatus's output: `posted` only when the forge has the status; else `reason` says why. */
export type StatusReport =
  | { posted: true; state: string; description: string }
  | { posted: false; reason: string; state?: string; description?: string };
