/**
 * Builds of a committed repository through the real definition on one embedded cluster (process
 * runtime, no image check), as two files had them with the same fixture each: steps side by side,
 * and steps that run after a failure. Each build has an id of its own and each test looks only at
 * its own build's pods, so neither needs a cluster fresh.
 */
import { type ExecutionEvent, finishedStep, NOT_AFTER_A_FAILURE } from '../lib/emulators/stepfunctions/executor.js';
import type { PreparedBuild } from '../lib/workflow/state-data.js';
import { Labels } from '../lib/kube/types.js';
import { localBuildsForFile } from './fixtures/local-builds.js';
import { readFile } from 'node:fs/promises';
import { loadDefinition } from '../lib/workflow/definition.js';
import { stateGraph } from '../lib/console/asl-graph.js';
import { executionModel } from '../lib/console/execution-model.js';
import { executionPage } from '../lib/console/execution-page.js';
import { layoutGraph } from '../lib/console/graph-layout.js';
import type { ListedExecution } from '../lib/console/execution-view.js';

const shared = localBuildsForFile({ prefix: 'step-order', repository: true, settings: { imageCheck: false } });

/**
 * Steps that run side by side (`needs`) on the embedded cluster, through the real definition: the
 * steps that need the same step run at the same time and share the build's workspace, a step
 * waits for every step it needs, and the first failure stops the build at once: the pods of steps
 * still running are deleted, no later step is launched, and each step says what became of it.
 */
