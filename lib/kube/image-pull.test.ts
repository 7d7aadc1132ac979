import { describe, expect, it } from '@jest/globals';
import {
  PullWaitingReasons,
  classifyPullMessage,
  isPermanentPullFailure,
  isPullWaitingReason,
  isRetryablePullFailure,
} from './image-pull.js';
import { runtimeWords } from './cause.js';
import { pullMessages } from '../../test/fixtures/kube/pull-messages.js';
import { loadExamples } from '../../test/fixtures/kube/shared-examples.js';

describe('classifyPullMessage on real runtime wording', () => {
  it.each(pullMessages.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(classifyPullMessage(c.message, c.image)).toBe(c.verdict);
    expect(isRetryablePullFailure(c.message, c.image)).toBe(c.verdict !== 'permanent');
  });

  it.each(pullMessages.filter((c) => c.keyWords.length > 0).map((c) => [c.name, c] as const))(
    'keeps the registry words when unwrapping: %s',
    (_name, c) => {
      const words = runtimeWords(c.message);
      for (const key of c.keyWords) expect(words).toContain(key);
      expect(words).not.toMatch(/^rpc error/);
    },
  );
});

describe('classifyPullMessage on the shared examples', () => {
  // Throws (failing the file) when the repository copy is missing or empty.
  const examples = loadExamples();
  const pullErrors = examples.flatMap((example) =>
    example.events
      .filter((e) => e.message.startsWith('Failed to pull image') || e.reason === 'InspectFailed')
      .map((e) => [example.seen, example.cause, e.message] as const),
  );

  it('has pull errors to judge', () => {
    expect(examples.length).toBeGreaterThan(0);
    expect(pullErrors.length).toBeGreaterThan(0);
    expect(pullErrors.length).toBeGreaterThanOrEqual(examples.length - 1);
  });

  it.each(pullErrors)('%s (%s)', (_seen, cause, message) => {
    expect(classifyPullMessage(message)).toBe(cause.includes('transient') ? 'transient' : 'permanent');
  });
});

describe('status codes count only in context', () => {
  it.each([
    ['unexpected status code 401', 'permanent'],
    ['unexpected status: 403 Forbidden', 'permanent'],
    ['failed with status code [manifests v1]: 401 Unauthorized', 'permanent'],
    ['unexpected status from GET request to https://r.example/v2/: 429 Too Many Requests', 'transient'],
    ['received unexpected HTTP status: 502 Bad Gateway', 'transient'],
    ['failed to copy: httpReadSeeker: failed open: content at https://r.example/v2/a/blobs/sha256:401429503 missing', 'unknown'],
    ['dial tcp 10.0.0.1:4010: connect: some unusual runtime words', 'unknown'],
  ])('%s -> %s', (message, verdict) => {
    expect(classifyPullMessage(message)).toBe(verdict);
  });
});

describe('precedence', () => {
  // Constructed from two real fragments: a registry that refuses auth while the network times out.
  it('a transient signal wins over a permanent one in the same message', () => {
    const message =
      'failed to resolve reference "r.example/a:1": pulling from host r.example failed with status code [manifests 1]: 401 Unauthorized; retry: dial tcp 10.0.0.7:443: i/o timeout';
    expect(classifyPullMessage(message)).toBe('transient');
  });
});

describe('names in the message prove nothing', () => {
  it('an image called "timeout" with a not-found verdict is permanent', () => {
    const message =
      'Failed to pull image "acme/timeout:1": rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/acme/timeout:1": failed to resolve reference "docker.io/acme/timeout:1": docker.io/acme/timeout:1: not found';
    expect(isPermanentPullFailure(message, 'acme/timeout:1')).toBe(true);
  });

  it('an image called "unauthorized" with words we do not know stays unknown', () => {
    const message =
      'Failed to pull image "acme/unauthorized:3": rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/acme/unauthorized:3": failed to extract layer sha256:9f1c: mount callback failed';
    expect(classifyPullMessage(message, 'acme/unauthorized:3')).toBe('unknown');
    expect(classifyPullMessage(message)).toBe('unknown');
  });

  it('a repository named "denied" behind a rate limit is transient', () => {
    const message =
      'Failed to pull image "acme/denied:2": rpc error: code = Unknown desc = Error response from daemon: toomanyrequests: You have reached your pull rate limit.';
    expect(classifyPullMessage(message, 'acme/denied:2')).toBe('transient');
  });
});

describe('waiting reasons', () => {
  it('knows the kubelet pull reasons and nothing else', () => {
    for (const reason of Object.values(PullWaitingReasons)) expect(isPullWaitingReason(reason)).toBe(true);
    expect(isPullWaitingReason('ContainerCreating')).toBe(false);
    expect(isPullWaitingReason('CreateContainerConfigError')).toBe(false);
    expect(isPullWaitingReason(undefined)).toBe(false);
  });
});
