/**
 * A build step's end, as its builder's termination message tells it: the push's digest, an
 * instruction that failed (named with its Dockerfile line), a push the registry refused. The
 * output lines are Debian's buildah 1.28 as it printed them for a two-stage Dockerfile in a
 * container with the build pod's permissions; the pods are a step pod (builders.ts) carrying the
 * build pod's annotation.
 */
import { describe, expect, it } from '@jest/globals';
import type { V1ContainerState, V1Pod } from '@kubernetes/client-node';
import { observe, stepPod } from '../../test/fixtures/kube/builders.js';
import { classifyStep } from './classify.js';
import { BUILD_RESULT_HEADER } from './build-container.js';
import { buildFailure, failedInstruction, readBuildResult, type DockerfileLines } from './build-result.js';
import { Annotations } from './types.js';

/** app/Dockerfile: ARG on line 2, stage one FROM line 3 and RUN line 4; stage two FROM 5, COPY 6, RUN 7-8, RUN 9. */
const DOCKERFILE: DockerfileLines = { file: 'app/Dockerfile', stages: [[3, 4], [5, 6, 7, 9]] };

const BUILD_OUTPUT = [
  '[1/2] STEP 2/2: RUN echo one > /one.txt',
  '--> fc0038fcf64',
  '[2/2] STEP 1/5: FROM registry.example.com/base:1',
  '[2/2] STEP 2/5: COPY --from=first /one.txt /one.txt',
  '--> 1763df68e21',
  '[2/2] STEP 3/5: RUN echo failing now && exit 3',
  'failing now',
  'subprocess exited with status 3',
  'Error: building at STEP "RUN echo failing now && exit 3": exit status 3',
];

const PUSH_OUTPUT = [
  'Getting image source signatures',
  'Copying blob sha256:1a801068709d4de4e1bf077484613cef899fc2197d9a98bd706c4e4f507d9782',
  'Error: pushing image "registry.example.com/app:1" to "docker://registry.example.com/app:1": writing blob: initiating layer upload to /v2/app/blobs/uploads/ in registry.example.com: unauthorized: authentication required',
];

const message = (head: string[], output: string[] = []) => [BUILD_RESULT_HEADER, ...head, 'output:', ...output, ''].join('\n');

describe('readBuildResult', () => {
  it.each([
    ['pushed', message(['outcome: pushed', 'exit: 0', 'digest: sha256:4656', 'tag: a.io/app:1', 'tag: a.io/app:2'], ['Storing signatures']), { outcome: 'pushed', digest: 'sha256:4656', tags: ['a.io/app:1', 'a.io/app:2'] }],
    ['built only', message(['outcome: built', 'exit: 0']), { outcome: 'built', tags: [] }],
    ['a failed build', message(['outcome: build-failed', 'exit: 3'], BUILD_OUTPUT), { outcome: 'build-failed', exitCode: 3, output: BUILD_OUTPUT }],
    ['a failed push', message(['outcome: push-failed', 'exit: 125'], PUSH_OUTPUT), { outcome: 'push-failed', exitCode: 125, output: PUSH_OUTPUT }],
    ['a failed push, with the tag it was pushing', message(['outcome: push-failed', 'exit: 125', 'tag: a.io/app:1'], PUSH_OUTPUT), { outcome: 'push-failed', exitCode: 125, output: PUSH_OUTPUT, tag: 'a.io/app:1' }],
    ['no message', undefined, undefined],
    ["a step's own termination message", 'done\n', undefined],
  ])('%s', (_, text, expected) => {
    expect(readBuildResult(text)).toEqual(expected);
  });
});

describe('failedInstruction', () => {
  it.each([
    ['a later stage, on its line', BUILD_OUTPUT, DOCKERFILE, { instruction: 'RUN echo failing now && exit 3', stage: 2, step: 3, line: 7 }],
    ['without the Dockerfile read', BUILD_OUTPUT, undefined, { instruction: 'RUN echo failing now && exit 3', stage: 2, step: 3 }],
    ['one stage (no [s/S] prefix)', ['STEP 1/2: FROM alpine', 'STEP 2/2: RUN false', 'Error: building at STEP "RUN false": exit status 1'], { file: 'Dockerfile', stages: [[1, 4]] }, { instruction: 'RUN false', stage: 1, step: 2, line: 4 }],
    ['no instruction ran', ['Error: creating build container: pinging container registry'], DOCKERFILE, undefined],
  ])('%s', (_, output, dockerfile, expected) => {
    expect(failedInstruction(output, dockerfile)).toEqual(expected);
  });
});

