/**
 * A step that needs approval steps, and an approval that is given: the two ends of a wait that
 * costs nothing while it lasts (state-machine.asl.yml AwaitApprovedNeeds, FinishApproval).
 *
 * WaitForNeeds learns that a needed step has ended from the build's pods: a needed step's pod is
 * kept once it succeeded and marked finished (lib/kube/step-finished.ts), and one watch on them
 * ends the wait within a second. An approval has no pod; its Secret is marked the same way once
 * it is given. But the watch is held by a Lambda, looking again every few minutes, which over an
 * approval's days would cost a look's history events many thousand times. So a step that needs
 * approvals (directly, or through the steps it needs) waits for them first, in a callback Task of
 * its own (`.waitForTaskToken`, no Lambda, no pod), and only then has WaitForNeeds watch for its
 * other needs; its token waits in a Secret beside the approvals'. Whichever comes second answers it: the FinishApproval of the last approval it
 * awaits, or its own AwaitApprovedNeeds finding them all given already. Both may: the second
 * SendTaskSuccess finds the task closed (TaskTimedOut), which is no error here.
 *
 * A rejected or timed-out approval fails its iteration, and the Map stops every other, the waiting
 * ones included, as a failed step does.
 */
import { approvalTokenName, approvalWaitManifest } from '../../kube/index.js';
import type { BuildRef } from '../../contract/index.js';
import { EXECUTION_TIME_LIMIT_SECONDS, type Step } from '../../pipeline/index.js';
import { releasable } from '../approval-release.js';
import { buildClaimName, type BuildSettings } from '../state-data.js';
import type { TaskCallbacks, TaskDeps } from '../task-deps.js';

/** AwaitApprovedNeeds' Parameters.Payload. */
export interface AwaitApprovedNeedsInput {
  task: 'await-approved-needs';
  build: BuildRef;
  namespace: string;
  step: Step;
  taskToken: string;
}

/** FinishApproval's Parameters. */
export interface FinishApprovalInput {
  task: 'finish-approval';
  build: BuildRef;
  namespace: string;
  settings: BuildSettings;
  step: Step;
}

/** Bad Parameters (the definition and these functions disagree), or no way to answer a wait. */
export class InvalidApprovalWait extends Error {
  override readonly name = 'InvalidApprovalWait';
}

/** When the orphan sweep may take the Secret: the execution's own limit bounds the wait, and an hour past it. */
const WAIT_DEADLINE_SECONDS = EXECUTION_TIME_LIMIT_SECONDS + 60 * 60;

type Deps = Pick<TaskDeps, 'cluster' | 'log' | 'now' | 'callbacks'>;

export async function awaitApprovedNeeds(input: AwaitApprovedNeedsInput, deps: Deps): Promise<{ waiting: string }> {
  const { build, namespace, step, taskToken } = input ?? {};
  if (!step?.awaits?.length || typeof taskToken !== 'string' || taskToken === '' || !build?.id || !namespace) {
    throw new InvalidApprovalWait('AwaitApprovedNeeds needs the build, its namespace, a step that awaits approvals and $$.Task.Token as taskToken');
  }
  const callbacks = answering(deps);
  await deps.cluster.storeApprovalToken(approvalWaitManifest({ buildId: build.id, namespace, step: step.name, awaits: step.awaits, taskToken, deadlineSeconds: WAIT_DEADLINE_SECONDS }));
  deps.log.info(`Step "${step.name}" waits for ${step.awaits.map((name) => `"${name}"`).join(', ')} to be approved`, { step: step.name });
  // Stored first, then looked: an approval given since is seen here, one given later finds the token.
  await release(build.id, namespace, deps, callbacks);
  return { waiting: step.name };
}

export async function finishApproval(input: FinishApprovalInput, deps: Deps): Promise<{ released: string[] }> {
  const { build, namespace, step, settings } = input ?? {};
  if (!step?.approval || !build?.id || !namespace) throw new InvalidApprovalWait('FinishApproval needs the build, its namespace and an approval step');
  const callbacks = answering(deps);
  if (!(await deps.cluster.markApprovalGiven(namespace, approvalTokenName(build.id, step.name), deps.now()))) {
    deps.log.warn(`Step "${step.name}" was approved, but its Secret was gone before it could say so: the steps that need it will not start`, { step: step.name });
  }
  // As FinishStep records a step that succeeded: a re-run of the build's failed steps asks no approval given already.
  const claimName = settings ? buildClaimName(settings) : undefined;
  if (claimName) await deps.cluster.recordStepSucceeded(namespace, claimName, step.name, deps.now());
  // Marked first, then looked: a step waiting since is answered here, one waiting later sees the mark.
  return { released: await release(build.id, namespace, deps, callbacks) };
}

function answering(deps: Deps): TaskCallbacks {
  if (!deps.callbacks) throw new InvalidApprovalWait('No way to answer a task token here (TaskDeps.callbacks): a step waiting for an approval would wait for ever');
  return deps.callbacks;
}

async function release(buildId: string, namespace: string, deps: Deps, callbacks: TaskCallbacks): Promise<string[]> {
  const released: string[] = [];
  for (const { step, taskToken } of releasable(await deps.cluster.listBuildSecrets(namespace, buildId))) {
    try {
      await callbacks.sendTaskSuccess(taskToken, JSON.stringify({ approved: true }));
      released.push(step);
      deps.log.info(`Step "${step}" may start: the approvals it needs are given`, { step });
    } catch (error) {
      // Answered already (by the other end), or its execution has ended.
      if ((error as Error).name !== 'TaskTimedOut') throw error;
    }
  }
  return released;
}

/** The function both states call (approvalWaits in serverless.yml): one job, the waits for approvals, told apart by `task`. */
export async function approvalWaits(input: AwaitApprovedNeedsInput | FinishApprovalInput, deps: Deps): Promise<unknown> {
  if (input?.task === 'await-approved-needs') return awaitApprovedNeeds(input, deps);
  if (input?.task === 'finish-approval') return finishApproval(input, deps);
  throw new InvalidApprovalWait('approvalWaits needs task: await-approved-needs or finish-approval');
}
