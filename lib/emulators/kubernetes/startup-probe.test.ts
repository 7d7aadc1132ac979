import { dialFailure, probePort, runStartupProbe, type DialResult, type Probe } from './startup-probe.js';

describe('dialFailure', () => {
  it.each<[NodeJS.ErrnoException | 'timeout', string]>([
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), 'dial tcp 127.0.0.1:5432: connect: connection refused'],
    ['timeout', 'dial tcp 127.0.0.1:5432: i/o timeout'],
    [Object.assign(new Error('connect EHOSTUNREACH'), { code: 'EHOSTUNREACH' }), 'dial tcp 127.0.0.1:5432: connect: no route to host'],
  ])('%s', (error, words) => {
    expect(dialFailure('127.0.0.1:5432', error)).toBe(words);
  });
});

describe('probePort', () => {
  const container = { ports: [{ name: 'pg', containerPort: 5432 }] };
  it.each<[number | string, number | undefined]>([
    [5432, 5432],
    ['6379', 6379],
    ['pg', 5432],
    ['http', undefined],
  ])('%s', (port, expected) => {
    expect(probePort(container, port)).toBe(expected);
  });
});

describe('runStartupProbe', () => {
  /** Answers in turn; records each attempt's failure words and waits. */
  function run(probe: Probe, answers: DialResult[], ended = () => false) {
    const failures: string[] = [];
    const waits: number[] = [];
    let calls = 0;
    const result = runStartupProbe({
      probe,
      container: { name: 'db' },
      podIP: '127.0.0.1',
      wait: async (ms) => void waits.push(ms),
      ended,
      failed: (output) => failures.push(output),
      dial: async () => answers[calls++] ?? { ok: false, output: 'refused' },
    });
    return { result, failures, waits, attempts: () => calls };
  }

  it('passes at the first success, every failure before it reported', async () => {
    const r = run({ tcpSocket: { port: 5432 }, periodSeconds: 1, failureThreshold: 5 }, [{ ok: false, output: 'refused' }, { ok: true }]);
    expect(await r.result).toBe('passed');
    expect(r.failures).toEqual(['refused']);
    expect(r.waits).toEqual([0, 1000]);
  });

  it('fails after failureThreshold failures in a row, with the API\'s defaults when unset', async () => {
    const r = run({ tcpSocket: { port: 5432 } }, []);
    expect(await r.result).toBe('failed');
    expect(r.attempts()).toBe(3);
    expect(r.waits).toEqual([0, 10_000, 10_000]);
  });

  it('stops when the container ends', async () => {
    const r = run({ tcpSocket: { port: 5432 } }, [], () => true);
    expect(await r.result).toBe('ended');
    expect(r.attempts()).toBe(0);
  });

  it('fails a named port the container does not have, in the kubelet\'s words', async () => {
    const r = run({ tcpSocket: { port: 'pg' }, failureThreshold: 1 }, []);
    expect(await r.result).toBe('failed');
    expect(r.failures).toEqual(["couldn't find port: pg in db"]);
  });
});
