/**
 * A step with a `matrix:` on the embedded cluster, through the real definition: its combinations
 * (exclude, then include, as GitHub Actions makes them) run side by side as steps of their own,
 * each seeing its values as environment variables; the step below waits for every one of them;
 * the first failing combination stops its siblings (fail fast, as `needs` does), unless
 * `fail-fast: false` lets them finish first.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import type { PreparedBuild, StepResult } from '../lib/workflow/state-data.js';
import { localBuildsForFile } from './fixtures/local-builds.js';

const builds = localBuildsForFile({ prefix: 'matrix-steps', settings: { imageCheck: false } });

const preparedOf = (events: ExecutionEvent[]) => events.find((e) => e.type === 'StateExited' && e.state?.name === 'PrepareBuild')!.state!.output as PreparedBuild;

/**
 * A folder the steps' processes share (the process runtime runs them on this machine): the
 * combinations meet there, so that "side by side" and "still running when a sibling failed" are
 * events the steps wait for, not a sleep that a busy machine outlasts.
 */
const meetingPlaces: string[] = [];
async function meetingPlace(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'matrix-meet-'));
  meetingPlaces.push(dir);
  return dir;
}
afterAll(() => Promise.all(meetingPlaces.map((dir) => rm(dir, { recursive: true, force: true }))));

/** When each step's pod was made and when its step ended, from the history. */
function spans(events: ExecutionEvent[]) {
  const prepared = preparedOf(events);
  const at = (index: number, states: string[]) => events.find((e) => e.index === index && e.type === 'TaskSucceeded' && states.includes(e.state?.name ?? ''))?.timestamp;
  return new Map(prepared.steps.map((step, index) => [step.name, { launched: at(index, ['LaunchStep']), finished: at(index, ['FinishStep', 'FinishFailedStep']) }]));
}

