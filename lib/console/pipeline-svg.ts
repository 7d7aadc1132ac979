/**
 * The pipeline view as inline SVG: each step a box coloured by its outcome (the step list's status
 * classes) and a link that selects the step, each need an arrow. Redrawn by the server for every
 * live update, as the other regions are. Pure.
 */
import { layoutGraph } from './graph-layout.js';
import { smoothPath } from './graph-svg.js';
import { html, type Html } from './html.js';
import { pipelineGraph, pipelineLayoutInput } from './pipeline-graph.js';
import type { ExecutionModel } from './execution-model.js';
import { OUTCOME_CLASS, OUTCOME_LABELS, type StepSelection } from './step-list.js';

export function pipelineSvg(model: ExecutionModel, selected: StepSelection): Html {
  const graph = pipelineGraph(model);
  if (graph.boxes.length === 0) return html`<p class="muted">No steps yet: PrepareBuild has not finished.</p>`;
  const layout = layoutGraph(pipelineLayoutInput(graph));
  const byId = new Map(graph.boxes.map((box) => [box.id, box]));
  const r = (n: number) => Math.round(n * 10) / 10;
  const selectedKey = selected === null ? '' : String(selected);
  const edges = layout.edges.map((e) => html`<g class="edge need" data-need-from="${byId.get(e.from)?.name}" data-need-to="${byId.get(e.to)?.name}"><path d="${smoothPath(e.points, r)}" marker-end="url(#need-arrow)"/></g>`);
  const boxes = layout.nodes.map((node) => {
    const box = byId.get(node.id)!;
    const left = r(node.x - node.width / 2);
    const top = r(node.y - node.height / 2);
    return html`<a href="?step=${box.key}" data-step="${box.key}"${selectedKey === box.key ? html` aria-current="true"` : ''}><g class="node step-box status-${OUTCOME_CLASS[box.outcome]}" data-pipeline-step="${box.name}" data-outcome="${box.outcome}">
  <title>${box.name}: ${OUTCOME_LABELS[box.outcome]}</title>
  <rect x="${left}" y="${top}" width="${node.width}" height="${node.height}" rx="6"/>
  <text class="name" x="${r(node.x)}" y="${r(node.y - 3)}">${box.name}</text>
  <text class="sub" x="${r(node.x)}" y="${r(node.y + 13)}">${OUTCOME_LABELS[box.outcome]}</text>
</g></a>`;
  });
  return html`<svg class="graph pipeline-graph" viewBox="0 0 ${layout.width} ${layout.height}" width="${layout.width}" height="${layout.height}" role="group" aria-label="Pipeline graph: the steps and what each needs">
<defs>
  <marker id="need-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker>
</defs>
${edges}
${boxes}
</svg>`;
}
