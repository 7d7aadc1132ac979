import { describe, expect, it } from '@jest/globals';
import {
  ATTR_CICD_PIPELINE_NAME,
  ATTR_CICD_PIPELINE_RESULT,
  ATTR_CICD_PIPELINE_RUN_ID,
  ATTR_CICD_PIPELINE_TASK_NAME,
  ATTR_CICD_PIPELINE_TASK_RUN_RESULT,
  ATTR_CICD_PIPELINE_TASK_RUN_URL_FULL,
  ATTR_ERROR_TYPE,
  ATTR_VCS_CHANGE_ID,
  ATTR_VCS_REF_HEAD_NAME,
  ATTR_VCS_REF_HEAD_REVISION,
  ATTR_VCS_REF_HEAD_TYPE,
  ATTR_VCS_REPOSITORY_NAME,
} from '@opentelemetry/semantic-conventions/incubating';
import { buildTrace, failedResult, STILL_RUNNING, type EndedBuild, type TraceSpan } from './build-trace.js';
import type { StepRecord } from './step-log-store.js';

const T0 = Date.parse('2026-03-14T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const ms = (seconds: number) => T0 + seconds * 1000;

const clone: StepRecord = {
  step: 'clone',
  status: 'succeeded',
  exitCode: 0,
  error: null,
  startedAt: at(2),
  endedAt: at(6.5),
  // The image was on the node: no pull.
  timings: { scheduled: at(2), started: at(3), finished: at(6) },
};
const test: StepRecord = {
  step: 'test',
  status: 'failed',
  exitCode: 1,
  error: 'StepFailed',
  startedAt: at(7),
  endedAt: at(40.2),
  timings: { scheduled: at(7), pulling: at(8), pulled: at(15), started: at(16), finished: at(40) },
};
const ended: EndedBuild = {
  build: { id: 'b-42', repository: 'octo/app', ref: 'refs/heads/main', commit: 'a'.repeat(40), pullRequest: { number: 7, fork: false } },
  outcome: 'failed',
  failure: { Error: 'StepFailed', Cause: 'step "test" exited with 1' },
  startedAt: at(0),
  endedAt: at(45),
  steps: [test, clone],
};

/** name, kind, times in seconds from T0, error: the tree as a person reads it in a trace view. */
const shape = (span: TraceSpan): unknown => ({
  name: span.name,
  kind: span.kind,
  at: [(span.start - T0) / 1000, (span.end - T0) / 1000],
  ...(span.error ? { error: span.error } : {}),
  ...(span.children.length > 0 ? { children: span.children.map(shape) } : {}),
});

describe('buildTrace', () => {
  it('makes the pipeline run the root, each step a child in the order they started, and pending, pulling and running under each', () => {
    expect(shape(buildTrace(ended))).toEqual({
      name: 'RUN octo/app',
      kind: 'server',
      at: [0, 45],
      error: 'StepFailed',
      children: [
        { name: 'clone', kind: 'internal', at: [2, 6.5], children: [
          { name: 'pending', kind: 'internal', at: [2, 3] },
          { name: 'running', kind: 'internal', at: [3, 6] },
        ] },
        { name: 'test', kind: 'internal', at: [7, 40.2], error: 'StepFailed', children: [
          { name: 'pending', kind: 'internal', at: [7, 8] },
          { name: 'pulling', kind: 'internal', at: [8, 15] },
          { name: 'running', kind: 'internal', at: [16, 40], error: 'StepFailed' },
        ] },
      ],
    });
  });

  it("names the run, the steps and the commit with the CI/CD and VCS conventions' attributes", () => {
    const root = buildTrace(ended);
    expect(root.attributes).toEqual({
      [ATTR_CICD_PIPELINE_NAME]: 'octo/app',
      [ATTR_CICD_PIPELINE_RUN_ID]: 'b-42',
      'cicd.pipeline.action.name': 'RUN',
      [ATTR_CICD_PIPELINE_RESULT]: 'failure',
      [ATTR_ERROR_TYPE]: 'StepFailed',
      [ATTR_VCS_REPOSITORY_NAME]: 'app',
      [ATTR_VCS_REF_HEAD_NAME]: 'main',
      [ATTR_VCS_REF_HEAD_TYPE]: 'branch',
      [ATTR_VCS_REF_HEAD_REVISION]: 'a'.repeat(40),
      [ATTR_VCS_CHANGE_ID]: '7',
    });
    expect(root.children.map((step) => step.attributes)).toEqual([
      { [ATTR_CICD_PIPELINE_TASK_NAME]: 'clone', 'cicd.pipeline.task.run.id': 'b-42/clone', [ATTR_CICD_PIPELINE_TASK_RUN_RESULT]: 'success', 'process.exit.code': 0 },
      { [ATTR_CICD_PIPELINE_TASK_NAME]: 'test', 'cicd.pipeline.task.run.id': 'b-42/test', [ATTR_CICD_PIPELINE_TASK_RUN_RESULT]: 'failure', [ATTR_ERROR_TYPE]: 'StepFailed', 'process.exit.code': 1 },
    ]);
  });

  /** Steps as FinishStep records them, and the phases they show. */
  const phases: [string, Partial<StepRecord>, string[]][] = [
    ['an image that never pulled ends the step in pulling', { status: 'failed', error: 'ImagePullFailed', exitCode: null, timings: { scheduled: at(7), pulling: at(8) } }, ['pending', 'pulling!ImagePullFailed']],
    ['a pod never scheduled is pending throughout', { status: 'failed', error: 'Unschedulable', exitCode: null, timings: {} }, ['pending!Unschedulable']],
    ['a record without timings (its pod was never seen): pending only', { timings: undefined }, ['pending!StepFailed']],
  ];
  it.each(phases)('%s', (_name, record, expected) => {
    const step = buildTrace({ ...ended, steps: [{ ...test, ...record }] }).children[0]!;
    expect(step.children.map((span) => (span.error ? `${span.name}!${span.error}` : span.name))).toEqual(expected);
    // Each inside its step, each after the one before.
    for (const [i, span] of step.children.entries()) {
      expect(span.start).toBeGreaterThanOrEqual(i === 0 ? step.start : step.children[i - 1]!.end);
      expect(span.end).toBeLessThanOrEqual(step.end);
    }
  });

  it('starts running no earlier than the pull ended, when the container\'s start was stamped in that second', () => {
    const step = buildTrace({ ...ended, steps: [{ ...test, timings: { pulling: at(8), pulled: at(9.4), started: at(9), finished: at(30) } }] }).children[0]!;
    expect(step.children.map((span) => [span.name, (span.start - T0) / 1000, (span.end - T0) / 1000])).toEqual([
      ['pending', 7, 8],
      ['pulling', 8, 9.4],
      ['running', 9.4, 30],
    ]);
  });

  it('keeps a phase inside its step when the API server rounded its times (to the second) past it', () => {
    const step = buildTrace({ ...ended, steps: [{ ...clone, endedAt: at(5.5), timings: { started: at(3), finished: at(6) } }] }).children[0]!;
    expect(step.children.map((span) => [span.start, span.end])).toEqual([[ms(2), ms(3)], [ms(3), ms(5.5)]]);
  });

  it('starts the run at its first step without the execution\'s start, and makes a build in which no step ran a skip', () => {
    const root = buildTrace({ build: { id: 'b-1' }, outcome: 'succeeded', skipped: 'no step matches', endedAt: at(3), pipelineFile: '.step-runner.yml', steps: [] });
    expect(shape(root)).toEqual({ name: 'RUN .step-runner.yml', kind: 'server', at: [3, 3] });
    expect(root.attributes[ATTR_CICD_PIPELINE_RESULT]).toBe('skip');
    const { startedAt: _startedAt, ...unstarted } = ended;
    expect(buildTrace(unstarted).start).toBe(ms(2));
  });

  it('gives each step the page a person sees it on, when it has one', () => {
    const page = 'https://us-east-1.console.aws.amazon.com/states/home?region=us-east-1#/v2/executions/details/arn';
    const steps = buildTrace({ ...ended, stepUrls: { test: `${page}?step=1` } }).children;
    expect(steps.map((step) => step.attributes[ATTR_CICD_PIPELINE_TASK_RUN_URL_FULL])).toEqual([undefined, `${page}?step=1`]);
  });

  describe('of a build stopped outside the definition', () => {
    // The ended-execution cleanup's view: the clone recorded, the test's pod still running when StopExecution came.
    const stopped: EndedBuild = {
      ...ended,
      failure: { Error: 'ExecutionAborted', Cause: 'The execution was stopped before the build ended; its pods were deleted' },
      endedAt: at(30),
      steps: [clone],
      running: [{ step: 'test', startedAt: at(7), timings: { created: at(7), scheduled: at(7), pulling: at(8), pulled: at(15), started: at(16) } }],
    };

    it('ends the running step, and the phase it was in, with the build, failed as the build was and saying it was still running', () => {
      const root = buildTrace(stopped);
      expect(shape(root)).toEqual({
        name: 'RUN octo/app',
        kind: 'server',
        at: [0, 30],
        error: 'ExecutionAborted',
        children: [
          { name: 'clone', kind: 'internal', at: [2, 6.5], children: [
            { name: 'pending', kind: 'internal', at: [2, 3] },
            { name: 'running', kind: 'internal', at: [3, 6] },
          ] },
          { name: 'test', kind: 'internal', at: [7, 30], error: 'ExecutionAborted', children: [
            { name: 'pending', kind: 'internal', at: [7, 8] },
            { name: 'pulling', kind: 'internal', at: [8, 15] },
            { name: 'running', kind: 'internal', at: [16, 30], error: 'ExecutionAborted' },
          ] },
        ],
      });
      const test = root.children[1]!;
      expect(test.message).toBe(`ExecutionAborted: ${STILL_RUNNING}`);
      expect(test.children.at(-1)!.message).toBe(`ExecutionAborted: ${STILL_RUNNING}`);
      expect(root.attributes[ATTR_CICD_PIPELINE_RESULT]).toBe('cancellation');
      expect(test.attributes).toEqual({
        [ATTR_CICD_PIPELINE_TASK_NAME]: 'test',
        'cicd.pipeline.task.run.id': 'b-42/test',
        [ATTR_CICD_PIPELINE_TASK_RUN_RESULT]: 'cancellation',
        [ATTR_ERROR_TYPE]: 'ExecutionAborted',
      });
    });

    it('makes a step of a timed out execution a timeout, pending throughout when its pod never started', () => {
      const root = buildTrace({ ...stopped, failure: { Error: 'ExecutionTimedOut' }, running: [{ step: 'test', startedAt: at(7), timings: { created: at(7) } }] });
      const test = root.children[1]!;
      expect(test.children.map((span) => [span.name, span.error])).toEqual([['pending', 'ExecutionTimedOut']]);
      expect([root.attributes[ATTR_CICD_PIPELINE_RESULT], test.attributes[ATTR_CICD_PIPELINE_TASK_RUN_RESULT]]).toEqual(['timeout', 'timeout']);
    });
  });

  /** The well-known results of registry/attributes/cicd.md, by the Error a build or step ended with. */
  const results: [string, string][] = [
    ['StepFailed', 'failure'],
    ['CheckoutFailed', 'failure'],
    ['StepTimedOut', 'timeout'],
    ['Superseded', 'cancellation'],
    ['ExecutionAborted', 'cancellation'],
    ['ExecutionTimedOut', 'timeout'],
    ['ImagePullFailed', 'error'],
    ['KubernetesUnavailable', 'error'],
  ];
  it.each(results)('%s is a %s', (error, result) => {
    expect(failedResult(error)).toBe(result);
  });
});
