import { classifyStep, observeStep } from '../../kube/index.js';
import { nextPollSeconds } from '../poll-schedule.js';
import type { PollState, StepInput } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';

/** One look at the step's pod and its events, classified, with the wait before the next look. */
export async function pollStep(input: StepInput, deps: TaskDeps): Promise<PollState> {
  const previous = input.poll;
  if (!previous) throw new Error('PollStep needs $.poll from LaunchStep');
  const now = deps.now();
  const observation = await observeStep(await deps.kube(), input.namespace, previous.podName, () => now);
  const status = classifyStep(
    observation,
    { step: input.step.name, image: input.step.image },
    {
      imagePullGraceSeconds: input.settings.imagePullGraceSeconds,
      unschedulableGraceSeconds: input.settings.unschedulableGraceSeconds,
    },
  );
  const runningSince = previous.runningSince ?? (status.phase === 'running' ? now.toISOString() : null);
  const elapsedSeconds = (now.getTime() - Date.parse(previous.launchedAt)) / 1000;
  const runningSeconds = runningSince ? (now.getTime() - Date.parse(runningSince)) / 1000 : 0;
  const poll: PollState = {
    podName: previous.podName,
    launchedAt: previous.launchedAt,
    runningSince,
    phase: status.phase,
    reason: status.reason,
    nextPollSeconds: nextPollSeconds(status, { elapsedSeconds, runningSeconds, timeoutSeconds: input.step.timeoutSeconds }),
    polls: previous.polls + 1,
  };
  if ('message' in status && status.message) poll.message = status.message;
  if (status.phase === 'failed') {
    poll.error = status.error;
    poll.cause = status.cause;
    if (status.exitCode !== undefined) poll.exitCode = status.exitCode;
  }
  if (status.phase === 'succeeded') poll.exitCode = 0;
  deps.log.info(`Step "${input.step.name}" is ${status.phase} (${status.reason})`, { poll: poll.polls });
  return poll;
}
