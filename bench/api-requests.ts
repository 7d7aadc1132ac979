/**
 * Kubernetes API requests per poll: the PollStep handler (built as functions/poll-step.ts builds
 * it, over the local runtime) called directly, as Lambda calls it, against the embedded cluster, counting the requests that reach its
 * HTTP layer during each invocation. One step that runs and succeeds, one whose image is missing,
 * so every phase the classifier reports is covered; and one that runs as a step past the running
 * watch's limit does (runningWatchUntilSeconds 0: each poll reads the pod and the live log plainly),
 * counted apart (`pastWatch`).
 */
import { localLambdaContext } from '../lib/emulators/lambda/lambda-context.js';
import { launchStepHandler, pollStepHandler } from '../lib/workflow/handlers.js';
import type { PollState, StepInput } from '../lib/workflow/state-data.js';
import type { TaskRuntime } from '../lib/workflow/task-deps.js';
import { prepareBuild } from '../lib/workflow/tasks/prepare-build.js';
import type { RequestCounter } from './request-counter.js';

export interface PollRequests {
  phase: string;
  requests: number;
  /** A poll of a step past runningWatchUntilSeconds (polled on the schedule, its log read once a poll). */
  pastWatch?: true;
}

const PIPELINE = `version: 1
steps:
  - name: works
    image: alpine:3.20
    commands: ["sleep 1"]
  - name: missing
    image: alpine:3.99-does-not-exist
    # PollStep's requests for a failing pull are the figure: PrepareBuild must not stop the build first.
    image-check: false
    commands: [make]
  - name: past-watch
    image: alpine:3.20
    commands: ["echo started", "sleep 2", "echo done"]
`;

export async function measureApiRequestsPerPoll(counter: RequestCounter, runtime: TaskRuntime): Promise<PollRequests[]> {
  const launchStep = launchStepHandler(runtime);
  const pollStep = pollStepHandler(runtime);
  const { namespace } = runtime.settings;
  // The settings every step gets come from the real PrepareBuild, as the Map's ItemSelector passes them.
  const prepared = await prepareBuild(
    { build: { id: `requests-${Date.now().toString(36)}`, trigger: 'benchmark' }, pipeline: { file: 'bench.yml', text: PIPELINE }, namespace, withoutSource: 'the benchmark measures its steps' },
    runtime.settings,
    runtime.deps,
  );
  const measured: PollRequests[] = [];
  for (const [index, step] of prepared.steps.entries()) {
    const pastWatch = step.name === 'past-watch';
    // As a step that has run past the limit: no running watch, the schedule and a plain read of the log.
    const settings = pastWatch ? { ...prepared.settings, runningWatchUntilSeconds: 0 } : prepared.settings;
    const input: StepInput = { build: prepared.build, namespace: prepared.namespace, settings, step, index };
    let poll = (await launchStep(input as never, localLambdaContext('launchStep'))) as PollState;
    for (let i = 0; i < 100 && poll.phase !== 'succeeded' && poll.phase !== 'failed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      counter.sinceMark();
      poll = (await pollStep({ ...input, poll } as never, localLambdaContext('pollStep'))) as PollState;
      measured.push({ phase: `${pastWatch ? 'past the watch: ' : ''}${poll.phase} (${poll.reason})`, requests: counter.sinceMark().length, ...(pastWatch ? { pastWatch: true as const } : {}) });
    }
  }
  return measured;
}
