/**
 * The end of a running step is noticed at once: PollStep holds a watch on the running pod, so the
 * next step's pod is created as soon as the container exits, not at the next scheduled poll
 * (which for a 5-second step comes 2 s late, and for a long one up to a minute). How soon, in
 * milliseconds, is the bench's figure (bench/step-end-latency.ts); here, the order of things.
 *
 * The real definition, the real schedule (no wait override) and the embedded cluster. The test's
 * own watch on the namespace's pods (not the code under test) sees the first step's container
 * terminate and the second step's pod appear.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { V1Pod } from '@kubernetes/client-node';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalExecution, type ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { printedStatusReporter } from '../lib/emulators/lambda/printed-status.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { logger } from '../lib/workflow/lambda-task.js';
import type { PollState } from '../lib/workflow/state-data.js';
import { openWatch } from './fixtures/watch-events.js';

let cluster: EmbeddedCluster;
let root: string;
let watch: IncomingMessage;
/** When the test's watch first saw each thing happen, by pod name. */
const terminatedAt = new Map<string, number>();
const addedAt = new Map<string, number>();

beforeAll(async () => {
  logger.setLogLevel('SILENT');
  cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS });
  root = await mkdtemp(path.join(tmpdir(), 'step-end-'));
  await writeFile(path.join(root, 'kubeconfig'), cluster.kubeconfigYaml());
  watch = await openWatch<V1Pod>(`${cluster.url}/api/v1/namespaces/default/pods?watch=true`, ({ type, object: pod }) => {
    const name = pod.metadata!.name!;
    if (type === 'ADDED' && !addedAt.has(name)) addedAt.set(name, Date.now());
    const terminated = pod.status?.containerStatuses?.some((c) => c.state?.terminated);
    if (terminated && !terminatedAt.has(name)) terminatedAt.set(name, Date.now());
  });
});
afterAll(async () => {
  watch.destroy();
  await cluster.stop();
  await rm(root, { recursive: true, force: true });
});

describe('a step that ends while it runs', () => {
  it('is followed by the next step\'s pod as soon as its container exits, with no poll on the schedule', async () => {
    const events: ExecutionEvent[] = [];
    const summary = await startLocalExecution(
      {
        build: { id: 'step-end', trigger: 'test' },
        pipeline: { file: 'p.yml', text: 'version: 1\ncheckout: false\nsteps:\n  - name: five\n    image: alpine:3.20\n    commands: [sleep 5]\n  - name: next\n    image: alpine:3.20\n    commands: [echo next]\n' },
        withoutSource: 'the steps only sleep',
      },
      {
        runtime: localTaskRuntime({ kubeconfig: path.join(root, 'kubeconfig'), namespace: 'default', logsDir: path.join(root, 'logs') }),
        statuses: printedStatusReporter(() => {}),
        onEvent: (event) => events.push(event),
      },
    ).result;
    expect(summary.status).toBe('SUCCEEDED');

    const podOf = (index: number) => (events.find((e) => e.type === 'StateExited' && e.state?.name === 'LaunchStep' && e.index === index)?.state?.output as { poll: PollState }).poll.podName;
    const exited = terminatedAt.get(podOf(0))!;
    const next = addedAt.get(podOf(1))!;
    expect(exited).toBeDefined();
    expect(next).toBeGreaterThan(exited);

    // One poll held the watch through the whole run and the next saw the end: no poll was spent on
    // the schedule, and the only Wait was the one after the launch.
    const polls = events.filter((e) => e.type === 'StateExited' && e.state?.name === 'PollStep' && e.index === 0).map((e) => (e.state?.output as { poll: PollState }).poll);
    expect(polls.filter((p) => p.phase === 'running')).toHaveLength(1);
    expect(polls.at(-1)).toMatchObject({ phase: 'succeeded' });
    expect(events.filter((e) => e.type === 'StateEntered' && e.state?.name === 'WaitForStep' && e.index === 0)).toHaveLength(1);
  }, 30_000);
});
