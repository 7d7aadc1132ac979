/**
 * A step's `retry:` in a pipeline file: the effective retry every parsed step carries, the short
 * form, and each refusal with its message and line.
 */
import { readPipelineText as read, pipelineTextProblems as problems } from '../../test/fixtures/pipeline-text.js';
import { RETRYABLE_ERRORS } from '../contract/index.js';
import { DEFAULT_STEP_RETRY, retryErrorProblem, stepRetry } from './retry.js';
import type { StepRetry } from './types.js';

/** A one-step file; `retry` is written under the step's commands, from line 6. */
const file = (retry: string) => `version: 1\nsteps:\n  - name: build\n    image: node:22-alpine\n    commands: [npm test]\n${retry}`;

const ALLOWED = 'the Errors a fresh pod on the same workspace can fix are StepInterrupted, StepFailed, StepTimedOut, PodLost, ServiceFailed and ContainerRuntimeTimeout';

describe('retry in the normal form', () => {
  it.each<[string, string, StepRetry]>([
    ['nothing said: the default', '', { max: 2, on: ['StepInterrupted', 'ContainerRuntimeTimeout'] }],
    ['a bare number: max, the default on', '    retry: 3\n', { max: 3, on: ['StepInterrupted', 'ContainerRuntimeTimeout'] }],
    ['0: no retries, not even for StepInterrupted', '    retry: 0\n', { max: 0, on: ['StepInterrupted', 'ContainerRuntimeTimeout'] }],
    ['max and on', '    retry: {max: 1, on: [StepInterrupted, StepFailed]}\n', { max: 1, on: ['StepInterrupted', 'StepFailed'] }],
    ['on alone: the default max', '    retry: {on: [StepTimedOut, PodLost]}\n', { max: 2, on: ['StepTimedOut', 'PodLost'] }],
    ['max alone: the default on', '    retry: {max: 5}\n', { max: 5, on: ['StepInterrupted', 'ContainerRuntimeTimeout'] }],
    ['one Error as text', '    retry: {on: ServiceFailed}\n', { max: 2, on: ['ServiceFailed'] }],
    ['an empty map: the defaults', '    retry: {}\n', { max: 2, on: ['StepInterrupted', 'ContainerRuntimeTimeout'] }],
    // `on` is a YAML 1.1 boolean; the file is read as YAML 1.2, where it is a key like any other.
    ['block style, every retryable Error', `    retry:\n      max: 4\n      on:\n${RETRYABLE_ERRORS.map((name) => `        - ${name}\n`).join('')}`, { max: 4, on: [...RETRYABLE_ERRORS] }],
  ])('%s', (_, retry, expected) => {
    expect(read(file(retry)).steps[0]?.retry).toEqual(expected);
  });

  it('gives each step its own copy of the default', () => {
    const steps = read('version: 1\nsteps:\n  - name: a\n    image: alpine\n    commands: [make]\n  - name: b\n    image: alpine\n    commands: [make]\n').steps;
    expect(steps.map((step) => step.retry)).toEqual([DEFAULT_STEP_RETRY, DEFAULT_STEP_RETRY]);
    steps[0]!.retry!.on.push('StepFailed');
    expect(steps[1]?.retry).toEqual({ max: 2, on: ['StepInterrupted', 'ContainerRuntimeTimeout'] });
    expect(DEFAULT_STEP_RETRY).toEqual({ max: 2, on: ['StepInterrupted', 'ContainerRuntimeTimeout'] });
  });

  it('reads retry from a merge key', () => {
    const text = `version: 1
steps:
  - &flaky
    name: a
    image: alpine
    commands: [make]
    retry: {max: 1, on: [StepFailed]}
  - <<: *flaky
    name: b
`;
    expect(read(text).steps.map((step) => [step.name, step.retry])).toEqual([
      ['a', { max: 1, on: ['StepFailed'] }],
      ['b', { max: 1, on: ['StepFailed'] }],
    ]);
  });

  it('stepRetry: a step\'s own, else the default (a step made without the parser)', () => {
    expect(stepRetry({ retry: { max: 0, on: ['PodLost'] } })).toEqual({ max: 0, on: ['PodLost'] });
    expect(stepRetry({})).toEqual(DEFAULT_STEP_RETRY);
    expect(stepRetry({})).not.toBe(DEFAULT_STEP_RETRY);
  });
});

