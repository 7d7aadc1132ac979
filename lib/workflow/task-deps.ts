import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { WatchedPod } from '../kube/watch-pod.js';
import type { StepLogStore } from './step-log-store.js';

/** The I/O a task needs, injected so the same task code runs on Lambda, locally and in tests. */
export interface TaskDeps {
  kube(): Promise<CoreV1Api>;
  /**
   * Watches one pod until `until(pod)` holds or the time is up (lib/kube/watch-pod.ts); resolves
   * undefined when the watch saw nothing. Without it, PollStep polls plainly.
   */
  watchPod?(namespace: string, podName: string, until: (pod: V1Pod | null) => boolean, timeoutMs: number): Promise<WatchedPod | undefined>;
  logs: StepLogStore;
  now(): Date;
  log: TaskLog;
}

/** The slice of the Powertools logger the tasks use. */
export type TaskLog = Pick<Logger, 'info' | 'warn'>;
