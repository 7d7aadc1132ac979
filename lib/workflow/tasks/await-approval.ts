/**
 * AwaitApproval (state-machine.asl.yml): the function Step Functions invokes with the callback
 * pattern's task token (`$$.Task.Token`, Parameters.Payload.taskToken). It keeps the token in a
 * Secret of the build (lib/kube/approval-token.ts), where only the runner reads it when a person
 * decides, and returns at once: the task then waits in Step Functions with no Lambda running and no
 * pod. The token is never logged nor returned (the invocation's answer shows in the history).
 */
import { approvalTokenManifest } from '../../kube/index.js';
import type { BuildRef } from '../../contract/index.js';
import type { Step } from '../../pipeline/index.js';
import type { TaskDeps } from '../task-deps.js';

/** AwaitApproval's Parameters.Payload. */
export interface AwaitApprovalInput {
  build: BuildRef;
  namespace: string;
  step: Step;
  executionArn: string;
  taskToken: string;
}

/** Bad Parameters: the definition and this function disagree. */
export class InvalidAwaitApprovalInput extends Error {
  override readonly name = 'InvalidAwaitApprovalInput';
}

/** Time past the wait's own end before the orphan sweep may take the Secret. */
const DEADLINE_MARGIN_SECONDS = 60 * 60;

export async function awaitApproval(input: AwaitApprovalInput, deps: Pick<TaskDeps, 'cluster' | 'log'>): Promise<{ waiting: string }> {
  const { build, namespace, step, taskToken } = input ?? {};
  if (!step?.approval || typeof taskToken !== 'string' || taskToken === '' || !build?.id || !namespace) {
    throw new InvalidAwaitApprovalInput('AwaitApproval needs the build, its namespace, an approval step and $$.Task.Token as taskToken');
  }
  await deps.cluster.storeApprovalToken(
    approvalTokenManifest({ buildId: build.id, namespace, step: step.name, taskToken, deadlineSeconds: step.approval.timeoutSeconds + DEADLINE_MARGIN_SECONDS }),
  );
  const message = step.approval.message ? `: ${step.approval.message}` : '';
  deps.log.info(`Step "${step.name}" waits for an approval${message}`, { step: step.name });
  return { waiting: step.name };
}
