import type { PreparedBuild } from '../../workflow/state-data.js';
import { AFTER_FAILURE_MAP, STEPS_MAP } from './states.js';

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
  /** Lambda* events (lambda-invocations.ts): the function invoked, its memory and the invocation's billed time. */
  lambda?: LambdaInvocation;
};

/** One invocation of a Task state's function, as Lambda bills it (REPORT's Memory Size and Billed Duration). */
export interface LambdaInvocation {
  function: string;
  memoryMb: number;
  billedMs: number;
}

const taskKey = (state: string, index: number | undefined) => `${state}#${index ?? ''}`;

/**
 * The history as the service would show it, from the events aws-local-stepfunctions reports: a
 * Task's TaskSucceeded comes before its StateExited, and RunAfterFailure's iterations are numbered
 * after RunSteps', as listedSteps() lists them. Once the build's failed steps are re-run
 * (RerunSteps), RunSteps' iterations keep the numbers of the steps they run again.
 */
export class ExecutionHistory {
  readonly events: ExecutionEvent[] = [];
  private readonly returned = new Map<string, unknown>();
  private afterFailureFrom = 0;
  /** The step names of PrepareBuild's steps, by iteration. */
  private stepNames: string[] = [];
  /** While RunSteps re-runs steps: each iteration's number in the first run. */
  private rerunIndices: number[] | undefined;

  /** `earlier`: the history so far of the execution this one redrives, kept as it was. */
  constructor(
    private readonly onEvent?: (event: ExecutionEvent) => void,
    earlier: readonly ExecutionEvent[] = [],
  ) {
    for (const event of earlier) {
      this.learn(event);
      this.events.push(event);
    }
  }

  /** What an invocation of a Task state answered Step Functions with. */
  taskReturned(state: string, index: number | undefined, output: unknown): void {
    this.returned.set(taskKey(state, index), output);
  }

  /** An event the service would show; `map`: the Map whose iteration it belongs to. */
  record(event: ExecutionEvent, map: string | undefined): void {
    this.learn(event);
    const shown = event.index === undefined ? event : { ...event, index: this.shownIndex(event.index, map) };
    const key = taskKey(event.state?.name ?? '', event.index);
    if (event.type === 'StateExited' && event.state?.type === 'Task' && this.returned.has(key)) {
      this.push({ type: 'TaskSucceeded', timestamp: event.timestamp, state: { name: event.state.name, type: 'Task', output: this.returned.get(key) }, index: shown.index });
      this.returned.delete(key);
    }
    this.push(shown);
  }

  private learn(event: ExecutionEvent): void {
    if (event.type === 'StateExited' && event.state?.name === 'PrepareBuild') {
      const steps = (event.state.output as Partial<PreparedBuild>)?.steps ?? [];
      this.afterFailureFrom = steps.length;
      this.stepNames = steps.map((step) => step.name);
    }
    if (event.type === 'StateExited' && event.state?.name === 'RerunSteps') {
      const rerun = (event.state.output as Partial<PreparedBuild>)?.steps ?? [];
      this.rerunIndices = rerun.map((step) => this.stepNames.indexOf(step.name));
    }
  }

  /**
   * shownIndex undone, as the history stands: the Map's own index of an iteration shown as
   * `shown`, which a redrive resumes it by (redrive-plan.ts). Good for the Map's last entry.
   */
  iterationIndex(map: string, shown: number | undefined): number | undefined {
    if (shown === undefined) return undefined;
    if (map === AFTER_FAILURE_MAP) return shown - this.afterFailureFrom;
    const rerun = map === STEPS_MAP ? (this.rerunIndices?.indexOf(shown) ?? -1) : -1;
    return rerun >= 0 ? rerun : shown;
  }

  private shownIndex(index: number, map: string | undefined): number | undefined {
    if (map === AFTER_FAILURE_MAP) return this.afterFailureFrom + index;
    if (map === STEPS_MAP && this.rerunIndices) return this.rerunIndices[index] ?? index;
    return index;
  }

  private push(event: ExecutionEvent): void {
    this.events.push(event);
    this.onEvent?.(event);
  }
}
