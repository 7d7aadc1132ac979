/**
 * An execution as the console page and GET /executions show it: what the local server keeps of
 * each build (lib/local/server/executions.ts) and tells its subscribers.
 */
import type { ExecutionEvent, ExecutionStatus, ExecutionSummary } from '../emulators/stepfunctions/executor.js';
import type { ExecutionIdentity } from '../emulators/stepfunctions/execution-identity.js';
import type { StepPodView } from './pod-view.js';

/** `run --json`'s object; RUNNING until the execution ends. */
export type ExecutionView = Omit<ExecutionSummary, 'status'> & { status: ExecutionStatus | 'RUNNING' };

export type ListedExecution = ExecutionView &
  ExecutionIdentity & {
    /** The execution this one re-ran (POST /executions/NAME/rerun), and the re-runs of this one. */
    rerunOf: string | null;
    reruns: string[];
    /** How many times its failed steps were re-run (POST /executions/NAME/redrive), as Step Functions' redriveCount. */
    redriveCount: number;
    /** Whether "Re-run failed steps" can run it now: it failed with steps to re-run in its kept workspace. */
    redrivable: boolean;
  };

/** What changed, for subscribers (the console page's live updates, the pod observer). */
export type ExecutionChange =
  | { kind: 'started'; name: string }
  | { kind: 'event'; name: string; event: ExecutionEvent }
  | { kind: 'pod'; name: string; index: number }
  | { kind: 'ended'; name: string };

/** One execution as the console page shows it: the listed fields, its whole history and its steps' pods. */
export interface ExecutionDetail {
  execution: ListedExecution;
  history: readonly ExecutionEvent[];
  /** By Map iteration index: the step's pod as last seen (a pod is deleted when its step ends). */
  pods: ReadonlyMap<number, StepPodView>;
  /** By Map iteration index: the end of a running step's log as the log store has it so far. */
  liveLogs?: ReadonlyMap<number, string>;
}