describe('a build pod that ended', () => {
  const buildPod = (state: V1ContainerState, phase: 'Succeeded' | 'Failed'): V1Pod => {
    const pod = stepPod({ step: 'image', image: 'quay.io/buildah/stable:v1.42.2', phase, state, startedAt: 1 });
    pod.metadata!.annotations = { [Annotations.dockerfile]: JSON.stringify(DOCKERFILE) };
    return pod;
  };
  const identity = { step: 'image', image: 'quay.io/buildah/stable:v1.42.2' };
  const ended = (exitCode: number, text: string): V1ContainerState => ({ terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', message: text, startedAt: new Date(1000), finishedAt: new Date(9000) } });

  it('succeeded with the pushed digest and tags', () => {
    const pod = buildPod(ended(0, message(['outcome: pushed', 'exit: 0', 'digest: sha256:4656', 'tag: a.io/app:1'])), 'Succeeded');
    expect(classifyStep(observe(pod, [], 10), identity)).toEqual({ phase: 'succeeded', reason: 'Completed', exitCode: 0, pushed: { digest: 'sha256:4656', tags: ['a.io/app:1'] } });
  });

  it('failed ImageBuildFailed naming the instruction, its line and the output', () => {
    const status = classifyStep(observe(buildPod(ended(3, message(['outcome: build-failed', 'exit: 3'], BUILD_OUTPUT)), 'Failed'), [], 10), identity);
    expect(status).toMatchObject({ phase: 'failed', error: 'ImageBuildFailed', exitCode: 3 });
    expect(status.phase === 'failed' && status.cause).toBe(
      `Step "image": app/Dockerfile line 7: RUN echo failing now && exit 3 failed (exit code 3). The builder's last lines:\n${BUILD_OUTPUT.join('\n')}`,
    );
  });

  it("failed ImagePushFailed with the registry's words", () => {
    const status = classifyStep(observe(buildPod(ended(125, message(['outcome: push-failed', 'exit: 125'], PUSH_OUTPUT)), 'Failed'), [], 10), identity);
    expect(status).toMatchObject({ phase: 'failed', error: 'ImagePushFailed' });
    expect(status.phase === 'failed' && status.cause).toContain(
      'Step "image": the registry refused the push: pushing image "registry.example.com/app:1" to "docker://registry.example.com/app:1": writing blob: initiating layer upload to /v2/app/blobs/uploads/ in registry.example.com: unauthorized: authentication required.',
    );
  });

  it('failed ImagePushFailed naming the identity and the ECR repository when ECR refused the identity', () => {
    // ECR's registry words a missing permission "denied: User: ... is not authorized to perform: ACTION on resource: ARN" (HTTP 403).
    const tag = '123456789012.dkr.ecr.eu-west-1.amazonaws.com/team/app:1.4';
    const output = [
      'Getting image source signatures',
      `Error: pushing image "${tag}" to "docker://${tag}": writing blob: initiating layer upload to /v2/team/app/blobs/uploads/ in 123456789012.dkr.ecr.eu-west-1.amazonaws.com: denied: User: arn:aws:sts::123456789012:assumed-role/ci-deploy/eks-ci-image is not authorized to perform: ecr:InitiateLayerUpload on resource: arn:aws:ecr:eu-west-1:123456789012:repository/team/app`,
    ];
    const pod = buildPod(ended(125, message(['outcome: push-failed', 'exit: 125', `tag: ${tag}`], output)), 'Failed');
    pod.spec = { ...pod.spec!, serviceAccountName: 'step-runner-id-deploy' };
    const status = classifyStep(observe(pod, [], 10), identity);
    expect(status).toMatchObject({ phase: 'failed', error: 'ImagePushFailed' });
    expect(status.phase === 'failed' && status.cause).toContain(
      `Step "image": ECR refused the push of ${tag} as the identity "deploy" (repository team/app in account 123456789012, eu-west-1): pushing image`,
    );
    expect(status.phase === 'failed' && status.cause).toContain('is not authorized to perform: ecr:InitiateLayerUpload');
    // Another registry, or no identity: the registry's words, with the tag.
    expect(buildFailure('image', { outcome: 'push-failed', exitCode: 125, output: PUSH_OUTPUT, tag: 'registry.example.com/app:1' }, undefined, 'deploy').cause).toMatch(/^Step "image": the registry refused the push of registry\.example\.com\/app:1: pushing image/);
  });

  it('is a step failure like any other when the builder left no message (its script never ran)', () => {
    const status = classifyStep(observe(buildPod(ended(127, ''), 'Failed'), [], 10), identity);
    expect(status).toMatchObject({ phase: 'failed', error: 'StepFailed', exitCode: 127 });
  });

  it("is not read on a run step's pod", () => {
    const pod = stepPod({ step: 'image', phase: 'Failed', state: ended(3, message(['outcome: build-failed', 'exit: 3'], BUILD_OUTPUT)), startedAt: 1 });
    expect(classifyStep(observe(pod, [], 10), identity)).toMatchObject({ error: 'StepFailed' });
  });

  it('is ImagePullFailed when the builder could not pull a FROM image, with the registry\'s words', () => {
    const output = [
      '[1/2] STEP 1/2: FROM registry.example.com/base:9 AS first',
      'Trying to pull registry.example.com/base:9...',
      'Error: creating build container: initializing source docker://registry.example.com/base:9: reading manifest 9 in registry.example.com/base: manifest unknown: manifest unknown',
    ];
    expect(buildFailure('image', { outcome: 'build-failed', exitCode: 125, output }, DOCKERFILE)).toEqual({
      error: 'ImagePullFailed',
      cause: `Step "image": app/Dockerfile line 3: FROM registry.example.com/base:9 AS first: the builder could not pull the base image: initializing source docker://registry.example.com/base:9: reading manifest 9 in registry.example.com/base: manifest unknown: manifest unknown. The builder's last lines:\n${output.join('\n')}`,
    });
  });

  it('says where in the Dockerfile without its lines', () => {
    expect(buildFailure('image', { outcome: 'build-failed', exitCode: 3, output: BUILD_OUTPUT }).cause).toMatch(/^Step "image": the Dockerfile, stage 2, instruction 3: RUN echo failing now && exit 3 failed \(exit code 3\)/);
  });
});