describe('retry refused', () => {
  const notRetried = (name: string, why: string) => `retry.on[0]: ${name} is not retried: ${why}; a fresh pod cannot fix it; ${ALLOWED}`;
  const fileRead = 'it is found when the pipeline file is read, before any pod runs';
  const runner = (what: string) => `the runner itself could not ${what}, not the step`;

  it.each<[string, string, string, number]>([
    ['too many retries', '    retry: 6\n', 'retry: 6 is too many: at most 5 retries, each of which runs the whole step again', 6],
    ['too many retries as max', '    retry: {max: 9}\n', 'retry.max: 9 is too many: at most 5 retries, each of which runs the whole step again', 6],
    ['a negative max', '    retry:\n      max: -1\n', 'retry.max: must be 0 (no retries, not even for StepInterrupted) or more', 7],
    ['a fraction', '    retry: 1.5\n', 'retry: must be a whole number of retries from 0 to 5, not the number 1.5', 6],
    ['max as text', '    retry: {max: two}\n', 'retry.max: must be a whole number of retries from 0 to 5, not the text "two"', 6],
    [
      'a quoted number',
      '    retry: "2"\n',
      'retry: must be a number of retries (0 to 5) or a map with max and on (e.g. {max: 2, on: [StepInterrupted, StepFailed]}), not the text "2"',
      6,
    ],
    [
      'a list',
      '    retry: [StepFailed]\n',
      'retry: must be a number of retries (0 to 5) or a map with max and on (e.g. {max: 2, on: [StepInterrupted, StepFailed]}), not a list',
      6,
    ],
    ['an empty on', '    retry: {max: 2, on: []}\n', 'retry.on: must list at least one Error (leave on out for StepInterrupted, ContainerRuntimeTimeout alone; "max: 0" turns retries off)', 6],
    ['on as a map', '    retry:\n      on: {StepFailed: true}\n', 'retry.on: must be a list of Errors (e.g. [StepInterrupted, StepFailed]), not a map', 7],
    ['an Error twice', '    retry:\n      on:\n        - StepFailed\n        - PodLost\n        - StepFailed\n', 'retry.on[2]: StepFailed is listed twice', 10],
    ['a number for an Error', '    retry: {on: [1]}\n', `retry.on[0]: each entry must be an Error name such as StepFailed, not the number 1; ${ALLOWED}`, 6],
    ['a near-miss spelling', '    retry: {on: [StepFaild]}\n', `retry.on[0]: "StepFaild" is not the name of an Error a step ends with (did you mean StepFailed?); ${ALLOWED}`, 6],
    ['another case', '    retry: {on: [podlost]}\n', `retry.on[0]: "podlost" is not the name of an Error a step ends with (did you mean PodLost?); ${ALLOWED}`, 6],
    ['a name that is no Error', '    retry: {on: [Flaky]}\n', `retry.on[0]: "Flaky" is not the name of an Error a step ends with; ${ALLOWED}`, 6],
    ['InvalidPipeline', '    retry: {on: [InvalidPipeline]}\n', notRetried('InvalidPipeline', fileRead), 6],
    ['InvalidImage', '    retry: {on: [InvalidImage]}\n', notRetried('InvalidImage', fileRead), 6],
    [
      'ImagePullFailed',
      '    retry: {on: [ImagePullFailed]}\n',
      notRetried('ImagePullFailed', 'a fresh pod pulls the same image with the same pull secrets (a passing registry error is already waited out: image-pull-grace)'),
      6,
    ],
    ['PodConfigError', '    retry: {on: [PodConfigError]}\n', notRetried('PodConfigError', "the pod's configuration (its Secrets, ConfigMaps, volumes) is the same for every attempt"), 6],
    ['Unschedulable', '    retry: {on: [Unschedulable]}\n', notRetried('Unschedulable', 'a fresh pod asks for the same resources, node selector and tolerations'), 6],
    ['CheckoutFailed', '    retry: {on: [CheckoutFailed]}\n', notRetried('CheckoutFailed', "it is the build's checkout, not the step, and every attempt shares the workspace"), 6],
    ['WorkspaceUnavailable', '    retry: {on: [WorkspaceUnavailable]}\n', notRetried('WorkspaceUnavailable', "it is the build's workspace, not the step, and every attempt shares the workspace"), 6],
    ['CredentialsUnavailable', '    retry: {on: [CredentialsUnavailable]}\n', notRetried('CredentialsUnavailable', runner('get credentials')), 6],
    ['KubernetesUnavailable', '    retry: {on: [KubernetesUnavailable]}\n', notRetried('KubernetesUnavailable', runner('reach the cluster')), 6],
    ['a misspelt field', '    retry: {mx: 2}\n', 'unknown field "mx" (did you mean "max"?)', 6],
    ['GitHub\'s max_attempts', '    retry:\n      max_attempts: 2\n', 'unknown field "max_attempts" (did you mean "max"?)', 7],
    ['an unknown field', '    retry: {max: 2, backoff: 10s}\n', 'unknown field "backoff" (expected one of: max, on)', 6],
    ['retries for retry', '    retries: 2\n', 'unknown field "retries" (did you mean "retry"?)', 6],
  ])('%s', (_, retry, message, line) => {
    expect(problems(file(retry))).toEqual([{ message: `ci.yml line ${line}: step "build": ${message}`, line }]);
  });

  it('says every wrong Error of a list, each on its line', () => {
    expect(problems(file('    retry:\n      on:\n        - StepFailed\n        - Unschedulable\n        - Flaky\n')).map((p) => p.line)).toEqual([9, 10]);
  });

  it('has no retry for services, nor for the checkout: a fresh pod is the step\'s', () => {
    const service = 'version: 1\nsteps:\n  - name: build\n    image: alpine\n    commands: [make]\n    services:\n      - name: db\n        image: postgres:16\n        retry: 2\n';
    expect(problems(service)).toEqual([{ message: 'ci.yml line 9: step "build": unknown field "retry" (expected one of: name, image, entrypoint, command, env, ports, secrets, pull)', line: 9 }]);
    const checkout = 'version: 1\ncheckout: {depth: 1, retry: 2}\nsteps:\n  - name: build\n    image: alpine\n    commands: [make]\n';
    expect(problems(checkout)).toEqual([{ message: 'ci.yml line 2: unknown field "retry" (expected one of: depth, submodules)', line: 2 }]);
    expect(problems('version: 1\nretry: 2\nsteps:\n  - name: build\n    image: alpine\n    commands: [make]\n')[0]?.message).toMatch(/^ci\.yml line 2: unknown field "retry"/);
  });

  it('retryErrorProblem: nothing for a retryable Error', () => {
    expect(RETRYABLE_ERRORS.map((name) => retryErrorProblem(name))).toEqual(RETRYABLE_ERRORS.map(() => undefined));
  });
});
