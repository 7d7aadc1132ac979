/**
 * Step Functions starts no further Map iteration once one has failed. aws-local-stepfunctions
 * (3.0.0) goes on starting queued iterations after a failure (and runs those it no longer aborts),
 * which would create later steps' pods. So an iteration's first task is refused once an iteration
 * of the Map has failed; while one may be failing (its task threw, and a retry may still follow),
 * it waits to know. The refusal is recorded in `refused`, and the refused iteration's events are
 * left out of the history the service would show.
 */
import { iterationMaps, type AslDefinition } from '../../workflow/definition.js';
import type { StepInput, StepResult } from '../../workflow/state-data.js';
import type { ExecutionEvent } from './execution-history.js';
import { FAILING_FINISH, STEPS_MAP } from './states.js';

/** A Map iteration refused at its first task: the step index and the state that was refused. */
export interface RefusedIteration {
  index: number;
  state: string;
}

class StepNotLaunched extends Error {
  override readonly name = 'StepNotLaunched';
}

type TaskHandler = (event: unknown) => Promise<unknown>;

/** Every Map's gate, the Task handlers they guard, and the history events they hold back. */
export class IterationGates {
  readonly refused: RefusedIteration[] = [];
  private readonly mapOf: ReadonlyMap<string, string>;
  private readonly gates: Map<string, IterationGate>;
  // An iteration's events before its first task are held until the gate has let it run (or not).
  private readonly held = new Map<string, ExecutionEvent[]>();

  /** `show`: where an event the service would show goes, with the Map it belongs to. */
  constructor(
    definition: AslDefinition,
    private readonly show: (event: ExecutionEvent, map: string | undefined) => void,
  ) {
    this.mapOf = iterationMaps(definition);
    this.gates = new Map([...new Set(this.mapOf.values())].map((map) => [map, iterationGate()]));
    for (const [map, gate] of this.gates) {
      gate.onDecision((index, run) => {
        const events = this.held.get(heldKey(map, index)) ?? [];
        this.held.delete(heldKey(map, index));
        if (run) events.forEach((event) => this.show(event, map));
      });
    }
  }

  /** The Task state's handler, refused for an iteration that Step Functions would not start. */
  guard(state: string, handler: TaskHandler): TaskHandler {
    const gate = this.gateOf(this.mapOf.get(state));
    return async (event) => {
      const index = (event as Partial<StepInput>).index;
      if (index !== undefined && !(await gate.mayRun(index))) {
        this.refused.push({ index, state });
        throw new StepNotLaunched(`step ${index} was not launched: another step failed`);
      }
      let output: unknown;
      try {
        output = await handler(event);
      } catch (error) {
        if (index !== undefined) gate.threw(index);
        throw error;
      }
      // The iteration goes on to StepFailed (the Map fails), unless the step is tried again
      // (RetryStep) or is a combination of a matrix with fail-fast: false, whose iteration ends
      // with its failure and fails nothing (KeepGoing, CombinationFailed).
      const retried = (output as Partial<StepResult> | undefined)?.nextAttempt !== undefined;
      const keepsGoing = (event as Partial<StepInput>).step?.matrix?.failFast === false;
      if (index !== undefined && state === FAILING_FINISH && !retried && !keepsGoing) gate.failed();
      return output;
    };
  }

  /** An event of aws-local-stepfunctions: shown, held until its iteration is decided, or dropped. */
  admit(event: ExecutionEvent): void {
    const index = event.index;
    const map = event.parentState?.name ?? this.mapOf.get(event.state?.name ?? '');
    if (index === undefined || map === undefined) {
      this.show(event, map);
      return;
    }
    const gate = this.gateOf(map);
    if (event.type === 'MapIterationFailed') gate.iterationFailed(index);
    const decision = gate.decision(index);
    if (decision === 'refused') return;
    if (decision === undefined) this.held.set(heldKey(map, index), [...(this.held.get(heldKey(map, index)) ?? []), event]);
    else this.show(event, map);
  }

  /** The execution has ended: iterations stopped before their first task, which the service would not have started. */
  close(): void {
    for (const gate of this.gates.values()) gate.close();
    this.held.clear();
  }

  private gateOf(map: string | undefined): IterationGate {
    return this.gates.get(map ?? '') ?? this.gates.get(STEPS_MAP)!;
  }
}

const heldKey = (map: string, index: number) => `${map}#${index}`;

type GateDecision = 'run' | 'refused';
type IterationGate = ReturnType<typeof iterationGate>;

/**
 * Which iterations of one Map may start: all, until one has failed. An iteration whose task threw
 * is suspect until it runs another task (a retry) or the Map reports it failed; an iteration that
 * would start meanwhile waits for that.
 */
function iterationGate() {
  const decisions = new Map<number, GateDecision>();
  const suspects = new Set<number>();
  let mapFailed = false;
  let closed = false;
  let wake: () => void = () => {};
  let changed = new Promise<void>((resolve) => (wake = resolve));
  const notify = () => {
    wake();
    changed = new Promise<void>((resolve) => (wake = resolve));
  };
  let onDecision: (index: number, run: boolean) => void = () => {};
  const decide = (index: number, decision: GateDecision) => {
    decisions.set(index, decision);
    onDecision(index, decision === 'run');
    return decision === 'run';
  };
  return {
    async mayRun(index: number): Promise<boolean> {
      suspects.delete(index);
      const known = decisions.get(index);
      if (known !== undefined) return known === 'run';
      while (!mapFailed && !closed && suspects.size > 0) await changed;
      return decide(index, mapFailed || closed ? 'refused' : 'run');
    },
    decision: (index: number) => decisions.get(index),
    threw(index: number) {
      suspects.add(index);
      notify();
    },
    iterationFailed(index: number) {
      if (decisions.get(index) !== 'run') return;
      mapFailed = true;
      notify();
    },
    failed() {
      mapFailed = true;
      notify();
    },
    close() {
      closed = true;
      notify();
    },
    onDecision(listener: (index: number, run: boolean) => void) {
      onDecision = listener;
    },
  };
}
