import type { Logger } from '@aws-lambda-powertools/logger';

/** The slice of the Powertools logger the tasks use: a module of its own, so the tasks' helpers can log without depending on everything a task is given. */
export type TaskLog = Pick<Logger, 'info' | 'warn'>;
