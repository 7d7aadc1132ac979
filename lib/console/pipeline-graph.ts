/**
 * The pipeline as its author wrote it: one box per step (the checkout first when there is one, a
 * skipped step included) and one arrow per resolved need: the steps it names in `needs`, or else
 * the step above it, so a file without `needs` is a chain. Each box has its step's outcome, as the
 * step list says it. Pure, and no HTML: pipeline-svg.ts draws it.
 */
import type { StepOutcome } from '../emulators/stepfunctions/executor.js';
import type { StateGraph } from './asl-graph.js';
import type { ExecutionModel, ListedStepView } from './execution-model.js';
import { skippedKey } from './step-list.js';

export interface PipelineBox {
  /** The graph's node id. */
  id: string;
  name: string;
  /** What selects the step on the page (`data-step`): its iteration, or `skipped-N`. */
  key: string;
  outcome: StepOutcome;
}

export interface PipelineGraph {
  boxes: PipelineBox[];
  /** One per need: `from` must succeed before `to` starts. */
  needs: { from: string; to: string }[];
}

export function pipelineGraph(model: ExecutionModel): PipelineGraph {
  // Without the file's order (an execution recorded before it was kept), the iterations alone.
  const entries: ListedStepView[] = model.listed.length > 0 ? model.listed : model.steps.map((s) => ({ iteration: s.index }));
  const placed = entries.flatMap((entry) => {
    if ('skipped' in entry) {
      const key = skippedKey(entry.skipped);
      return [{ box: { id: `step:${key}`, name: entry.skipped.name, key, outcome: 'skipped' as const }, needs: undefined }];
    }
    const step = model.steps[entry.iteration];
    return step ? [{ box: { id: `step:${step.index}`, name: step.name, key: String(step.index), outcome: step.outcome }, needs: step.needs ?? undefined }] : [];
  });
  const idOf = new Map(placed.map(({ box }) => [box.name, box.id]));
  const needs = placed.flatMap(({ box, needs: named }, position) => {
    // No needs known (a sequential file, or a skipped step, whose needs the state data does not keep): the step above.
    const before = named === undefined ? (position > 0 ? [placed[position - 1]!.box.id] : []) : named.flatMap((name) => idOf.get(name) ?? []);
    return before.filter((from) => from !== box.id).map((from) => ({ from, to: box.id }));
  });
  return { boxes: placed.map(({ box }) => box), needs };
}

/** The same graph in the state graph's terms, so graph-layout.ts places it with dagre as it places the states. */
export function pipelineLayoutInput(graph: PipelineGraph): StateGraph {
  return {
    nodes: graph.boxes.map((box) => ({ id: box.id, kind: 'state', state: box.name, scope: '', type: 'Step' })),
    edges: graph.needs.map((need) => ({ from: need.from, to: need.to, kind: 'next' })),
    groups: [],
  };
}
