/**
 * Builds on a cluster whose node an autoscaler adds (the embedded cluster's `autoscaler` option),
 * through the real definition: a step whose pod has no node yet waits for the one coming, and the
 * run's output and the console page say so in cluster-autoscaler's words; a step no node the
 * autoscaler adds would take fails at once as `Unschedulable`, not after the unschedulable grace.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { NODE_NAME } from '../lib/emulators/kubernetes/index.js';
import { stateGraph } from '../lib/console/asl-graph.js';
import { executionModel } from '../lib/console/execution-model.js';
import { executionPage } from '../lib/console/execution-page.js';
import { layoutGraph } from '../lib/console/graph-layout.js';
import { ConsoleOutput } from '../lib/local/console-output.js';
import { summarize, type ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { loadDefinition } from '../lib/workflow/definition.js';
import type { PollState } from '../lib/workflow/state-data.js';
import { localBuildsForFile } from './fixtures/local-builds.js';

/** Far longer than any test here may take: a step that fails did not wait for it. */
const LONG_GRACE_SECONDS = 600;

const pipeline = (step: string) => `version: 1\nsteps:\n  - name: build\n    image: alpine:3.20\n    commands: [echo built]\n${step}`;

function polls(events: ExecutionEvent[]): PollState[] {
  return events.filter((e) => e.type === 'StateExited' && e.state?.name === 'PollStep').map((e) => (e.state?.output as { poll: PollState }).poll);
}

/** The console page as it stood while the build ran, up to and including `last`. */
function pageUpTo(events: ExecutionEvent[], last: number): string {
  const history = events.slice(0, last + 1);
  const summary = summarize(history, false, { running: true });
  const execution = {
    ...summary,
    status: 'RUNNING' as const,
    name: 'autoscaler',
    executionArn: 'arn:autoscaler',
    startedAt: new Date(history[0]!.timestamp).toISOString(),
    stoppedAt: null,
    buildId: 'autoscaler',
    trigger: 'test',
    repository: null,
    commit: null,
    ref: null,
    rerunOf: null,
    reruns: [],
    redriveCount: 0,
    redrivable: false,
  };
  return executionPage(executionModel({ execution, history, pods: new Map() }), layoutGraph(stateGraph(loadDefinition())), 0, new Date()).text;
}

function printed(events: ExecutionEvent[]): string[] {
  const output = new ConsoleOutput('autoscaler build');
  return events.flatMap((e) => output.lines(e));
}

describe('a node the autoscaler adds', () => {
  const builds = localBuildsForFile({
    prefix: 'autoscaler-coming',
    autoscaler: { scaleUpDelayMs: 1_500 },
    settings: { unschedulableGraceSeconds: LONG_GRACE_SECONDS },
  });

  it('the cluster starts with no node (scale from zero)', async () => {
    expect((await builds.api.listNode()).items).toEqual([]);
  });

  it('a step waits for the node, saying so in the autoscaler\'s words, and succeeds on it', async () => {
    const { summary, events } = await builds.build(`autoscaler-up-${Date.now().toString(36)}`, pipeline(''));
    expect(summary).toMatchObject({ status: 'SUCCEEDED', steps: [{ name: 'build', status: 'succeeded' }] });
    expect(polls(events)).toContainEqual(
      expect.objectContaining({ phase: 'pending', reason: 'WaitingForNode', message: 'pod triggered scale-up: [{eks-embedded-nodes 0->1 (max: 1)}]' }),
    );
    expect(printed(events)).toContainEqual(expect.stringMatching(/· PollStep #\d+: waiting for a node: pod triggered scale-up: \[\{eks-embedded-nodes 0->1 \(max: 1\)\}\]$/));
    const waiting = events.findIndex((e) => e.type === 'StateExited' && e.state?.name === 'PollStep' && (e.state.output as { poll: PollState }).poll.reason === 'WaitingForNode');
    const page = pageUpTo(events, waiting);
    expect(page).toContain('Step <strong>build</strong> (1 of 1): waiting for a node (pod triggered scale-up: [{eks-embedded-nodes 0-&gt;1 (max: 1)}])');
    expect(page).toMatch(/#\d+: <strong>waiting for a node<\/strong> — <span class="message">pod triggered scale-up: /);
    expect((await builds.api.readNode({ name: NODE_NAME })).metadata?.name).toBe(NODE_NAME);
  }, 60_000);

  it('a deleted node comes back for the next step that needs it', async () => {
    await builds.api.deleteNode({ name: NODE_NAME });
    const { summary, events } = await builds.build(`autoscaler-again-${Date.now().toString(36)}`, pipeline(''));
    expect(summary.status).toBe('SUCCEEDED');
    expect(polls(events).map((p) => p.reason)).toContain('WaitingForNode');
    expect((await builds.api.readNode({ name: NODE_NAME })).metadata?.name).toBe(NODE_NAME);
  }, 60_000);
});

describe('no node the autoscaler adds would take the pod', () => {
  const builds = localBuildsForFile({
    prefix: 'autoscaler-none',
    autoscaler: { scaleUpDelayMs: 1_500 },
    settings: { unschedulableGraceSeconds: LONG_GRACE_SECONDS },
  });

  // The jest timeout is a tenth of the grace: a step that waited for it could not pass.
  it.each([
    ['requests more cpu than the node group\'s nodes have', '    resources: { cpu: "8" }\n', '1 Insufficient cpu'],
    ['selects labels the node group\'s nodes do not carry', '    node-selector: { pool: gpu }\n', "1 node(s) didn't match Pod's node affinity/selector"],
  ])('a step that %s fails at once as Unschedulable, with the autoscaler\'s words', async (_title, step, reasons) => {
    const { summary } = await builds.build(`autoscaler-none-${Date.now().toString(36)}`, pipeline(step));
    expect(summary).toMatchObject({ status: 'FAILED', error: 'Unschedulable', steps: [{ name: 'build', status: 'failed', error: 'Unschedulable' }] });
    expect(summary.cause).toContain('cluster-autoscaler will not add one it fits (Unschedulable), so it fails without waiting');
    expect(summary.cause).toContain(`cluster-autoscaler said: pod didn't trigger scale-up: ${reasons}`);
    const events: CoreV1Event[] = (await builds.api.listNamespacedEvent({ namespace: 'default' })).items;
    expect(events.filter((e) => e.reason === 'NotTriggerScaleUp').map((e) => e.source?.component)).toContain('cluster-autoscaler');
    // It never scaled up for a pod it would not fit.
    expect((await builds.api.listNode()).items).toEqual([]);
  }, LONG_GRACE_SECONDS * 100);
});
