import type { Pod } from './objects.js';
import { collectOrphans } from './pod-gc.js';
import { ObjectStore, type StoreEvent } from './store.js';

const now = () => new Date('2026-01-01T00:00:05Z');

function pod(name: string, nodeName: string | undefined, phase: NonNullable<Pod['status']>['phase']): Pod {
  return { metadata: { name, namespace: 'ci' }, spec: { containers: [{ name: 'step', image: 'alpine' }], ...(nodeName ? { nodeName } : {}) }, status: { phase } };
}

function storeWith(...pods: Pod[]): { store: ObjectStore; events: StoreEvent[] } {
  const store = new ObjectStore(now);
  for (const p of pods) store.create('pods', p);
  const events: StoreEvent[] = [];
  store.subscribe((e) => events.push(e));
  return { store, events };
}

test("a gone node's pods: the running one marked Failed with DisruptionTarget then deleted, a finished one deleted as it is", () => {
  const { store, events } = storeWith(pod('running', 'gone', 'Running'), pod('done', 'gone', 'Succeeded'), pod('elsewhere', 'other', 'Running'), pod('unbound', undefined, 'Pending'));
  collectOrphans({ store, now }, 'gone');
  expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([
    ['DELETED', 'done'],
    ['MODIFIED', 'running'],
    ['DELETED', 'running'],
  ]);
  const marked = events[1]!.object as Pod;
  expect(marked.status).toEqual({
    phase: 'Failed',
    conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:05Z' }],
  });
  expect(store.list('pods').map((p) => p.metadata.name)).toEqual(['elsewhere', 'unbound']);
});

test('a node that is back (or was never gone) keeps its pods', () => {
  const { store, events } = storeWith(pod('running', 'here', 'Running'));
  store.create('nodes', { metadata: { name: 'here' } });
  collectOrphans({ store, now }, 'here');
  expect(events.map((e) => e.resource)).toEqual(['nodes']);
});
