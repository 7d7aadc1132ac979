/** The definition's states whose names the local executor has to know. */

/** The Maps whose iterations are steps: the build's, and the one that runs after a failure. */
export const STEPS_MAP = 'RunSteps';
export const AFTER_FAILURE_MAP = 'RunAfterFailure';
/** The Task a failed build with steps to re-run fails in, until it is redriven (state-machine.asl.yml). */
export const AWAIT_RERUN = 'AwaitRerun';
/** The callback Task an approval step waits in (state-machine.asl.yml). */
export const AWAIT_APPROVAL = 'AwaitApproval';
/** The callback Task a step waits in for the approval steps it needs (state-machine.asl.yml). */
export const AWAIT_APPROVED_NEEDS = 'AwaitApprovedNeeds';
/** The task whose iteration goes on to StepFailed, failing RunSteps (a combination of a matrix with fail-fast: false: to CombinationFailed, failing nothing). */
export const FAILING_FINISH = 'FinishFailedStep';

export const isFinishState = (state: string | undefined) => state === 'FinishStep' || state === FAILING_FINISH || state === 'FinishAfterFailure';
export const isLaunchState = (state: string | undefined) => state === 'LaunchStep' || state === 'LaunchAfterFailure';
