/**
 * A step's retry, through the real definition on the embedded cluster: a failed attempt whose
 * Error the step's `retry.on` lists is tried again in a fresh pod on the same workspace, and the
 * build goes on as if it had passed the first time; one it does not list fails the build.
 */
import { localBuildsForFile } from './fixtures/local-builds.js';
import { waitFor } from './fixtures/wait-for.js';

const builds = localBuildsForFile({ prefix: 'step-retry' });

// Fails the first time (no mark yet in the shared workspace), passes the second.
const flaky = (retry: string) => `version: 1
checkout: false
steps:
  - name: flaky
    image: busybox:1.37
    ${retry}
    commands:
      - if [ -f attempted ]; then echo second; else touch attempted; echo first; exit 3; fi
  - name: after
    image: busybox:1.37
    commands: [test -f attempted]
`;

describe('a step retry', () => {
  it('tries a failed attempt again when retry.on lists its Error, in a pod of its own, and the build succeeds', async () => {
    const { summary, events } = await builds.build('retry-1', flaky('retry: {max: 1, on: [StepFailed]}'));
    expect({ status: summary.status, cause: summary.cause }).toEqual({ status: 'SUCCEEDED', cause: null });
    const launched = events.filter((e) => e.type === 'StateExited' && e.state?.name === 'LaunchStep').map((e) => (e.state?.output as { poll?: { podName?: string } }).poll?.podName);
    const flakyPods = launched.filter((name) => name?.includes('flaky'));
    expect(flakyPods).toHaveLength(2);
    expect(new Set(flakyPods).size).toBe(2);
    expect(summary.steps.map((step) => [step.name, step.status, step.attempts])).toEqual([
      ['flaky', 'succeeded', 2],
      ['after', 'succeeded', undefined],
    ]);
    expect(events.some((e) => e.state?.name === 'PrepareRetry')).toBe(true);
  });

  it('fails the build at the first attempt when its Error is not one retry.on lists', async () => {
    const { summary, events } = await builds.build('retry-2', flaky('retry: {max: 2, on: [StepTimedOut]}'));
    expect({ status: summary.status, error: summary.error }).toEqual({ status: 'FAILED', error: 'StepFailed' });
    expect(events.some((e) => e.state?.name === 'PrepareRetry')).toBe(false);
  });

  it('gives up after max retries, saying which attempt it was', async () => {
    const pipeline = `version: 1
checkout: false
steps:
  - name: broken
    image: busybox:1.37
    retry: {max: 1, on: [StepFailed]}
    commands: [exit 4]
`;
    const { summary } = await builds.build('retry-3', pipeline);
    expect({ status: summary.status, error: summary.error }).toEqual({ status: 'FAILED', error: 'StepFailed' });
    expect(summary.cause).not.toMatch(/tried again/);
    expect(summary.cause).toMatch(/This was attempt 2 of 2, the last its retry allows\.$/);
    expect(summary.steps[0]).toMatchObject({ name: 'broken', status: 'failed', attempts: 2 });
  });
});

describe('a step whose pod is evicted', () => {
  // One that ends at SIGTERM, its pod gone before the next poll looks (the watch resumes from the
  // last poll's resourceVersion and reads the deletion's last state); one that outlives it, its pod
  // still there, terminating, when the watch sees the condition.
  it.each([
    ['ends at once', 'sleep 60'],
    ['outlives SIGTERM', "trap '' TERM; while :; do sleep 1; done"],
  ])('is StepInterrupted with the cluster\'s words, tried again by default, and the build succeeds (a step that %s)', async (what, wait) => {
    const pipeline = `version: 1
checkout: false
steps:
  - name: slow
    image: busybox:1.37
    commands:
      - if [ -f started ]; then echo second attempt; else touch started; echo waiting; ${wait}; fi
`;
    const name = `evicted-${what.replace(/\W+/g, '-')}`;
    const build = builds.build(name, pipeline);
    // Evicted as kubectl drain evicts: through the Eviction API, once this build's step has marked
    // its workspace and waits (its log says so). A container that runs has not necessarily got that
    // far: evicted before, its second attempt would wait instead of finishing.
    const pod = await waitFor(
      async () => {
        const pods = await builds.api.listNamespacedPod({ namespace: 'default', labelSelector: 'step-runner.dev/step=slow' });
        for (const p of pods.items) {
          if (!p.metadata?.name?.startsWith(name.toLowerCase()) || !p.status?.containerStatuses?.[0]?.state?.running) continue;
          const log = await builds.api.readNamespacedPodLog({ name: p.metadata.name, namespace: 'default', container: 'step' }).catch(() => '');
          if (log.includes('waiting')) return p.metadata.name;
        }
        return undefined;
      },
      { timeoutMs: 30_000, what: 'the step waiting' },
    );
    await builds.api.createNamespacedPodEviction({ name: pod, namespace: 'default', body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: 'default' } } });
    const { summary, events } = await build;
    expect({ status: summary.status, cause: summary.cause }).toEqual({ status: 'SUCCEEDED', cause: null });
    expect(summary.steps[0]).toMatchObject({ name: 'slow', status: 'succeeded', attempts: 2 });
    const firstAttempt = events.find((e) => e.type === 'TaskSucceeded' && e.state?.name === 'FinishFailedStep')?.state?.output as { error?: string; cause?: string } | undefined;
    expect(firstAttempt?.error).toBe('StepInterrupted');
    expect(firstAttempt?.cause).toMatch(/EvictionByEvictionAPI/);
    expect(firstAttempt?.cause).toMatch(/This was attempt 1 of 3: the step is tried again/);
  }, 90_000);
});
