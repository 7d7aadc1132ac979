import type { V1Pod } from '@kubernetes/client-node';
import type { TaskDeps, TaskRuntime } from '../../workflow/task-deps.js';
import { InFlightInvocations } from './in-flight.js';
import { fakeStepCluster } from '../../kube/fake-cluster.js';

/** A runtime whose watch lasts until its signal ends it (no cluster): what it saw is in `log`. */
function runtime(log: string[]): TaskRuntime {
  const deps: TaskDeps = {
    cluster: fakeStepCluster(),
    watchPods: (_ns, _selector, _until, _ms, signal) =>
      new Promise((resolve) => {
        log.push('watch opened');
        signal?.addEventListener('abort', () => {
          log.push('watch aborted');
          resolve({ pods: new Map<string, V1Pod>(), settled: false });
        });
      }),
    logs: undefined as never,
    now: () => new Date(),
    log: { info: () => {}, warn: () => {} },
  };
  return { settings: {} as never, deps };
}

describe('the invocations of a local execution under way', () => {
  it('ends their watches when the execution ends, and has none left once that has resolved', async () => {
    const log: string[] = [];
    const inFlight = new InFlightInvocations();
    const { deps } = inFlight.runtime(runtime(log));
    const answered = inFlight.track((async () => {
      await deps.watchPods!('ns', 'sel', () => false, 240_000);
      log.push('invocation answered');
    })());
    expect(inFlight.count).toBe(1);
    await inFlight.end();
    log.push('execution ended');
    await answered;
    expect(log).toEqual(['watch opened', 'watch aborted', 'invocation answered', 'execution ended']);
    expect(inFlight.count).toBe(0);
  });

  it('counts an invocation that threw as answered', async () => {
    const inFlight = new InFlightInvocations();
    await expect(inFlight.track(Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    await inFlight.end();
    expect(inFlight.count).toBe(0);
  });

  it('keeps the watch\'s own signal working beside the execution\'s', async () => {
    const log: string[] = [];
    const { deps } = new InFlightInvocations().runtime(runtime(log));
    const own = new AbortController();
    const watched = deps.watchPods!('ns', 'sel', () => false, 240_000, own.signal);
    own.abort();
    await watched;
    expect(log).toEqual(['watch opened', 'watch aborted']);
  });
});
