/**
 * Steps with `when: {status: [failure]}` on the embedded cluster, through the real definition:
 * they run once the build has failed, one at a time, with the failure's Error and Cause in their
 * environment, after the steps still running were stopped; whatever they do, the build ends FAILED
 * with the first failure. In a build that succeeds they are skipped.
 */
import { readFile } from 'node:fs/promises';
import { finishedStep, NOT_AFTER_A_FAILURE } from '../lib/emulators/stepfunctions/executor.js';
import { Labels } from '../lib/kube/types.js';
import { localBuildsForFile } from './fixtures/local-builds.js';
import { loadDefinition } from '../lib/workflow/definition.js';
import { stateGraph } from '../lib/console/asl-graph.js';
import { executionModel } from '../lib/console/execution-model.js';
import { executionPage } from '../lib/console/execution-page.js';
import { layoutGraph } from '../lib/console/graph-layout.js';
import type { ListedExecution } from '../lib/console/execution-view.js';

const builds = localBuildsForFile({ prefix: 'after-failure', repository: true, settings: { imageCheck: false } });
const build = builds.build;
const api = () => builds.api;

const step = (name: string, commands: string[], extra = '') =>
  `  - name: ${name}\n    image: alpine:3.20\n    commands:\n${commands.map((c) => `      - ${JSON.stringify(c)}\n`).join('')}${extra}`;
const onFailure = '    when: {status: [failure]}\n';

describe('steps that run after a failure', () => {
  it('run once a step has failed, with its Error and Cause, and leave the outcome as it was', async () => {
    const pipeline =
      'version: 1\nsteps:\n' +
      step('test', ['echo testing > result.txt', 'exit 3']) +
      step('report', ['cat result.txt', 'echo "status=$CI_BUILD_STATUS error=$CI_FAILURE_ERROR"', 'echo "cause=$CI_FAILURE_CAUSE"'], onFailure) +
      step('deploy', ['echo never']) +
      step('notify', ['echo "notifying"', 'exit 1'], onFailure) +
      step('cleanup', ['echo "still runs"'], onFailure);
    const { summary, events } = await build('after-fail', pipeline);
    expect(summary).toMatchObject({ status: 'FAILED', error: 'StepFailed' });
    expect(summary.cause).toContain('exit code 3');
    const outcomes = [
      ['clone', 'succeeded'],
      ['test', 'failed'],
      ['deploy', 'not-run'],
      ['report', 'succeeded'],
      ['notify', 'failed'],
      ['cleanup', 'succeeded'],
    ];
    expect(summary.steps.map((s) => [s.name, s.status])).toEqual(outcomes);
    // The report read the workspace the failed step wrote, and the failure it followed.
    const report = finishedStep(events, 3)!;
    const log = await readFile(report.log!, 'utf8');
    expect(log).toContain('testing');
    expect(log).toContain('status=failure error=StepFailed');
    expect(log).toContain(`cause=${summary.cause}`);
    // The console page lists them after the others, and shows the one asked for with its log.
    const execution: ListedExecution = {
      ...summary,
      name: 'after-fail',
      executionArn: 'arn:aws:states:local:000000000000:execution:step-runner-local:after-fail',
      startedAt: new Date(events[0]!.timestamp).toISOString(),
      stoppedAt: new Date(events.at(-1)!.timestamp).toISOString(),
      buildId: 'after-fail',
      trigger: 'test',
      repository: null,
      commit: null,
      ref: null,
      rerunOf: null,
      reruns: [],
      redriveCount: 0,
      redrivable: false,
    };
    const model = executionModel({ execution, history: events, pods: new Map() });
    expect(model.steps.map((s) => [s.name, s.outcome])).toEqual(outcomes);
    const page = executionPage(model, layoutGraph(stateGraph(loadDefinition())), 3, new Date()).text;
    expect(page).toContain('status=failure error=StepFailed');
    // No pod is left once the build has ended; its claim is kept for a re-run of its failed steps,
    // remembering the ones that succeeded (the steps after the failure among them, which a re-run does not take).
    expect((await api().listNamespacedPod({ namespace: 'default', labelSelector: `${Labels.build}=after-fail` })).items).toEqual([]);
    const claims = (await api().listNamespacedPersistentVolumeClaim({ namespace: 'default', labelSelector: `${Labels.build}=after-fail` })).items;
    expect(claims.map((c) => Object.keys(c.metadata?.annotations ?? {}).filter((key) => key.startsWith('succeeded.')).sort())).toEqual([
      ['succeeded.step-runner.dev/cleanup', 'succeeded.step-runner.dev/clone', 'succeeded.step-runner.dev/report'],
    ]);
  }, 60_000);

  it('start only once the steps still running beside the failed one are stopped', async () => {
    const pipeline =
      'version: 1\nsteps:\n' +
      step('slow', ['sleep 30'], '    needs: []\n') +
      step('broken', ['exit 2'], '    needs: []\n') +
      step('report', ['echo report'], onFailure);
    const { summary, events } = await build('after-fail-par', pipeline);
    expect(summary).toMatchObject({ status: 'FAILED', error: 'StepFailed' });
    expect(summary.steps.map((s) => [s.name, s.status])).toEqual([
      ['clone', 'succeeded'],
      ['slow', 'aborted'],
      ['broken', 'failed'],
      ['report', 'succeeded'],
    ]);
    const stopped = events.find((e) => e.type === 'StateExited' && e.state?.name === 'StopSteps')!;
    const launched = events.find((e) => e.type === 'StateExited' && e.state?.name === 'LaunchAfterFailure')!;
    expect((stopped.state!.output as { stopped: { deletedPods: number } }).stopped.deletedPods).toBeGreaterThanOrEqual(1);
    expect(launched.timestamp).toBeGreaterThanOrEqual(stopped.timestamp);
  }, 60_000);

  it('are skipped in a build that succeeds', async () => {
    const { summary } = await build('after-ok', 'version: 1\nsteps:\n' + step('test', ['echo ok']) + step('report', ['echo report'], onFailure));
    expect(summary).toMatchObject({ status: 'SUCCEEDED' });
    expect(summary.steps.map((s) => [s.name, s.status, s.reason])).toEqual([
      ['clone', 'succeeded', undefined],
      ['test', 'succeeded', undefined],
      ['report', 'skipped', NOT_AFTER_A_FAILURE],
    ]);
  }, 60_000);
});
