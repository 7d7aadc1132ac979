import type { PreparedBuild } from '../../workflow/state-data.js';
import { AFTER_FAILURE_MAP } from './states.js';

/**
 * An event of the execution history, as aws-local-stepfunctions reports it, plus TaskSucceeded
 * (what a task returned, before ResultSelector and ResultPath) as Step Functions records it.
 */
export type ExecutionEvent = {
  type: string;
  timestamp: number;
  state?: { name: string; type: string; input?: unknown; output?: unknown };
  index?: number;
  /** MapIteration* events: the Map the iteration belongs to. */
  parentState?: { name: string; type: string };
  Error?: string;
  Cause?: unknown;
  output?: unknown;
};

const taskKey = (state: string, index: number | undefined) => `${state}#${index ?? ''}`;

/**
 * The history as the service would show it, from the events aws-local-stepfunctions reports: a
 * Task's TaskSucceeded comes before its StateExited, and RunAfterFailure's iterations are numbered
 * after RunSteps', as listedSteps() lists them.
 */
export class ExecutionHistory {
  readonly events: ExecutionEvent[] = [];
  private readonly returned = new Map<string, unknown>();
  private afterFailureFrom = 0;

  constructor(private readonly onEvent?: (event: ExecutionEvent) => void) {}

  /** What an invocation of a Task state answered Step Functions with. */
  taskReturned(state: string, index: number | undefined, output: unknown): void {
    this.returned.set(taskKey(state, index), output);
  }

  /** An event the service would show; `map`: the Map whose iteration it belongs to. */
  record(event: ExecutionEvent, map: string | undefined): void {
    if (event.type === 'StateExited' && event.state?.name === 'PrepareBuild') {
      this.afterFailureFrom = (event.state.output as Partial<PreparedBuild>)?.steps?.length ?? 0;
    }
    const shown = map === AFTER_FAILURE_MAP && event.index !== undefined ? { ...event, index: this.afterFailureFrom + event.index } : event;
    const key = taskKey(event.state?.name ?? '', event.index);
    if (event.type === 'StateExited' && event.state?.type === 'Task' && this.returned.has(key)) {
      this.push({ type: 'TaskSucceeded', timestamp: event.timestamp, state: { name: event.state.name, type: 'Task', output: this.returned.get(key) }, index: shown.index });
      this.returned.delete(key);
    }
    this.push(shown);
  }

  private push(event: ExecutionEvent): void {
    this.events.push(event);
    this.onEvent?.(event);
  }
}
