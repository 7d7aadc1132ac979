import type { Step } from '../pipeline/types.js';
import type { PreparedBuild } from './state-data.js';
import { endedSteps, statusSteps } from './status-steps.js';
import type { StepRecord } from './step-log-store.js';
import { parseImageReference } from '../pipeline/index.js';

const step = (name: string, line?: number): Step => ({ name, image: 'alpine:3.20', imageRef: parseImageReference('alpine:3.20'), commands: ['true'], env: {}, secrets: [], pull: 'if-not-present', timeoutSeconds: 600, ...(line ? { line } : {}) }) as Step;
const prepared = (extra: Partial<PreparedBuild> = {}) =>
  ({ steps: [step('clone'), step('build', 4), step('test', 8)], settings: { checkoutStep: 'clone' }, ...extra }) as Pick<PreparedBuild, 'steps' | 'skipped' | 'settings' | 'afterFailure'>;
const record = (step: string, status: StepRecord['status'], seconds: number, error: string | null = null): StepRecord => ({
  step,
  status,
  exitCode: status === 'succeeded' ? 0 : 1,
  error,
  startedAt: '2026-12-02T06:00:00.000Z',
  endedAt: new Date(Date.parse('2026-12-02T06:00:00.000Z') + seconds * 1000).toISOString(),
});

describe('the steps a report lists', () => {
  it.each([
    {
      title: 'at the start: every step queued, with its line',
      records: [],
      ended: false,
      expected: [
        { name: 'clone', status: 'queued' },
        { name: 'build', status: 'queued', line: 4 },
        { name: 'test', status: 'queued', line: 8 },
      ],
    },
    {
      title: 'a step with an identity: its name beside it',
      records: [],
      ended: false,
      build: prepared({ steps: [step('clone'), { ...step('build', 4), identity: 'deploy' }, step('test', 8)] }),
      expected: [
        { name: 'clone', status: 'queued' },
        { name: 'build', status: 'queued', line: 4, identity: 'deploy' },
        { name: 'test', status: 'queued', line: 8 },
      ],
    },
    {
      title: "a build step that pushed: its digest and tags, as FinishStep recorded them",
      records: [record('clone', 'succeeded', 3), { ...record('build', 'succeeded', 40), pushed: { digest: 'sha256:4656465646564656465646564656465646564656465646564656465646564656', tags: ['ghcr.io/org/app:1'] } }],
      ended: false,
      expected: [
        { name: 'clone', status: 'succeeded', durationSeconds: 3 },
        { name: 'build', status: 'succeeded', durationSeconds: 40, line: 4, pushed: { digest: 'sha256:4656465646564656465646564656465646564656465646564656465646564656', tags: ['ghcr.io/org/app:1'] } },
        { name: 'test', status: 'queued', line: 8 },
      ],
    },
    {
      title: 'at a failure: how each ended, its time and Error; the rest did not run',
      records: [record('clone', 'succeeded', 3), record('build', 'failed', 65, 'StepFailed')],
      ended: true,
      expected: [
        { name: 'clone', status: 'succeeded', durationSeconds: 3 },
        { name: 'build', status: 'failed', durationSeconds: 65, error: 'StepFailed', line: 4 },
        { name: 'test', status: 'not-run', line: 8 },
      ],
    },
  ])('$title', ({ records, ended, expected, ...given }) => {
    expect(statusSteps(('build' in given ? given.build : undefined) ?? prepared(), records, ended)).toEqual(expected);
  });

  it('puts a skipped step in its place with its reason, and steps after a failure last', () => {
    const steps = statusSteps(
      prepared({ skipped: [{ name: 'deploy', index: 1, reason: 'branch feature/x is not main' }], afterFailure: [step('notify', 20)] }),
      [record('notify', 'succeeded', 1)],
      true,
    );
    expect(steps.map((s) => [s.name, s.status])).toEqual([
      ['clone', 'not-run'],
      ['build', 'not-run'],
      ['deploy', 'skipped'],
      ['test', 'not-run'],
      ['notify', 'succeeded'],
    ]);
    expect(steps[2]).toMatchObject({ reason: 'branch feature/x is not main' });
  });
});

describe('the steps a step\'s end reports', () => {
  it('are those that have ended, in the order they started', () => {
    const late = { ...record('test', 'failed', 5, 'StepFailed'), startedAt: '2026-12-02T06:05:00.000Z', endedAt: '2026-12-02T06:05:05.000Z' };
    expect(endedSteps([late, record('clone', 'succeeded', 2)])).toEqual([
      { name: 'clone', status: 'succeeded', durationSeconds: 2 },
      { name: 'test', status: 'failed', durationSeconds: 5, error: 'StepFailed' },
    ]);
  });
});
