/**
 * "Re-run failed steps" (Step Functions' Redrive), through the real definition on the embedded
 * cluster: a failed build keeps its workspace claim; redriven, it runs only the steps that did not
 * succeed, in that workspace, under new pod names, and ends as any build does.
 */
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { buildSelector } from '../lib/kube/index.js';
import { ConsoleOutput } from '../lib/local/console-output.js';
import type { ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { localBuildsForFile, type LocalBuild } from './fixtures/local-builds.js';

const builds = localBuildsForFile({ prefix: 'redrive' });

const launchedPods = (events: readonly { type: string; state?: { name: string; output?: unknown } }[]) =>
  events
    .filter((e) => e.type === 'StateExited' && e.state?.name === 'LaunchStep')
    .map((e) => (e.state?.output as { poll?: { podName?: string } }).poll?.podName ?? '');

/** The build's claims that are not going away. */
async function claimsOf(buildId: string) {
  const { items } = await builds.api.listNamespacedPersistentVolumeClaim({ namespace: 'default', labelSelector: buildSelector(buildId) });
  return items.filter((claim) => !claim.metadata?.deletionTimestamp);
}

// `flaky` fails until the test writes its fix (on this machine: the process runtime runs steps here);
// `made` is written once, by `prepare`, in the workspace.
const pipelineFixedBy = (fix: string) => `version: 1
checkout: false
steps:
  - name: prepare
    image: busybox:1.37
    commands: [echo made > made, echo prepared]
  - name: flaky
    image: busybox:1.37
    commands:
      - test -f made
      - test -f ${fix} || { echo "not fixed yet"; exit 3; }
  - name: after
    image: busybox:1.37
    commands: [cat made]
`;

describe("re-running a failed build's failed steps", () => {
  const fix = () => path.join(builds.root, 'fixed');
  const printed = (events: readonly ExecutionEvent[]) => {
    const output = new ConsoleOutput('redrive-1');
    return events.flatMap((event) => output.lines(event));
  };
  let first: LocalBuild | undefined;

  it('fails where a redrive goes on, keeping its workspace claim and which steps succeeded', async () => {
    first = await builds.build('redrive-1', pipelineFixedBy(fix()));
    expect({ status: first.summary.status, error: first.summary.error }).toEqual({ status: 'FAILED', error: 'StepFailed' });
    expect(first.summary.cause).toMatch(/not fixed yet/);
    expect(first.summary.steps.map((s) => [s.name, s.status])).toEqual([
      ['prepare', 'succeeded'],
      ['flaky', 'failed'],
      ['after', 'not-run'],
    ]);
    // The execution fails where a redrive goes on, in a Task a redrive schedules again, with the
    // build's Error and Cause (Lambda's error JSON, read back), and its claim is kept, saying which step succeeded.
    expect(first.events.slice(-2)).toMatchObject([
      { type: 'StateFailed', state: { name: 'AwaitRerun', type: 'Task' }, Error: 'StepFailed' },
      { type: 'ExecutionFailed', Error: 'StepFailed', Cause: expect.stringMatching(/^\{"errorType":"StepFailed","errorMessage":"Step \\"flaky\\"/) },
    ]);
    expect(first.summary.cause).toMatch(/^Step "flaky" \(image "busybox:1.37"\) failed with exit code 3/);
    expect(printed(first.events)).toContain('  ✓ CleanupBuild: deleted 0 pod(s); kept the workspace for a re-run of flaky, after ("Re-run failed steps")');
    expect(printed(first.events)).toEqual(
      expect.arrayContaining([
        '  ✗ AwaitRerun: StepFailed, the build\'s failure; "Re-run failed steps" goes on from here',
        '  Cause: Step "flaky" (image "busybox:1.37") failed with exit code 3 (Error).',
      ]),
    );
    const [claim] = await claimsOf('redrive-1');
    expect(claim?.metadata?.annotations).toMatchObject({ 'succeeded.step-runner.dev/prepare': expect.any(String) });
    expect(Number(claim?.metadata?.annotations?.['step-runner.dev/active-deadline-seconds'])).toBeGreaterThanOrEqual(86_400);
  });

  it('redriven, runs only the failed and not-run steps, in the kept workspace, and the build succeeds', async () => {
    if (!first) throw new Error('the first run failed: see the test before');
    // The flake is over; the claim still holds `made` from the first run, which `flaky` and `after` read.
    await writeFile(fix(), '');
    const second = await builds.build('redrive-1', pipelineFixedBy(fix()), { redrive: { events: first.events, count: 1 } });
    expect({ status: second.summary.status, error: second.summary.error }).toEqual({ status: 'SUCCEEDED', error: null });
    expect(second.events[0]?.type).toBe('ExecutionRedriven');
    expect(printed([...first.events, ...second.events])).toEqual(
      expect.arrayContaining(['Execution redrive-1 redriven: its steps that did not succeed run again, in its workspace', expect.stringMatching(/^Execution SUCCEEDED in /)]),
    );
    const rerun = launchedPods(second.events);
    expect(rerun.map((name) => name.replace(/-[0-9a-f]{8}$/, ''))).toEqual(['redrive-1-flaky-r1', 'redrive-1-after-r1']);
    expect(rerun.some((name) => launchedPods(first!.events).includes(name))).toBe(false);
    expect(second.summary.steps.map((s) => [s.name, s.status])).toEqual([
      ['prepare', 'succeeded'],
      ['flaky', 'succeeded'],
      ['after', 'succeeded'],
    ]);
    expect(await claimsOf('redrive-1')).toEqual([]);
  });
});
