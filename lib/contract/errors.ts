/**
 * Every named Error a build can end with, in one table: its name (the `Error` the Step Functions
 * console shows), what it means, whether a retry in a fresh pod can help, and where the reference
 * describes it. The names are a contract (users' scripts, `retry.on`, the commit status read them);
 * the rest of the project derives from this table: ErrorNames, what `retry.on` may list and why
 * the others are refused, a step's default retry (lib/pipeline/retry.ts), and the Error table of
 * docs/contracts.md, which test/errors.test.ts holds to it row by row.
 *
 * An Error a task throws has a class whose `name` is the Error (Lambda reports `errorType` from
 * `error.name`), beside the code that throws it; an Error only ever reported as data (PollStep's
 * verdicts, StopExecution's `error`) has none. docs/architecture.md, "Adding a named Error".
 */

/** Why no attempt in a fresh pod can fix it: the end of `retry.on`'s refusal. */
const FRESH_POD_CANNOT = 'a fresh pod cannot fix it';

/** The reference's Error table; an Error with a section of its own points there instead. */
const ERROR_TABLE = 'docs/contracts.md#step-functions-errors';

/**
 * Whether a retry can help. `default`: a fresh pod on the same workspace can fix it, and a step
 * that says nothing tries it again (the node's doing, not the pipeline's). `on request`: a fresh
 * pod can fix it, when the step's `retry.on` lists it. Otherwise why it would fail the same way
 * again, which is how `retry.on` refuses it.
 */
export type ErrorRetry = 'default' | 'on request' | { never: string };

export interface ErrorEntry {
  /** What happened, in one line. */
  meaning: string;
  retry: ErrorRetry;
  /** The reference's description: a file of the repository and a heading's anchor. */
  docs: string;
}

/**
 * In the order the reference's table lists them: the pipeline refused, the step's pod that could
 * not start, the step's ends, the runner's own. Among the retryable ones this is the order
 * `retry.on`'s refusals name them in.
 */