describe('a matrix', () => {
  it('runs its combinations side by side, each with its values, and the step below once all have succeeded', async () => {
    // Each combination waits until all six have started: they can only end if they run side by side.
    const meet = await meetingPlace();
    const pipeline = `version: 1
checkout: false
steps:
  - name: test
    image: \${{ matrix.base }}
    commands: ['echo "node=$node os=$os"', 'touch ${meet}/$node-$os', 'until [ "$(ls ${meet} | wc -l)" -ge 6 ]; do sleep 0.05; done']
    matrix:
      node: [18, 20, 22]
      os: [linux, mac]
      exclude:
        - { node: 18, os: mac }
      include:
        - { base: "alpine:3.20" }
        - { node: 16, os: linux, base: "busybox:1.37" }
  - name: report
    image: alpine:3.20
    commands: [echo all done]
`;
    const { summary, events } = await builds.build('matrix-runs', pipeline);
    expect(summary).toMatchObject({ status: 'SUCCEEDED' });
    const combinations = [
      ['test-node-18-os-linux-base-alpine-3-20', 'alpine:3.20', 'node=18 os=linux'],
      ['test-node-20-os-linux-base-alpine-3-20', 'alpine:3.20', 'node=20 os=linux'],
      ['test-node-20-os-mac-base-alpine-3-20', 'alpine:3.20', 'node=20 os=mac'],
      ['test-node-22-os-linux-base-alpine-3-20', 'alpine:3.20', 'node=22 os=linux'],
      ['test-node-22-os-mac-base-alpine-3-20', 'alpine:3.20', 'node=22 os=mac'],
      ['test-node-16-os-linux-base-busybox-1-37', 'busybox:1.37', 'node=16 os=linux'],
    ];
    // What run --json and the console list: each combination under its own name and image.
    expect(summary.steps.map((s) => [s.name, s.status, s.image])).toEqual([...combinations.map(([name, image]) => [name, 'succeeded', image]), ['report', 'succeeded', 'alpine:3.20']]);
    const logs = new Map(events.filter((e) => e.type === 'TaskSucceeded' && e.state?.name === 'FinishStep').map((e) => [(e.state!.output as StepResult).step, (e.state!.output as StepResult).logTail]));
    for (const [name, , line] of combinations) expect(logs.get(name!)).toContain(`\n${line}`);

    const times = spans(events);
    const test = combinations.map(([name]) => times.get(name!)!);
    // Side by side: every combination's pod was made before any of them ended.
    expect(Math.max(...test.map((s) => s.launched!))).toBeLessThan(Math.min(...test.map((s) => s.finished!)));
    // The step below waited for all six: its WaitForNeeds found each done before it launched.
    const reportIndex = preparedOf(events).steps.findIndex((s) => s.name === 'report');
    const met = events.find((e) => e.index === reportIndex && e.type === 'TaskSucceeded' && e.state?.name === 'WaitForNeeds' && (e.state.output as { met?: boolean }).met)!;
    expect([...(met.state!.output as { done: string[] }).done].sort()).toEqual(combinations.map(([name]) => name).sort());
    expect(times.get('report')!.launched!).toBeGreaterThanOrEqual(Math.max(...test.map((s) => s.finished!)));
  }, 60_000);

  it('stops the other combinations when one fails, and the step below never starts', async () => {
    const pipeline = `version: 1
checkout: false
steps:
  - name: test
    image: alpine:3.20
    commands: ['if [ "$v" = 2 ]; then echo "v=$v fails"; exit 3; fi; sleep 30']
    matrix: { v: [1, 2, 3] }
  - name: report
    image: alpine:3.20
    commands: [echo never]
`;
    const { summary, events } = await builds.build('matrix-fail-fast', pipeline);
    expect(summary).toMatchObject({ status: 'FAILED', error: 'StepFailed' });
    expect(summary.steps.map((s) => [s.name, s.status])).toEqual([
      ['test-v-1', 'aborted'],
      ['test-v-2', 'failed'],
      ['test-v-3', 'aborted'],
      ['report', 'not-run'],
    ]);
    // Not left to finish their 30 s: no poll saw a sibling end.
    const prepared = preparedOf(events);
    for (const sibling of ['test-v-1', 'test-v-3']) {
      const index = prepared.steps.findIndex((s) => s.name === sibling);
      const phases = events.filter((e) => e.type === 'TaskSucceeded' && e.state?.name === 'PollStep' && e.index === index).map((e) => (e.state?.output as { phase: string }).phase);
      expect(phases).not.toContain('succeeded');
    }
    expect(events.some((e) => e.state?.name === 'LaunchStep' && e.index === prepared.steps.findIndex((s) => s.name === 'report'))).toBe(false);
  }, 60_000);

  it('with fail-fast: false, lets the other combinations finish before the build fails with the first one\'s Error', async () => {
    // The siblings end only once the failing one has: they are running when it fails.
    const meet = await meetingPlace();
    // Three at a time: "report" and "deploy" start only once a combination has ended, the failed
    // one first, so they look for the first time after its failure (its pod, kept, tells them).
    const pipeline = `version: 1
checkout: false
max-parallel: 3
steps:
  - name: test
    image: alpine:3.20
    commands: ['if [ "$v" = 2 ]; then touch ${meet}/failed; exit 3; fi; until [ -f ${meet}/failed ]; do sleep 0.05; done; sleep 2; echo "v=$v done"']
    fail-fast: false
    matrix: { v: [1, 2, 3] }
  - name: report
    image: alpine:3.20
    commands: [echo never]
  - name: deploy
    image: alpine:3.20
    commands: [echo never]
`;
    const { summary, events } = await builds.build('matrix-keep-going', pipeline);
    expect(summary).toMatchObject({ status: 'FAILED', error: 'StepFailed' });
    expect(summary.steps.map((s) => [s.name, s.status, s.reason])).toEqual([
      ['test-v-1', 'succeeded', undefined],
      ['test-v-2', 'failed', undefined],
      ['test-v-3', 'succeeded', undefined],
      ['report', 'not-run', 'it needs "test-v-2", which failed'],
      ['deploy', 'not-run', 'it needs "report", which will not succeed: "test-v-2" failed'],
    ]);
    // Its failure ended its iteration without failing the Map (CombinationFailed): every
    // combination's iteration ended on its own, its result recorded, and only then did the build fail.
    const prepared = preparedOf(events);
    const times = spans(events);
    for (const name of ['test-v-1', 'test-v-2', 'test-v-3']) {
      const index = prepared.steps.findIndex((s) => s.name === name);
      expect({ name, ended: events.filter((e) => e.index === index && e.type.startsWith('MapIteration') && e.type !== 'MapIterationStarted').map((e) => e.type) }).toEqual({ name, ended: ['MapIterationSucceeded'] });
      expect({ name, finished: times.get(name)!.finished !== undefined }).toEqual({ name, finished: true });
    }
    const failedAt = events.find((e) => e.type === 'StateEntered' && e.state?.name === 'AnyCombinationFailed')!.timestamp;
    expect(failedAt).toBeGreaterThanOrEqual(Math.max(times.get('test-v-1')!.finished!, times.get('test-v-3')!.finished!));
    expect(times.get('test-v-2')!.finished!).toBeLessThan(times.get('test-v-1')!.finished!);
    expect(summary.cause).toContain('test-v-2');
  }, 60_000);
});
