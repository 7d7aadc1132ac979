/**
 * The laid-out graph as inline SVG. Each state is a <g data-node data-scope data-state> whose
 * class names its status, so the page's script can recolour it live (and for another iteration)
 * without redrawing. Pure.
 */
import type { GraphLayout, PlacedEdge, PlacedNode } from './graph-layout.js';
import { Metrics } from './graph-layout.js';
import { html, type Html } from './html.js';
import { STATUS_LABELS, type StateRun } from './state-status.js';

/** How a state is shown: its status and visits, for the top level or the selected iteration. */
export type RunOf = (node: PlacedNode) => StateRun | undefined;

export function graphSvg(layout: GraphLayout, runOf: RunOf): Html {
  const r = (n: number) => Math.round(n * 10) / 10;
  const groups = layout.groups.map(
    (g) => html`<g class="group" data-group="${g.state}">
  <rect x="${r(g.x - g.width / 2)}" y="${r(g.y - g.height / 2)}" width="${r(g.width)}" height="${r(g.height)}" rx="10"/>
  <text x="${r(g.x - g.width / 2 + 10)}" y="${r(g.y - g.height / 2 + 16)}" class="group-title">${g.label}</text>
</g>`,
  );
  const edges = layout.edges.map((e) => edgeSvg(e, r));
  const nodes = layout.nodes.map((n) => nodeSvg(n, runOf(n), r));
  return html`<svg class="graph" viewBox="0 0 ${layout.width} ${layout.height}" width="${layout.width}" height="${layout.height}" role="group" aria-label="State machine graph">
<defs>
  <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker>
</defs>
${groups}
${edges}
${nodes}
</svg>`;
}

function edgeSvg(edge: PlacedEdge, r: (n: number) => number): Html {
  const d = smoothPath(edge.points, r);
  const label =
    edge.label && edge.labelAt
      ? html`<g class="edge-label"><rect x="${r(edge.labelAt.x - (edge.labelWidth ?? 0) / 2)}" y="${r(edge.labelAt.y - Metrics.labelHeight / 2)}" width="${r(edge.labelWidth ?? 0)}" height="${Metrics.labelHeight}" rx="3"/><text x="${r(edge.labelAt.x)}" y="${r(edge.labelAt.y + 4)}">${edge.label}</text></g>`
      : '';
  return html`<g class="edge edge-${edge.kind}"><path d="${d}" marker-end="url(#arrow)"/>${label}</g>`;
}

/** Through dagre's points with rounded bends: each bend becomes a curve to the next midpoint. */
export function smoothPath(points: { x: number; y: number }[], r: (n: number) => number): string {
  if (points.length === 0) return '';
  const at = (p: { x: number; y: number }) => `${r(p.x)},${r(p.y)}`;
  let d = `M${at(points[0]!)}`;
  for (let i = 1; i < points.length - 1; i++) {
    const bend = points[i]!;
    const next = points[i + 1]!;
    d += ` Q${at(bend)} ${at({ x: (bend.x + next.x) / 2, y: (bend.y + next.y) / 2 })}`;
  }
  return points.length > 1 ? `${d} L${at(points.at(-1)!)}` : d;
}

function nodeSvg(node: PlacedNode, run: StateRun | undefined, r: (n: number) => number): Html {
  const left = r(node.x - node.width / 2);
  const top = r(node.y - node.height / 2);
  if (node.kind === 'map-exit') {
    return html`<g class="node exit" data-exit="${node.state}"><circle cx="${r(node.x)}" cy="${r(node.y)}" r="5"/></g>`;
  }
  if (node.kind === 'start' || node.kind === 'end') {
    return html`<g class="node terminal"><rect x="${left}" y="${top}" width="${node.width}" height="${node.height}" rx="14"/><text x="${r(node.x)}" y="${r(node.y + 4)}">${node.kind === 'start' ? 'Start' : 'End'}</text></g>`;
  }
  const status = run?.status ?? 'not-run';
  return html`<g class="node state status-${status}" data-node="${node.id}" data-scope="${node.scope}" data-state="${node.state}" data-type="${node.type}">
  <title>${node.state} (${node.type})</title>
  <rect x="${left}" y="${top}" width="${node.width}" height="${node.height}" rx="6"/>
  <text class="name" x="${r(node.x)}" y="${r(node.y - 3)}">${node.state}</text>
  <text class="sub" x="${r(node.x)}" y="${r(node.y + 13)}">${subLine(node.type, run)}</text>
</g>`;
}

/** "Task · succeeded", "Wait · in progress · 4×": the status in words, not only in colour. */
export function subLine(type: string, run: StateRun | undefined): string {
  const status = STATUS_LABELS[run?.status ?? 'not-run'];
  return [type, status, run && run.visits > 1 ? `${run.visits}×` : ''].filter(Boolean).join(' · ');
}
