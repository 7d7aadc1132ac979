/**
 * Events on the embedded cluster in the shapes a real one writes them (test/fixtures/kube/
 * event-shapes.json): the scheduler's through events.k8s.io (eventTime, series, action, reporting
 * controller and instance), read through core/v1 as the apiserver converts them and through
 * events.k8s.io/v1 itself; the kubelet's core/v1 Events counted, and combined from similar ones.
 */
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { SHAPES, eventShape, shapeOf } from './fixtures/kube/event-shapes.js';
import { embeddedClusterForFile } from './fixtures/embedded-cluster.js';
import { waitFor } from './fixtures/wait-for.js';

const NS = 'events';
const kube = embeddedClusterForFile(NS);
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

async function podEvents(pod: string, reason?: string): Promise<CoreV1Event[]> {
  const fieldSelector = `involvedObject.name=${pod}${reason ? `,reason=${reason}` : ''}`;
  return (await kube.api.listNamespacedEvent({ namespace: NS, fieldSelector })).items;
}

/** The raw JSON the API sends, not client-node's reading of it. */
async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(`${kube.cluster.url}${path}`);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

async function eventsOf(pod: string, n: number, what: string, reason = 'FailedScheduling'): Promise<CoreV1Event[]> {
  return waitFor(async () => {
    const events = await podEvents(pod, reason);
    return events.length >= n && events;
  }, { timeoutMs: 10_000, what });
}

function claimingPod(name: string, claims: string[]): V1Pod {
  return {
    metadata: { name },
    spec: {
      restartPolicy: 'Never',
      volumes: claims.map((claimName, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName } })),
      containers: [{ name: 'step', image: 'alpine:3.20', command: ['true'] }],
    },
  };
}

const claim = (name: string) => ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'no-such-class', resources: { requests: { storage: '1Gi' } } } });

describe('the scheduler records through events.k8s.io', () => {
  const notFound = `0/1 nodes are available: persistentvolumeclaim "first" not found. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.`;

  it('FailedScheduling reads through core/v1 with source {}, null timestamps and no count, as the recorded shape', async () => {
    await kube.api.createNamespacedPod({ namespace: NS, body: claimingPod('waits', ['first', 'second']) });
    const [event] = await eventsOf('waits', 1, 'the first FailedScheduling');
    const raw = (await getJson<{ items: Record<string, unknown>[] }>(`/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name%3Dwaits`)).items[0]!;
    expect(shapeOf(raw)).toEqual(shapeOf(eventShape(SHAPES.failedScheduling)));
    expect(raw).toMatchObject({
      reason: 'FailedScheduling',
      type: 'Warning',
      message: notFound,
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      action: 'Scheduling',
      reportingComponent: 'default-scheduler',
      reportingInstance: 'default-scheduler-embedded-control-plane',
    });
    expect(raw).not.toHaveProperty('count');
    expect(raw.eventTime).toMatch(MICRO_TIME);
    expect(event?.metadata?.name).toMatch(/^waits\.[0-9a-f]+$/);
  });

  it('the same event reads through events.k8s.io/v1 as the recorded shape', async () => {
    const list = await getJson<{ kind: string; apiVersion: string; items: Record<string, unknown>[] }>(`/apis/events.k8s.io/v1/namespaces/${NS}/events?fieldSelector=regarding.name%3Dwaits`);
    expect([list.kind, list.apiVersion]).toEqual(['EventList', 'events.k8s.io/v1']);
    const [item] = list.items;
    expect(shapeOf(item)).toEqual(shapeOf(eventShape(SHAPES.failedSchedulingV1)));
    expect(item).toMatchObject({ note: notFound, reportingController: 'default-scheduler', action: 'Scheduling', deprecatedSource: {}, regarding: { kind: 'Pod', name: 'waits' } });
    const one = await getJson<Record<string, unknown>>(`/apis/events.k8s.io/v1/namespaces/${NS}/events/${(item?.metadata as { name: string }).name}`);
    expect(one).toMatchObject({ kind: 'Event', apiVersion: 'events.k8s.io/v1', note: notFound });
  });

  it('a later attempt naming the pod as the first one left it is another Event; the one after, naming it the same, makes it a series', async () => {
    const [first] = await podEvents('waits');
    // Another claim of the pod changes: the scheduler tries again, the verdict is the same.
    await kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claim('second') });
    const [, second] = await eventsOf('waits', 2, 'the second FailedScheduling');
    const pod = await kube.api.readNamespacedPod({ namespace: NS, name: 'waits' });
    // The first attempt's condition update is the resourceVersion the second one names; the same message leaves the pod as it is.
    expect(second?.involvedObject.resourceVersion).toBe(pod.metadata?.resourceVersion);
    expect(first?.involvedObject.resourceVersion).not.toBe(second?.involvedObject.resourceVersion);
    expect(second?.series).toBeUndefined();

    await kube.api.deleteNamespacedPersistentVolumeClaim({ namespace: NS, name: 'second' });
    const series = await waitFor(async () => (await podEvents('waits')).find((e) => e.series), { timeoutMs: 10_000, what: 'a series' });
    expect(series.metadata?.name).toBe(second?.metadata?.name);
    expect(series.series).toEqual({ count: 2, lastObservedTime: expect.stringMatching(MICRO_TIME) });
    expect(Date.parse(String(series.series?.lastObservedTime))).toBeGreaterThanOrEqual(Date.parse(String(series.eventTime)));
    expect(await podEvents('waits')).toHaveLength(2);
    const raw = (await getJson<{ items: Record<string, unknown>[] }>(`/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name%3Dwaits`)).items;
    expect(shapeOf(raw.find((e) => e.series))).toEqual(shapeOf(eventShape(SHAPES.failedSchedulingSeries)));
  });

  it('Scheduled names the pod as it was before the binding, action Binding', async () => {
    await kube.api.createNamespacedPod({ namespace: NS, body: claimingPod('placed', []) });
    const [scheduled] = await eventsOf('placed', 1, 'Scheduled', 'Scheduled');
    expect(scheduled).toMatchObject({ action: 'Binding', message: `Successfully assigned ${NS}/placed to embedded-node`, reportingComponent: 'default-scheduler', source: {}, firstTimestamp: null });
    const pod = await kube.api.readNamespacedPod({ namespace: NS, name: 'placed' });
    expect(Number(scheduled?.involvedObject.resourceVersion)).toBeLessThan(Number(pod.metadata?.resourceVersion));
  });

  it('events.k8s.io is discovered, read-only', async () => {
    const groups = await getJson<{ groups: { name: string }[] }>('/apis');
    expect(groups.groups.map((g) => g.name)).toContain('events.k8s.io');
    const resources = await getJson<{ groupVersion: string; resources: { name: string; verbs: string[] }[] }>('/apis/events.k8s.io/v1');
    expect(resources).toMatchObject({ groupVersion: 'events.k8s.io/v1', resources: [{ name: 'events', verbs: ['get', 'list', 'watch'] }] });
    const post = await fetch(`${kube.cluster.url}/apis/events.k8s.io/v1/namespaces/${NS}/events`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
    expect(post.status).toBe(405);
  });

  it('a watch through events.k8s.io/v1 sends the events in that version', async () => {
    const controller = new AbortController();
    const res = await fetch(`${kube.cluster.url}/apis/events.k8s.io/v1/namespaces/${NS}/events?watch=true&fieldSelector=regarding.name%3Dplaced`, { signal: controller.signal });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\n')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const first = JSON.parse(text.slice(0, text.indexOf('\n'))) as { type: string; object: Record<string, unknown> };
    expect(first).toMatchObject({ type: 'ADDED', object: { apiVersion: 'events.k8s.io/v1', kind: 'Event', reason: 'Scheduled', action: 'Binding' } });
  });
});

