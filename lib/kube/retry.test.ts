import { ApiException } from '@kubernetes/client-node';
import { KubernetesUnavailable } from './errors.js';
import { withKubeRetries } from './retry.js';

function apiError(code: number, reason: string, message: string, headers: Record<string, string> = {}) {
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message, code });
  return new ApiException(code, 'Unknown API Status Code!', body, headers);
}

function networkError(code: string, message: string) {
  return Object.assign(new Error(message), { code, errno: code, type: 'system' });
}

/** A call that fails with the given errors in turn, then succeeds. */
function scripted(...failures: unknown[]) {
  let calls = 0;
  const fn = async () => {
    calls++;
    const failure = failures.shift();
    if (failure) throw failure;
    return 'ok';
  };
  return { fn, calls: () => calls };
}

function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

describe('withKubeRetries', () => {
  it.each([
    ['429', apiError(429, 'TooManyRequests', 'too many requests')],
    ['500', apiError(500, 'InternalError', 'etcdserver: leader changed')],
    ['502', new ApiException(502, 'Unknown API Status Code!', '<html>Bad Gateway</html>', {})],
    ['503', apiError(503, 'ServiceUnavailable', 'the server is currently unable to handle the request')],
    ['504', apiError(504, 'Timeout', 'the server was unable to return a response in the time allotted')],
    ['ECONNRESET', networkError('ECONNRESET', 'request to https://k8s/api failed, reason: read ECONNRESET')],
    ['ECONNREFUSED', networkError('ECONNREFUSED', 'request to http://127.0.0.1:1/ failed, reason: connect ECONNREFUSED')],
    ['ETIMEDOUT', networkError('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:443')],
    ['EPIPE', networkError('EPIPE', 'write EPIPE')],
    ['socket hang up', new Error('request to https://k8s/api failed, reason: socket hang up')],
    ['other side closed', new TypeError('other side closed')],
  ])('retries after %s and returns the eventual result', async (_label, error) => {
    const call = scripted(error, error);
    const { waits, sleep } = recordingSleep();
    await expect(withKubeRetries('read pod ci/x', call.fn, { sleep, random: () => 0.5 })).resolves.toBe('ok');
    expect(call.calls()).toBe(3);
    expect(waits).toHaveLength(2);
  });

  it.each([
    [400, 'BadRequest'],
    [401, 'Unauthorized'],
    [403, 'Forbidden'],
    [404, 'NotFound'],
    [409, 'AlreadyExists'],
    [422, 'Invalid'],
  ])('does not retry a %i and rethrows it untouched for the caller', async (code, reason) => {
    const error = apiError(code, reason, 'nope');
    const call = scripted(error);
    const { waits, sleep } = recordingSleep();
    await expect(withKubeRetries('create pod ci/x', call.fn, { sleep })).rejects.toBe(error);
    expect(call.calls()).toBe(1);
    expect(waits).toEqual([]);
  });

  it('does not retry a programming error', async () => {
    const call = scripted(new TypeError('Cannot read properties of undefined'));
    await expect(withKubeRetries('x', call.fn, { sleep: async () => {} })).rejects.toThrow(TypeError);
    expect(call.calls()).toBe(1);
  });

  it('backs off exponentially with jitter', async () => {
    const e = apiError(503, 'ServiceUnavailable', 'busy');
    const call = scripted(e, e, e, e);
    const { waits, sleep } = recordingSleep();
    await withKubeRetries('x', call.fn, { sleep, random: () => 1, baseDelayMs: 100, maxDelayMs: 10_000 });
    expect(waits).toEqual([100, 200, 400, 800]);

    const jittered = recordingSleep();
    await withKubeRetries('x', scripted(e, e).fn, { sleep: jittered.sleep, random: () => 0.25, baseDelayMs: 100 });
    expect(jittered.waits).toEqual([25, 50]);
  });

  it('honours Retry-After seconds on a 429, capped', async () => {
    const call = scripted(
      apiError(429, 'TooManyRequests', 'slow down', { 'retry-after': '2' }),
      apiError(429, 'TooManyRequests', 'slow down', { 'retry-after': '3600' }),
    );
    const { waits, sleep } = recordingSleep();
    await withKubeRetries('x', call.fn, { sleep, maxRetryAfterMs: 5000 });
    expect(waits).toEqual([2000, 5000]);
  });

  it('gives up after the attempt budget with KubernetesUnavailable naming the operation and the last error', async () => {
    const errors = Array.from({ length: 10 }, (_, i) => apiError(503, 'ServiceUnavailable', `busy #${i + 1}`));
    const call = scripted(...errors);
    const { waits, sleep } = recordingSleep();
    const failure = await withKubeRetries('create pod ci/build-1-test', call.fn, { sleep, random: () => 0 }).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(KubernetesUnavailable);
    const error = failure as KubernetesUnavailable;
    expect(error.name).toBe('KubernetesUnavailable');
    expect(error.operation).toBe('create pod ci/build-1-test');
    expect(error.attempts).toBe(5);
    expect(error.message).toContain('create pod ci/build-1-test');
    expect(error.message).toContain('5 times');
    expect(error.message).toContain('503 ServiceUnavailable: busy #5');
    expect(error.message).not.toContain('Headers');
    expect(call.calls()).toBe(5);
    expect(waits).toHaveLength(4);
  });

  it('stops early when the waits would exceed the total budget', async () => {
    const e = apiError(429, 'TooManyRequests', 'later', { 'retry-after': '4' });
    const call = scripted(e, e, e, e, e);
    const { waits, sleep } = recordingSleep();
    const error = await withKubeRetries('list events', call.fn, { sleep, maxTotalDelayMs: 10_000 }).catch((x: unknown) => x);
    expect(error).toBeInstanceOf(KubernetesUnavailable);
    expect(waits).toEqual([4000, 4000]);
    expect((error as KubernetesUnavailable).attempts).toBe(3);
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(10_000);
  });

  it('names a dropped connection in the final error', async () => {
    const errors = Array.from({ length: 5 }, () => networkError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6443'));
    const error = await withKubeRetries('read pod ci/x', scripted(...errors).fn, { sleep: async () => {} }).catch(
      (x: unknown) => x,
    );
    expect((error as Error).message).toContain('connect ECONNREFUSED 127.0.0.1:6443');
  });
});
