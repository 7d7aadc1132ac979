/**
 * The execution history -> how each state ended, at the top level and in each Map iteration, in
 * the Step Functions console's terms: succeeded (green), failed (red), caught (orange: it failed
 * and a Catch took over), in progress (blue), not run (grey), cancelled (the execution stopped
 * while it ran). A state visited many times (the WaitForStep/PollStep loop) shows its last visit.
 * Pure.
 */
import type { ExecutionEvent } from '../emulators/stepfunctions/executor.js';

export type StateStatus = 'succeeded' | 'failed' | 'caught' | 'in-progress' | 'not-run' | 'cancelled';

export interface StateRun {
  status: StateStatus;
  visits: number;
}

export interface IterationStates {
  index: number;
  status: StateStatus;
  states: Record<string, StateRun>;
}

export interface ExecutionStates {
  top: Record<string, StateRun>;
  /** By Map iteration index. */
  iterations: IterationStates[];
}

export const STATUS_LABELS: Record<StateStatus, string> = {
  succeeded: 'succeeded',
  failed: 'failed',
  caught: 'caught error',
  'in-progress': 'in progress',
  'not-run': 'not run',
  cancelled: 'cancelled',
};

/** `running` is false once the execution has ended: a state still entered then never finished. */
export function executionStates(history: readonly ExecutionEvent[], running: boolean): ExecutionStates {
  const top: Record<string, StateRun> = {};
  const iterations = new Map<number, IterationStates>();
  const iteration = (index: number) => {
    let found = iterations.get(index);
    if (!found) iterations.set(index, (found = { index, status: 'not-run', states: {} }));
    return found;
  };

  for (const event of history) {
    switch (event.type) {
      case 'MapIterationStarted':
        iteration(event.index ?? 0).status = 'in-progress';
        continue;
      case 'MapIterationSucceeded':
        iteration(event.index ?? 0).status = 'succeeded';
        continue;
      case 'MapIterationFailed':
        iteration(event.index ?? 0).status = 'failed';
        continue;
    }
    const name = event.state?.name;
    if (!name) continue;
    const states = event.index === undefined ? top : iteration(event.index).states;
    const run = (states[name] ??= { status: 'not-run', visits: 0 });
    switch (event.type) {
      case 'StateEntered':
        run.visits++;
        run.status = 'in-progress';
        break;
      case 'StateRetried':
        run.status = 'in-progress';
        break;
      case 'StateFailed':
        run.status = 'failed';
        break;
      case 'StateCaught':
        run.status = 'caught';
        break;
      case 'StateExited':
        // A caught Map exits too: it stays orange, as in the console.
        if (run.status !== 'caught') run.status = 'succeeded';
        break;
    }
  }

  if (!running) {
    const stop = (run: { status: StateStatus }) => {
      if (run.status === 'in-progress') run.status = 'cancelled';
    };
    Object.values(top).forEach(stop);
    for (const it of iterations.values()) {
      stop(it);
      Object.values(it.states).forEach(stop);
    }
  }
  return { top, iterations: [...iterations.values()].sort((a, b) => a.index - b.index) };
}
