import { evictPod, parseEviction } from './eviction.js';
import type { Pod } from './objects.js';
import { ObjectStore, type StoreEvent } from './store.js';

const now = () => new Date('2026-01-01T00:00:05Z');

test.each([
  ['policy/v1', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'step' } }],
  ['policy/v1beta1', { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: 'step' } }],
  ['no name in the body', { apiVersion: 'policy/v1', kind: 'Eviction' }],
])('an Eviction in %s is taken', (_title, body) => {
  expect(parseEviction(body, 'step')).toBe(body);
});

test.each([
  ['another name', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'other' } }, 'name in URL does not match name in Eviction object'],
  ['another kind', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'step' } }, 'no kind "Pod" is registered for version "v1"'],
  ['another version', { apiVersion: 'policy/v2', kind: 'Eviction' }, 'no kind "Eviction" is registered for version "policy/v2"'],
  ['no object', [], 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml'],
])('%s: 400', (_title, body, message) => {
  expect(() => parseEviction(body, 'step')).toThrow(expect.objectContaining({ code: 400, reason: 'BadRequest', message }));
});

function running(nodeName?: string): { store: ObjectStore; events: StoreEvent[] } {
  const store = new ObjectStore(now);
  store.create('namespaces', { metadata: { name: 'ci' } });
  const pod: Pod = {
    metadata: { name: 'step', namespace: 'ci' },
    spec: { containers: [{ name: 'step', image: 'alpine' }], terminationGracePeriodSeconds: 30, ...(nodeName ? { nodeName } : {}) },
    status: { phase: nodeName ? 'Running' : 'Pending' },
  };
  store.create('pods', pod);
  const events: StoreEvent[] = [];
  store.subscribe((e) => events.push(e));
  return { store, events };
}

test('a bound pod: DisruptionTarget first, then a graceful deletion with the deleteOptions grace period', () => {
  const { store, events } = running('embedded-node');
  expect(evictPod({ store, now }, 'ci', 'step', { deleteOptions: { gracePeriodSeconds: 7 } })).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  expect(events.map((e) => e.type)).toEqual(['MODIFIED', 'MODIFIED']);
  const [marked, deleting] = events.map((e) => e.object as Pod);
  expect(marked?.status?.conditions).toEqual([
    { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:05Z' },
  ]);
  expect(marked?.metadata.deletionTimestamp).toBeUndefined();
  expect(deleting?.metadata).toMatchObject({ deletionTimestamp: '2026-01-01T00:00:12Z', deletionGracePeriodSeconds: 7 });
});

test('an unscheduled pod has nothing to stop: marked, then gone at once', () => {
  const { store, events } = running();
  evictPod({ store, now }, 'ci', 'step', {});
  expect(events.map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']);
});

test('a missing pod: 404', () => {
  const { store } = running();
  expect(() => evictPod({ store, now }, 'ci', 'nope', {})).toThrow(expect.objectContaining({ code: 404, reason: 'NotFound' }));
});
