import { describe, expect, it } from '@jest/globals';
import {
  MAX_CAUSE_LENGTH,
  checkoutFailedCause,
  elideMiddle,
  finishedCause,
  pullFailedCause,
  runtimeWords,
  stripRpcPrefix,
  volumeWords,
  workspaceUnavailableCause,
  type StepEnding,
} from './cause.js';

describe('runtimeWords', () => {
  it.each([
    [
      'Failed to pull image "alpine:3.99": rpc error: code = NotFound desc = failed to resolve reference "docker.io/library/alpine:3.99": docker.io/library/alpine:3.99: not found',
      'failed to resolve reference "docker.io/library/alpine:3.99": docker.io/library/alpine:3.99: not found',
    ],
    [
      'Back-off pulling image "nginx:1.99": ErrImagePull: rpc error: code = NotFound desc = nginx:1.99: not found',
      'nginx:1.99: not found',
    ],
    ['Error: secret "ci-db" not found', 'secret "ci-db" not found'],
    ['Back-off pulling image "x:1"', 'Back-off pulling image "x:1"'],
  ])('%s', (message, words) => {
    expect(runtimeWords(message)).toBe(words);
  });

  it('strips nested gRPC wrapping', () => {
    expect(stripRpcPrefix('rpc error: code = Unknown desc = rpc error: code = Unavailable desc = EOF')).toBe('EOF');
  });
});

describe('long messages', () => {
  const registry = `failed to pull and unpack image: ${'layer sha256:0123456789abcdef '.repeat(200)}: 401 Unauthorized`;

  it('elides the middle and keeps both ends', () => {
    const elided = elideMiddle(registry, 300);
    expect(elided.length).toBeLessThanOrEqual(300);
    expect(elided.startsWith('failed to pull and unpack image')).toBe(true);
    expect(elided.endsWith('401 Unauthorized')).toBe(true);
  });

  it('keeps a Cause within the limit without losing step, image or the registry verdict', () => {
    const cause = pullFailedCause({ step: 'build', image: 'registry.example.com/a/b:1' }, { reason: 'ErrImagePull', words: registry });
    expect(cause.length).toBeLessThanOrEqual(MAX_CAUSE_LENGTH);
    expect(cause).toContain('Step "build"');
    expect(cause).toContain('registry.example.com/a/b:1');
    expect(cause).toContain('401 Unauthorized');
  });
});

describe('workspace and checkout Causes', () => {
  // EC2's encoded authorization message runs to about a thousand characters (aws-ebs-csi-driver#1449).
  const unauthorized = `failed to provision volume with StorageClass "gp2": rpc error: code = Internal desc = Could not create volume "pvc-c338311b-294b-44b8": could not create volume in EC2: UnauthorizedOperation: You are not authorized to perform this operation. Encoded authorization failure message: ${'BNt6NUyO1G8R-Q-zsn9qc8g40HPz3mr4'.repeat(40)}\n\tstatus code: 403, request id: ceb3f6fb-d9a3-4a09-8b46-1527ac3fa6c7`;

  it('one paragraph: the AWS SDK\'s second line joined, the gRPC wrapping gone', () => {
    expect(volumeWords('AttachVolume.Attach failed for volume "pv" : rpc error: code = Internal desc = a\n\tstatus code: 400')).toBe(
      'AttachVolume.Attach failed for volume "pv" : a status code: 400',
    );
  });

  it('keeps step, claim, the reason and both ends of a long message within the limit', () => {
    const cause = workspaceUnavailableCause(
      { step: 'build', image: 'alpine:3.20' },
      { claim: 'ws-b-42', reason: 'ProvisioningFailed', words: volumeWords(unauthorized) },
    );
    expect(cause.length).toBeLessThanOrEqual(MAX_CAUSE_LENGTH);
    expect(cause).toContain('Step "build" (image "alpine:3.20") could not start: its workspace volume (claim "ws-b-42") could not be provisioned (ProvisioningFailed).');
    expect(cause).toContain('The provisioner said: failed to provision volume with StorageClass "gp2"');
    expect(cause).toContain('request id: ceb3f6fb-d9a3-4a09-8b46-1527ac3fa6c7');
  });

  it('names the checkout as the checkout', () => {
    expect(checkoutFailedCause({ step: 'clone', image: 'alpine/git:v2.54.0' }, { exitCode: 128 })).toBe(
      'The checkout (step "clone") failed with exit code 128.',
    );
  });
});

describe('finishedCause: what FinishStep ends a Cause with', () => {
  const LOG = '$ npm test\nnpm ERR! Test failed.';
  const attempt = (words: string, first: boolean, retried: boolean) => ({ words, first, retried });
  it.each<[string, StepEnding, string]>([
    ['a non-zero exit: the log tail', { step: 'test', error: 'StepFailed', cause: 'Step "test" failed with exit code 1.', logTail: LOG }, `Step "test" failed with exit code 1.\nLast lines of the log:\n${LOG}`],
    ['the checkout: git\'s words', { step: 'clone', error: 'CheckoutFailed', cause: 'The checkout (step "clone") failed with exit code 128.', logTail: 'fatal: not found' }, 'The checkout (step "clone") failed with exit code 128.\nLast lines of the log:\nfatal: not found'],
    ['an exit that logged nothing', { step: 'test', error: 'StepFailed', cause: 'Step "test" failed with exit code 1.' }, 'Step "test" failed with exit code 1.'],
    ['no exit of the step: no log tail', { step: 'test', error: 'StepTimedOut', cause: 'Step "test" timed out.', logTail: LOG }, 'Step "test" timed out.'],
    ['a failed service: its own log', { step: 'test', error: 'ServiceFailed', cause: 'Service "db" exited.', logTail: LOG, service: { name: 'db', logTail: 'FATAL: bad config' } }, 'Service "db" exited.\nLast lines of the log of service "db":\nFATAL: bad config'],
    ['a service that logged nothing', { step: 'test', error: 'ServiceFailed', cause: 'Service "db" exited.', service: { name: 'db' } }, 'Service "db" exited.'],
    ['no Cause from PollStep', { step: 'test', error: 'PodLost' }, 'Step "test" failed'],
    ['an empty Cause stays empty', { step: 'test', error: 'StepFailed', cause: '', logTail: LOG }, ''],
    ['the first attempt, not retried: nothing', { step: 'test', error: 'PodLost', cause: 'Lost.', attempt: attempt('attempt 1 of 3', true, false) }, 'Lost.'],
    [
      'retried: after the log tail, why',
      { step: 'test', error: 'StepFailed', cause: 'Failed.', logTail: 'x', attempt: attempt('attempt 1 of 3', true, true) },
      'Failed.\nLast lines of the log:\nx\nThis was attempt 1 of 3: the step is tried again, in a fresh pod on the same workspace (its retry.on has StepFailed).',
    ],
    ['the last attempt', { step: 'test', error: 'StepInterrupted', cause: 'Interrupted.', attempt: attempt('attempt 3 of 3', false, false) }, 'Interrupted.\nThis was attempt 3 of 3, the last its retry allows.'],
  ])('%s', (_, ending, expected) => {
    expect(finishedCause(ending)).toBe(expected);
  });
});
