import type { CoreV1Api } from '@kubernetes/client-node';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { StepLogStore } from './step-log-store.js';

/** The I/O a task needs, injected so the same task code runs on Lambda, locally and in tests. */
export interface TaskDeps {
  kube(): Promise<CoreV1Api>;
  logs: StepLogStore;
  now(): Date;
  log: TaskLog;
}

/** The slice of the Powertools logger the tasks use. */
export type TaskLog = Pick<Logger, 'info' | 'warn'>;
