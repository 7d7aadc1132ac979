/**
 * Keeps each step's pod status and events for the console page. PollStep reads the pod and its
 * events but hands on only the classified status; the page wants the kubelet's own events
 * (Scheduled, Pulling, Failed with the registry's words, BackOff...), so after each LaunchStep and
 * PollStep this reads them again through lib/kube's observeStep, and once more after the step
 * ends: the pod is deleted by then, but its events stay in the cluster and their counts are final.
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import { observeStep } from '../../kube/index.js';
import type { PollState } from '../../workflow/state-data.js';
import type { LocalExecutions } from './executions.js';
import type { ExecutionChange } from '../../console/execution-view.js';
import { podView, type StepPodView } from '../../console/pod-view.js';

const OBSERVED_AFTER = new Set(['LaunchStep', 'PollStep', 'FinishStep', 'FinishFailedStep', 'LaunchAfterFailure', 'PollAfterFailure', 'FinishAfterFailure']);

/** Observes until the function it returns is called; that resolves once the reads under way have ended (`serve`'s close() waits for them). */
export function observeStepPods(executions: LocalExecutions, kube: () => Promise<CoreV1Api>, onError?: (message: string) => void): () => Promise<void> {
  // Reads run side by side; `reads` counts them so that only the newest one started is recorded
  // and an older, slower read never overwrites what a newer one saw.
  const pods = new Map<string, { namespace: string; podName: string; last?: StepPodView; reads: number }>();
  const reading = new Set<Promise<void>>();

  const onChange = (change: ExecutionChange) => {
    if (change.kind !== 'event') return;
    const { event } = change;
    if (event.type !== 'StateExited' || event.index === undefined || !OBSERVED_AFTER.has(event.state?.name ?? '')) return;
    const key = `${change.name}\u0000${event.index}`;
    const output = event.state?.output as { namespace?: string; poll?: PollState } | undefined;
    if (output?.poll?.podName && output.namespace) {
      const known = pods.get(key);
      if (!known) pods.set(key, { namespace: output.namespace, podName: output.poll.podName, reads: 0 });
    }
    const pod = pods.get(key);
    if (!pod) return;
    const read = ++pod.reads;
    const under = (async () => {
      try {
        const observation = await observeStep(await kube(), pod.namespace, pod.podName, { retry: { maxAttempts: 1 } });
        if (pod.reads !== read) return;
        pod.last = podView(pod.podName, observation, pod.last);
        executions.recordPod(change.name, event.index!, pod.last);
      } catch (error) {
        onError?.(`Could not read pod ${pod.namespace}/${pod.podName} for the console page: ${(error as Error).message}`);
      }
    })();
    reading.add(under);
    void under.finally(() => reading.delete(under));
  };
  const unsubscribe = executions.subscribe(onChange);
  return async () => {
    unsubscribe();
    await Promise.all([...reading]);
  };
}
