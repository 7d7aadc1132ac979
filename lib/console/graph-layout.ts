/**
 * Places the state graph with dagre (top to bottom, Map groups as compound nodes). Pure: sizes
 * are estimated from the text, since the server has no fonts to measure with; the page's CSS
 * uses a font stack close enough to these metrics.
 */
import dagre from '@dagrejs/dagre';
import type { GraphEdge, GraphGroup, GraphNode, StateGraph } from './asl-graph.js';

export interface Box {
  /** Centre, as dagre gives it. */
  x: number;
  y: number;
  width: number;
  height: number;
}
export type PlacedNode = GraphNode & Box;
export type PlacedGroup = GraphGroup & Box;
export type PlacedEdge = GraphEdge & { points: { x: number; y: number }[]; labelAt?: { x: number; y: number }; labelWidth?: number };

export interface GraphLayout {
  width: number;
  height: number;
  nodes: PlacedNode[];
  groups: PlacedGroup[];
  edges: PlacedEdge[];
}

/** Pixel metrics shared with the SVG renderer. */
export const Metrics = {
  nameChar: 7.6,
  labelChar: 6.2,
  nodeHeight: 46,
  minNodeWidth: 132,
  terminal: { width: 64, height: 28 },
  exit: { width: 14, height: 14 },
  labelHeight: 16,
  /** Room above a group's first row for its title. */
  groupTitle: 22,
} as const;

export function layoutGraph(graph: StateGraph): GraphLayout {
  const g = new dagre.graphlib.Graph({ compound: true, multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 28, ranksep: 44, edgesep: 14, marginx: 12, marginy: 12 + Metrics.groupTitle });
  g.setDefaultEdgeLabel(() => ({}));

  for (const group of graph.groups) g.setNode(group.id, { width: 0, height: 0 });
  for (const group of graph.groups) if (group.parent) g.setParent(group.id, group.parent);
  for (const node of graph.nodes) {
    g.setNode(node.id, sizeOf(node));
    if (node.parent) g.setParent(node.id, node.parent);
  }
  graph.edges.forEach((edge, i) => {
    const label = edge.label ? { width: edge.label.length * Metrics.labelChar + 8, height: Metrics.labelHeight, labelpos: 'c' as const } : {};
    // A loop back (Default -> WaitForStep) or a Catch should not pull the main path out of line.
    const weight = edge.kind === 'catch' || edge.kind === 'default' ? 1 : 3;
    g.setEdge(edge.from, edge.to, { ...label, weight, minlen: 1 }, String(i));
  });

  dagre.layout(g);

  const nodes = graph.nodes.map((node) => ({ ...node, ...box(g.node(node.id)) }));
  const groups = graph.groups.map((group) => {
    const placed = box(g.node(group.id));
    // Extend the group upwards so its title sits above its first state.
    return { ...group, ...placed, y: placed.y - Metrics.groupTitle / 2, height: placed.height + Metrics.groupTitle };
  });
  const edges = graph.edges.map((edge, i) => {
    const placed = g.edge({ v: edge.from, w: edge.to, name: String(i) }) as { points?: { x: number; y: number }[]; x?: number; y?: number; width?: number };
    return {
      ...edge,
      points: placed.points ?? [],
      ...(edge.label && placed.x !== undefined && placed.y !== undefined ? { labelAt: { x: placed.x, y: placed.y }, labelWidth: placed.width ?? 0 } : {}),
    };
  });
  const { width = 0, height = 0 } = g.graph() as { width?: number; height?: number };
  return { width: Math.ceil(width), height: Math.ceil(height), nodes, groups, edges };
}

function sizeOf(node: GraphNode): { width: number; height: number } {
  if (node.kind === 'start' || node.kind === 'end') return { ...Metrics.terminal };
  if (node.kind === 'map-exit') return { ...Metrics.exit };
  return { width: Math.max(Metrics.minNodeWidth, Math.ceil(node.state.length * Metrics.nameChar + 36)), height: Metrics.nodeHeight };
}

function box(label: { x?: number; y?: number; width: number; height: number }): Box {
  return { x: label.x ?? 0, y: label.y ?? 0, width: label.width, height: label.height };
}
