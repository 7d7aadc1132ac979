/**
 * The log of a failed service's run that failed (failedServiceRun): its previous run's once the
 * kubelet has restarted it, which a plain read would miss (it names the new run, often still
 * empty), else its current one's; the current one's too when the previous read finds nothing. The
 * kubelet may restart the service between the look at the pod and the read: a second look that
 * shows a restart since (sameServiceRuns) makes the read start over from that look, a few times at
 * most (a service that keeps exiting is soon in the kubelet's back-off, 10 s and more).
 */
import { failedServiceRun, sameServiceRuns, type StepCluster } from '../kube/index.js';

const MAX_READS = 3;

export async function readFailedServiceLog(cluster: StepCluster, namespace: string, podName: string, service: string): Promise<string> {
  let seen = await cluster.observePod(namespace, podName);
  let text = '';
  for (let read = 1; read <= MAX_READS; read += 1) {
    const previous = failedServiceRun(seen.pod, seen.events, service) === 'previous';
    text = (previous ? await cluster.readLog(namespace, podName, service, { previous: true }) : '') || (await cluster.readLog(namespace, podName, service));
    const after = await cluster.observePod(namespace, podName);
    if (!after.pod || sameServiceRuns(seen.pod, after.pod, service)) return text;
    seen = after;
  }
  return text;
}