describe('the kubelet records core/v1 Events as the legacy recorder', () => {
  it('counts a repeated event on one Event, in the recorded shape', async () => {
    await kube.api.createNamespacedPod({
      namespace: NS,
      body: { metadata: { name: 'no-tag' }, spec: { restartPolicy: 'Never', containers: [{ name: 'step', image: 'alpine:3.99-nope', command: ['true'] }] } },
    });
    const repeated = await waitFor(async () => (await podEvents('no-tag', 'Failed')).find((e) => (e.count ?? 0) >= 2), { timeoutMs: 10_000, what: 'a counted Failed' });
    const raw = (await getJson<{ items: Record<string, unknown>[] }>(`/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name%3Dno-tag`)).items.find((e) => e.metadata && (e.metadata as { name: string }).name === repeated.metadata?.name);
    expect(shapeOf(raw)).toEqual(shapeOf(eventShape(SHAPES.kubeletRepeated)));
    expect(raw).toMatchObject({ source: { component: 'kubelet', host: 'embedded-node' }, eventTime: null, reportingComponent: 'kubelet', reportingInstance: 'embedded-node' });
  });

  it('combines the tenth different message with one reason about one pod into one Event, as on a real cluster', async () => {
    // Eight images that do not exist: eight pull errors, then "Error: ErrImagePull" and "Error: ImagePullBackOff".
    const containers = Array.from({ length: 8 }, (_, i) => ({ name: `c${i}`, image: `alpine:3.99-nope-${i}`, command: ['true'] }));
    await kube.api.createNamespacedPod({ namespace: NS, body: { metadata: { name: 'many' }, spec: { restartPolicy: 'Never', containers } } });
    const combined = await waitFor(async () => (await podEvents('many', 'Failed')).find((e) => e.message?.startsWith('(combined from similar events): ')), {
      timeoutMs: 15_000,
      what: 'a combined Failed event',
    });
    expect(combined).toMatchObject({ type: 'Warning', source: { component: 'kubelet', host: 'embedded-node' }, reportingComponent: '', reportingInstance: '' });
    // Names grow with the recorder's clock: nine different messages had their own Events before it.
    const before = (await podEvents('many', 'Failed')).filter((e) => (e.metadata?.name ?? '') < (combined.metadata?.name ?? ''));
    expect(new Set(before.map((e) => e.message)).size).toBe(9);
    const raw = (await getJson<{ items: Record<string, unknown>[] }>(`/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name%3Dmany,reason%3DFailed`)).items.find((e) =>
      String(e.message).startsWith('(combined'),
    );
    expect(shapeOf(raw)).toEqual(shapeOf(eventShape(SHAPES.kubeletCombined)));
  });
});
