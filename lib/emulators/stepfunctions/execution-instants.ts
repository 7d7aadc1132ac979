import type { ExecutionEvent } from './execution-history.js';

/** The events that end an execution, as the console lines and the service's history name them. */
export const EXECUTION_ENDS: ReadonlySet<string> = new Set(['ExecutionSucceeded', 'ExecutionFailed', 'ExecutionTimeout', 'ExecutionAborted']);

/**
 * An execution's startedAt and stoppedAt, read from its history (its ExecutionStarted and the event
 * that ended it), so the CLI's "in 8.8s", the summary's times and the console page's duration are
 * one and the same. Undefined while the history does not have the event yet.
 */
export function executionInstants(history: readonly Pick<ExecutionEvent, 'type' | 'timestamp'>[]): { startedAt: Date | undefined; stoppedAt: Date | undefined } {
  const started = history.find((e) => e.type === 'ExecutionStarted');
  const stopped = history.find((e) => EXECUTION_ENDS.has(e.type));
  return { startedAt: started && new Date(started.timestamp), stoppedAt: stopped && new Date(stopped.timestamp) };
}
