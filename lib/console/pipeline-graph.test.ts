import type { ExecutionModel, StepView } from './execution-model.js';
import { pipelineGraph } from './pipeline-graph.js';

/** The parts of a model the pipeline view reads: the file's order and each step's outcome and needs. */
function model(steps: [string, StepView['outcome'], string[] | null][], skipped: { name: string; at: number }[] = []): ExecutionModel {
  const views = steps.map(([name, outcome, needs], index) => ({ index, name, outcome, needs }) as StepView);
  const listed: ExecutionModel['listed'] = views.map((s) => ({ iteration: s.index }));
  for (const s of skipped) listed.splice(s.at, 0, { skipped: { name: s.name, index: s.at - 1, reason: 'branch main is not production' } });
  return { steps: views, listed } as ExecutionModel;
}
const arrows = (m: ExecutionModel) => {
  const graph = pipelineGraph(m);
  const name = (id: string) => graph.boxes.find((b) => b.id === id)!.name;
  return graph.needs.map((n) => `${name(n.from)} -> ${name(n.to)}`);
};

describe('the pipeline view', () => {
  it('draws the checkout first and an arrow from it to each step that needs nothing else', () => {
    // As PrepareBuild resolves them: `needs: []` is the checkout, the checkout itself needs nothing.
    const m = model([
      ['clone', 'succeeded', []],
      ['lint', 'running', ['clone']],
      ['test', 'waiting', ['clone']],
      ['pack', 'not-run', ['lint', 'test']],
    ]);
    expect(pipelineGraph(m).boxes.map((b) => `${b.name} ${b.outcome} ${b.key}`)).toEqual(['clone succeeded 0', 'lint running 1', 'test waiting 2', 'pack not-run 3']);
    expect(arrows(m)).toEqual(['clone -> lint', 'clone -> test', 'lint -> pack', 'test -> pack']);
  });

  it('chains a file without needs, a skipped step in its place', () => {
    const m = model([['clone', 'succeeded', null], ['build', 'succeeded', null], ['test', 'failed', null]], [{ name: 'deploy', at: 2 }]);
    expect(pipelineGraph(m).boxes.map((b) => `${b.name} ${b.outcome} ${b.key}`)).toEqual(['clone succeeded 0', 'build succeeded 1', 'deploy skipped skipped-1', 'test failed 2']);
    expect(arrows(m)).toEqual(['clone -> build', 'build -> deploy', 'deploy -> test']);
  });
});