describe('parallel steps', () => {
  const builds = shared;
  const build = builds.build;

  const step = (name: string, commands: string[], extra = '') =>
    `  - name: ${name}\n    image: alpine:3.20\n    commands:\n${commands.map((c) => `      - ${JSON.stringify(c)}\n`).join('')}${extra}`;

  /** The times a step's pod was created, its step finished and its WaitForNeeds found its needs met, from the history. */
  function span(events: ExecutionEvent[], prepared: PreparedBuild, name: string) {
    const index = prepared.steps.findIndex((s) => s.name === name);
    const at = (state: string, where: (e: ExecutionEvent) => boolean = () => true) =>
      events.find((e) => e.index === index && e.type === 'TaskSucceeded' && e.state?.name === state && where(e))?.timestamp;
    const met = (e: ExecutionEvent) => (e.state?.output as { met?: boolean } | undefined)?.met === true;
    const verdict = events.find((e) => e.index === index && e.type === 'TaskSucceeded' && e.state?.name === 'WaitForNeeds' && met(e))?.state?.output as { done: string[] } | undefined;
    return { name, launched: at('LaunchStep'), finished: at('FinishStep') ?? at('FinishFailedStep'), needsMet: at('WaitForNeeds', met), done: verdict?.done ?? [] };
  }

  const preparedOf = (events: ExecutionEvent[]) =>
    events.find((e) => e.type === 'StateExited' && e.state?.name === 'PrepareBuild')!.state!.output as PreparedBuild;

  const buildPods = async (id: string) =>
    (await builds.api.listNamespacedPod({ namespace: 'default', labelSelector: `${Labels.build}=${id}` })).items.filter((pod) => !pod.metadata?.deletionTimestamp);

  describe('steps side by side', () => {
    it('runs the steps that need the same step at the same time, in one workspace, and the next once both are done', async () => {
      const pipeline =
        'version: 1\nsteps:\n' +
        step('deps', ['echo deps > deps.txt']) +
        step('unit', ['cat deps.txt', 'sleep 2', 'echo unit > unit.txt'], '    needs: [deps]\n') +
        step('lint', ['cat deps.txt', 'sleep 2', 'echo lint > lint.txt'], '    needs: [deps]\n') +
        step('e2e', ['cat README unit.txt lint.txt'], '    needs: [unit, lint]\n');
      const { summary, events } = await build('par-diamond', pipeline);
      expect(summary).toMatchObject({ status: 'SUCCEEDED' });
      expect(summary.steps.map((s) => [s.name, s.status])).toEqual([
        ['clone', 'succeeded'],
        ['deps', 'succeeded'],
        ['unit', 'succeeded'],
        ['lint', 'succeeded'],
        ['e2e', 'succeeded'],
      ]);
      const prepared = preparedOf(events);
      expect(prepared.maxParallel).toBe(10);
      const unit = span(events, prepared, 'unit');
      const lint = span(events, prepared, 'lint');
      const deps = span(events, prepared, 'deps');
      const e2e = span(events, prepared, 'e2e');
      // Both launched before either finished: their pods overlapped.
      expect(unit.launched! < lint.finished! && lint.launched! < unit.finished!).toBe(true);
      // Each launched only once what it needs had succeeded: its WaitForNeeds said so first. (That
      // their commands found deps.txt, unit.txt and lint.txt shows the same from inside the pods.)
      for (const [waiter, needed] of [[unit, deps], [lint, deps], [e2e, unit], [e2e, lint]] as const) {
        expect(waiter.done).toContain(needed.name);
        expect(needed.launched!).toBeLessThan(waiter.needsMet!);
        expect(waiter.needsMet!).toBeLessThanOrEqual(waiter.launched!);
      }
      // Nothing is left once the build has ended, the pods kept for the steps that needed them included.
      expect(await buildPods('par-diamond')).toEqual([]);
    }, 60_000);

    it('stops at the first failure: the step running beside it is deleted at once and no later step is launched', async () => {
      const pipeline =
        'version: 1\nsteps:\n' +
        step('deps', ['echo ok']) +
        step('slow', ['sleep 30'], '    needs: [deps]\n') +
        '  - name: broken\n    image: alpine:3.99-nope\n    commands: [echo never]\n    needs: [deps]\n' +
        step('after', ['echo never'], '    needs: [slow, broken]\n');
      const { summary, events } = await build('par-fail-fast', pipeline);
      expect(summary).toMatchObject({ status: 'FAILED', error: 'ImagePullFailed' });
      expect(summary.steps.map((s) => [s.name, s.status])).toEqual([
        ['clone', 'succeeded'],
        ['deps', 'succeeded'],
        ['slow', 'aborted'],
        ['broken', 'failed'],
        ['after', 'not-run'],
      ]);
      // Not left to finish its 30 s: no poll ever saw it end, and CleanupBuild, right after the
      // failure, deleted its pod.
      const slowIndex = preparedOf(events).steps.findIndex((s) => s.name === 'slow');
      const slowPhases = events.filter((e) => e.type === 'TaskSucceeded' && e.state?.name === 'PollStep' && e.index === slowIndex).map((e) => (e.state?.output as { phase: string }).phase);
      expect(slowPhases).not.toContain('succeeded');
      const failedAt = span(events, preparedOf(events), 'broken').finished!;
      const cleanedAt = events.find((e) => e.type === 'TaskSucceeded' && e.state?.name === 'CleanupBuild')!.timestamp;
      expect(cleanedAt).toBeGreaterThanOrEqual(failedAt);
      expect((events.find((e) => e.type === 'TaskSucceeded' && e.state?.name === 'CleanupBuild')!.state!.output as { deletedPods: number }).deletedPods).toBeGreaterThanOrEqual(1);
      expect(events.some((e) => e.state?.name === 'LaunchStep' && e.index === preparedOf(events).steps.findIndex((s) => s.name === 'after'))).toBe(false);
      expect(await buildPods('par-fail-fast')).toEqual([]);
    }, 60_000);

    it('starts the steps that need nothing at once when there is no checkout to wait for', async () => {
      const pipeline = 'version: 1\ncheckout: false\nsteps:\n' + step('a', ['sleep 1'], '    needs: []\n') + step('b', ['sleep 1'], '    needs: []\n');
      const { summary, events } = await build('par-no-checkout', pipeline);
      expect(summary).toMatchObject({ status: 'SUCCEEDED' });
      const prepared = preparedOf(events);
      expect(prepared.steps.map((s) => [s.name, s.needs])).toEqual([['a', []], ['b', []]]);
      const a = span(events, prepared, 'a');
      const b = span(events, prepared, 'b');
      expect(a.launched! < b.finished! && b.launched! < a.finished!).toBe(true);
      expect(events.some((e) => e.state?.name === 'WaitForNeeds')).toBe(false);
    }, 60_000);

    it('skips a step that needs a skipped one, and runs a step that only followed it', async () => {
      const pipeline =
        'version: 1\nsteps:\n' +
        step('build', ['echo build']) +
        step('deploy', ['echo deploy'], '    when: {branch: production}\n    needs: [build]\n') +
        step('announce', ['echo announce'], '    needs: [deploy]\n') +
        step('report', ['echo report']);
      const { summary } = await build('par-skip', pipeline);
      expect(summary).toMatchObject({ status: 'SUCCEEDED' });
      expect(summary.steps.map((s) => [s.name, s.status, s.reason])).toEqual([
        ['clone', 'succeeded', undefined],
        ['build', 'succeeded', undefined],
        ['deploy', 'skipped', 'branch main is not production'],
        ['announce', 'skipped', 'it needs "deploy", which is skipped'],
        ['report', 'succeeded', undefined],
      ]);
    }, 60_000);
  });
});

/**
 * Steps with `when: {status: [failure]}` on the embedded cluster, through the real definition:
 * they run once the build has failed, one at a time, with the failure's Error and Cause in their
 * environment, after the steps still running were stopped; whatever they do, the build ends FAILED
 * with the first failure. In a build that succeeds they are skipped.
 */
describe('steps after failure', () => {
  const builds = shared;
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
});
