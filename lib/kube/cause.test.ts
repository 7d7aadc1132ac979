import { describe, expect, it } from '@jest/globals';
import { MAX_CAUSE_LENGTH, elideMiddle, pullFailedCause, runtimeWords, stripRpcPrefix } from './cause.js';

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
