/**
 * The settings a deployment gives every build, as values: lib/lambda reads them from the
 * function's environment, lib/local from the command line. Nothing here reads process.env.
 */
import { DEFAULT_CLASSIFY_OPTIONS } from '../kube/index.js';

export interface WorkflowSettings {
  /** Where step pods go unless the execution input names another namespace. */
  namespace: string;
  imagePullGraceSeconds: number;
  unschedulableGraceSeconds: number;
  /** How long one PollStep may watch a pending pod for its next change (0: plain polling only). */
  pendingWatchSeconds: number;
}

/**
 * While a pod is pending, a PollStep that holds a watch for up to this long answers the moment
 * the kubelet reports a change (a pull failure above all) and costs three state transitions per
 * watch instead of per second. Bounded well below the Lambda timeout.
 */
export const DEFAULT_PENDING_WATCH_SECONDS = 20;

/** The documented defaults for what a deployment leaves unset; the namespace has none. */
export function workflowSettings(given: Pick<WorkflowSettings, 'namespace'> & Partial<WorkflowSettings>): WorkflowSettings {
  return {
    imagePullGraceSeconds: DEFAULT_CLASSIFY_OPTIONS.imagePullGraceSeconds,
    unschedulableGraceSeconds: DEFAULT_CLASSIFY_OPTIONS.unschedulableGraceSeconds,
    pendingWatchSeconds: DEFAULT_PENDING_WATCH_SECONDS,
    ...given,
  };
}