export const ERRORS = {
  InvalidPipeline: {
    meaning: 'The pipeline file is invalid (its Cause names the file, line, step and field).',
    retry: { never: `it is found when the pipeline file is read, before any pod runs; ${FRESH_POD_CANNOT}` },
    docs: 'docs/contracts.md#pipeline-file',
  },
  InvalidImage: {
    meaning: 'An image reference is not valid, in the pipeline file or as the kubelet read it.',
    retry: { never: `it is found when the pipeline file is read, before any pod runs; ${FRESH_POD_CANNOT}` },
    docs: ERROR_TABLE,
  },
  IdentityNotAllowed: {
    meaning: "A step asks for an identity whose rules do not allow this build (its repository, ref, event, or a fork's pull request).",
    retry: { never: `the deployment's rules decide it from the build, before any pod runs; ${FRESH_POD_CANNOT}` },
    docs: 'docs/deploy.md#identities',
  },
  SecretUnavailable: {
    meaning: "An AWS secret of the step (Secrets Manager or SSM) does not exist, lacks the JSON key named, or the step's identity may not read it; AWS's words are in the Cause.",
    retry: { never: `the step's identity reads the same secret with the same permissions, before its pod runs; ${FRESH_POD_CANNOT}` },
    docs: 'docs/deploy.md#secrets-from-aws',
  },
  ImagePullFailed: {
    meaning: "A step's image does not exist or cannot be pulled.",
    retry: { never: `a fresh pod pulls the same image with the same pull secrets (a passing registry error is already waited out: image-pull-grace); ${FRESH_POD_CANNOT}` },
    docs: 'docs/contracts.md#image-pull-failures',
  },
  PodConfigError: {
    meaning: "The step's container cannot be configured, or the API refused its pod.",
    retry: { never: `the pod's configuration (its Secrets, ConfigMaps, volumes) is the same for every attempt; ${FRESH_POD_CANNOT}` },
    docs: ERROR_TABLE,
  },
  Unschedulable: {
    meaning: "No node could take the step's pod, and none is coming.",
    retry: { never: `a fresh pod asks for the same resources, node selector and tolerations; ${FRESH_POD_CANNOT}` },
    docs: ERROR_TABLE,
  },
  WorkspaceUnavailable: {
    meaning: "The build's workspace volume cannot be provisioned, bound, attached or mounted.",
    retry: { never: `it is the build's workspace, not the step, and every attempt shares the workspace; ${FRESH_POD_CANNOT}` },
    docs: 'docs/contracts.md#workspace-failures',
  },
  PodStalled: {
    meaning: "Nothing about the step's pod moved for its pending-timeout: no scheduler or kubelet answered.",
    retry: { never: `a fresh pod names the same scheduler and scheduling gates, and waits the same way for what no one answered; ${FRESH_POD_CANNOT}` },
    docs: ERROR_TABLE,
  },
  StepInterrupted: {
    meaning: "The cluster took the running step's pod away (eviction, preemption, its node drained or gone).",
    retry: 'default',
    docs: ERROR_TABLE,
  },
  StepFailed: {
    meaning: "The step's command exited non-zero, ran out of memory, or could not start.",
    retry: 'on request',
    docs: ERROR_TABLE,
  },
  CheckoutFailed: {
    meaning: "The build's checkout (its clone) failed; git's words are in the Cause.",
    retry: { never: `it is the build's checkout, not the step, and every attempt shares the workspace; ${FRESH_POD_CANNOT}` },
    docs: 'docs/contracts.md#checkout',
  },
  ImageBuildFailed: {
    meaning: "A build step's Dockerfile failed to build: an instruction failed, or the builder could not run.",
    retry: { never: `the same Dockerfile and context from the same commit build the same way; ${FRESH_POD_CANNOT}` },
    docs: 'README.md#build-an-image',
  },
  ImagePushFailed: {
    meaning: "A build step's registry refused its push (unauthorized, no such repository, an immutable tag).",
    retry: { never: `a fresh pod pushes the same tags with the same credentials; ${FRESH_POD_CANNOT}` },
    docs: 'README.md#build-an-image',
  },
  StepTimedOut: {
    meaning: 'The step ran past its timeout, or no node started it within it.',
    retry: 'on request',
    docs: ERROR_TABLE,
  },
  PodLost: {
    meaning: "The step's pod was deleted, or failed on its node before the step ran.",
    retry: 'on request',
    docs: ERROR_TABLE,
  },
  ServiceFailed: {
    meaning: 'A service of the step exited, kept restarting, or never opened its ports.',
    retry: 'on request',
    docs: 'docs/contracts.md#service-failures',
  },
  ContainerRuntimeTimeout: {
    meaning: "The node's container runtime did not create the step's container in time.",
    retry: 'default',
    docs: ERROR_TABLE,
  },
  ApprovalRejected: {
    meaning: 'A person rejected an approval step; the Cause names who, when, and their comment.',
    retry: { never: 'a person decided it, and an approval step has no pod to try again; re-run the build to ask again' },
    docs: 'docs/pipeline.md#approvals',
  },
  ApprovalTimedOut: {
    meaning: "Nobody approved or rejected an approval step within its approval's timeout.",
    retry: { never: 'the wait for a person ran out, and an approval step has no pod to try again; re-run the build to ask again' },
    docs: 'docs/pipeline.md#approvals',
  },
  CredentialsUnavailable: {
    meaning: "The deployment's GitHub App could not get a token for the build's checkout.",
    retry: { never: `the runner itself could not get credentials, not the step; ${FRESH_POD_CANNOT}` },
    docs: ERROR_TABLE,
  },
  GitHubUnavailable: {
    meaning: "GitHub's API kept failing while the build read its pipeline file from it.",
    retry: { never: `it is found when the pipeline file is read from GitHub, before any pod runs; ${FRESH_POD_CANNOT}` },
    docs: ERROR_TABLE,
  },
  Superseded: {
    meaning: 'Not a failure: a newer build of the same concurrency group stopped this one.',
    retry: { never: 'a newer build of the same concurrency group stopped the build, not the step; trying again would only be stopped again' },
    docs: ERROR_TABLE,
  },
  KubernetesUnavailable: {
    meaning: 'The Kubernetes API (or the EKS cluster) kept failing or refused the runner.',
    retry: { never: `the runner itself could not reach the cluster, not the step; ${FRESH_POD_CANNOT}` },
    docs: ERROR_TABLE,
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorName = keyof typeof ERRORS;

/** Each Error's name by itself, for code that names one: `ErrorNames.StepFailed`. */
export const ErrorNames = Object.freeze(Object.fromEntries(Object.keys(ERRORS).map((name) => [name, name]))) as { readonly [N in ErrorName]: N };

/** The Errors a fresh pod on the same workspace can fix. */
export type RetryableError = { [N in ErrorName]: (typeof ERRORS)[N]['retry'] extends string ? N : never }[ErrorName];

const names = Object.keys(ERRORS) as ErrorName[];

function isRetryable(name: ErrorName): name is RetryableError {
  return typeof ERRORS[name].retry === 'string';
}

/** The Errors a fresh pod on the same workspace can fix, in the table's order: what `retry.on` may list. */
export const RETRYABLE_ERRORS: readonly RetryableError[] = Object.freeze(names.filter(isRetryable));

/** The Errors a step that says nothing about `retry` tries again: the node's doing, not the pipeline's. */
export const DEFAULT_RETRY_ERRORS: readonly RetryableError[] = Object.freeze(RETRYABLE_ERRORS.filter((name) => ERRORS[name].retry === 'default'));

/** Why a fresh pod cannot fix this Error; undefined for one it can fix. */
export function notRetryableWhy(name: ErrorName): string | undefined {
  const retry: ErrorRetry = ERRORS[name].retry;
  return typeof retry === 'string' ? undefined : retry.never;
}

export function isErrorName(value: unknown): value is ErrorName {
  return typeof value === 'string' && Object.hasOwn(ERRORS, value);
}

/** The base of every named error a task throws: its message is the Cause, one readable paragraph. */
export abstract class StepRunnerError extends Error {
  abstract override readonly name: ErrorName;
}
