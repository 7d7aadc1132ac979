/**
 * The state machine as a graph, computed from the ASL definition itself (States, Next, Choices,
 * Default, Catch, End), so the page draws whatever the definition says. A Map's ItemProcessor is
 * a group: the Map state heads it, its states sit inside, and its outgoing transitions leave from
 * an exit point at the bottom of the group, as the Step Functions console draws it. Pure.
 */
import type { AslDefinition, AslState } from '../workflow/definition.js';

/** Where a state lives: "" for the top level, else the Map state whose iterations run it. */
export type Scope = string;

export interface GraphNode {
  id: string;
  kind: 'start' | 'end' | 'state' | 'map-exit';
  /** The state's name (empty for start, end and exits). */
  state: string;
  scope: Scope;
  /** The ASL Type: Task, Choice, Wait, Map, Fail, Succeed, Pass, Parallel. */
  type: string;
  /** The group (a Map's id) the node is drawn inside. */
  parent?: string;
}

export interface GraphEdge {
  from: string;
  to: string;
  kind: 'next' | 'choice' | 'default' | 'catch' | 'end';
  label?: string;
}

export interface GraphGroup {
  id: string;
  /** The Map state the group belongs to. */
  state: string;
  label: string;
  /** The enclosing group, for a Map inside a Map. */
  parent?: string;
}

export interface StateGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  groups: GraphGroup[];
}

export const nodeId = (scope: Scope, state: string) => (scope ? `${scope}/${state}` : state);
const groupId = (map: string) => `group:${map}`;
const exitId = (map: string) => `exit:${map}`;

export function stateGraph(definition: AslDefinition): StateGraph {
  const graph: StateGraph = { nodes: [], edges: [], groups: [] };
  graph.nodes.push({ id: 'start', kind: 'start', state: '', scope: '', type: 'Start' });
  graph.nodes.push({ id: 'end', kind: 'end', state: '', scope: '', type: 'End' });
  graph.edges.push({ from: 'start', to: nodeId('', definition.StartAt), kind: 'next' });
  addMachine(graph, definition, '', undefined, 'end');
  return graph;
}

/**
 * Adds one machine's states. `exit` is where its terminal states (End: true, Succeed, Fail) lead:
 * the End node at the top level, the Map's exit point inside an iteration.
 */
function addMachine(graph: StateGraph, machine: AslDefinition, scope: Scope, parent: string | undefined, exit: string): void {
  for (const [name, state] of Object.entries(machine.States)) {
    const id = nodeId(scope, name);
    graph.nodes.push({ id, kind: 'state', state: name, scope, type: state.Type, ...(parent ? { parent } : {}) });
    // Transitions leave a Map from the bottom of its group, after its iterations.
    const from = state.ItemProcessor ? exitId(nodeId(scope, name)) : id;
    if (state.ItemProcessor) addMap(graph, name, state.ItemProcessor, scope, parent);
    for (const edge of transitions(state)) {
      graph.edges.push({ from, to: edge.to === null ? exit : nodeId(scope, edge.to), kind: edge.kind, ...(edge.label ? { label: edge.label } : {}) });
    }
  }
}

function addMap(graph: StateGraph, name: string, processor: AslDefinition, scope: Scope, parent: string | undefined): void {
  const mapNode = nodeId(scope, name);
  const group = groupId(mapNode);
  graph.groups.push({ id: group, state: name, label: `${name}: one iteration per item`, ...(parent ? { parent } : {}) });
  // The Map state itself heads its group, so edges into the Map meet a box, not the group's border.
  const head = graph.nodes.find((n) => n.id === mapNode)!;
  head.parent = group;
  const exit = exitId(mapNode);
  graph.nodes.push({ id: exit, kind: 'map-exit', state: name, scope, type: 'MapExit', parent: group });
  graph.edges.push({ from: mapNode, to: nodeId(name, processor.StartAt), kind: 'next' });
  addMachine(graph, processor, name, group, exit);
}

interface Transition {
  to: string | null;
  kind: GraphEdge['kind'];
  label?: string;
}

/** Every way out of a state; `to: null` ends its machine. */
export function transitions(state: AslState): Transition[] {
  const out: Transition[] = [];
  const choices = Array.isArray(state.Choices) ? (state.Choices as Record<string, unknown>[]) : [];
  for (const choice of choices) {
    if (typeof choice.Next === 'string') out.push({ to: choice.Next, kind: 'choice', label: choiceLabel(choice) });
  }
  if (typeof state.Default === 'string') out.push({ to: state.Default, kind: 'default', label: 'Default' });
  if (typeof state.Next === 'string') out.push({ to: state.Next, kind: 'next' });
  const catchers = Array.isArray(state.Catch) ? (state.Catch as Record<string, unknown>[]) : [];
  for (const catcher of catchers) {
    if (typeof catcher.Next !== 'string') continue;
    // A catcher that goes where Next goes still shows: a failure takes that path too.
    const errors = Array.isArray(catcher.ErrorEquals) ? catcher.ErrorEquals.join(', ') : 'error';
    out.push({ to: catcher.Next, kind: 'catch', label: `Catch #${catchers.indexOf(catcher) + 1}: ${errors}` });
  }
  if (state.End === true || state.Type === 'Succeed' || state.Type === 'Fail') out.push({ to: null, kind: 'end' });
  return out;
}

/** A readable condition: `$.poll.phase == "succeeded"`, `not(...)`, `and(...)`. */
export function choiceLabel(rule: Record<string, unknown>): string {
  if (Array.isArray(rule.And)) return (rule.And as Record<string, unknown>[]).map(choiceLabel).join(' and ');
  if (Array.isArray(rule.Or)) return (rule.Or as Record<string, unknown>[]).map(choiceLabel).join(' or ');
  if (rule.Not && typeof rule.Not === 'object') return `not (${choiceLabel(rule.Not as Record<string, unknown>)})`;
  if (typeof rule.Condition === 'string') return rule.Condition;
  const variable = typeof rule.Variable === 'string' ? rule.Variable : '?';
  const operator = Object.keys(rule).find((key) => key !== 'Variable' && key !== 'Next' && key !== 'Comment');
  if (!operator) return variable;
  const value = rule[operator];
  const symbol = OPERATORS.find(([suffix]) => operator.endsWith(suffix))?.[1] ?? operator;
  return `${variable} ${symbol} ${JSON.stringify(value)}`;
}

const OPERATORS: [string, string][] = [
  ['GreaterThanEquals', '>='],
  ['LessThanEquals', '<='],
  ['GreaterThan', '>'],
  ['LessThan', '<'],
  ['Equals', '=='],
  ['Matches', 'matches'],
  ['IsPresent', 'is present:'],
  ['IsNull', 'is null:'],
];
