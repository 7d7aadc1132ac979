import { deleteStepPod, maskSecrets, readSecretValues, readWholeStepLog, secretNeedles } from '../../kube/index.js';
import { ErrorNames } from '../../contract/index.js';
import { logTail } from '../log-tail.js';
import type { StepInput, StepResult } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';

/**
 * Keeps the step's log and deletes its pod, whatever the outcome. For a failed step the result
 * carries the Error and the Cause that StepFailed reports; a non-zero exit (StepFailed, or
 * CheckoutFailed with git's own words) gets its log tail in the Cause, since that is what a
 * person reads first.
 *
 * A step may print the secrets it was given (on purpose or through `set -x`), so the values of the
 * Secret keys it references are masked in everything kept from here on: the stored log, the tail
 * in the state output and the Cause, as GitHub Actions masks registered secrets.
 */
export async function finishStep(input: StepInput, deps: TaskDeps): Promise<StepResult> {
  const poll = input.poll;
  if (!poll) throw new Error('FinishStep needs $.poll from PollStep');
  const api = await deps.kube();
  const checkout = input.settings.checkout;
  const secrets = [...(checkout?.secrets ?? []), ...input.step.secrets];
  // Read before the pod is deleted, so a failure here leaves the step retryable as it was.
  const needles = secrets.length > 0 ? secretNeedles(await readSecretValues(api, input.namespace, secrets)) : [];
  const mask = (text: string) => maskSecrets(text, needles);
  // A pod's own checkout (ephemeral workspace) comes first in its log, as it ran first.
  const checkoutLog = checkout ? await readWholeStepLog(api, input.namespace, poll.podName, undefined, checkout.name) : '';
  const log = mask(checkoutLog + (await readWholeStepLog(api, input.namespace, poll.podName)));
  const location = log ? await deps.logs.put(input.build.id, input.step.name, log) : null;
  await deleteStepPod(api, input.namespace, poll.podName);
  const tail = log ? logTail(log) : '';
  const failed = poll.phase === 'failed';
  let cause = failed ? mask(poll.cause ?? `Step "${input.step.name}" failed`) : null;
  const exited = poll.error === ErrorNames.StepFailed || poll.error === ErrorNames.CheckoutFailed;
  if (cause && exited && tail) cause = `${cause}\nLast lines of the log:\n${tail}`;
  deps.log.info(`Step "${input.step.name}" ${failed ? 'failed' : 'succeeded'}; pod ${poll.podName} deleted`, {
    log: location,
  });
  return {
    step: input.step.name,
    status: failed ? 'failed' : 'succeeded',
    exitCode: poll.exitCode ?? null,
    error: failed ? (poll.error ?? ErrorNames.StepFailed) : null,
    cause,
    logTail: tail,
    log: location,
  };
}
