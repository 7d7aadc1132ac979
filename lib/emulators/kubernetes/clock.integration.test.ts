/** Every time the embedded cluster writes or reports comes from the clock it is given. */
import { waitFor } from '../../../test/fixtures/wait-for.js';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from './index.js';
import type { CoreEvent, KubeObject, PersistentVolumeClaim, Pod } from './objects.js';

const PINNED = '2021-02-03T04:05:06Z';
let cluster: EmbeddedCluster;

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS, now: () => new Date(PINNED) });
});

afterAll(async () => {
  await cluster?.stop();
});

/** The pod once it has succeeded; a test failure naming what it last was after the deadline. */
async function succeeded(name: string): Promise<Pod> {
  return waitFor(
    async () => {
      const pod = await get<Pod>(`/api/v1/namespaces/default/pods/${name}`);
      if (pod.status?.phase === 'Succeeded') return pod;
      throw new Error(`pod ${name} is ${pod.status?.phase ?? 'without a phase'}: ${JSON.stringify(pod.status?.containerStatuses?.[0]?.state ?? null)}`);
    },
    { timeoutMs: 10_000, what: `pod ${name} to succeed` },
  );
}

async function get<T>(path: string, accept = 'application/json'): Promise<T> {
  const res = await fetch(`${cluster.url}${path}`, { headers: { Accept: accept } });
  return (accept === 'text/plain' ? await res.text() : await res.json()) as T;
}

test('timestamps, pull durations, log times and AGE all read the injected clock', async () => {
  const body = { metadata: { name: 'pinned' }, spec: { containers: [{ name: 'step', image: 'alpine:3.20', imagePullPolicy: 'Always', command: ['/bin/sh', '-c', 'echo hi'] }] } };
  await fetch(`${cluster.url}/api/v1/namespaces/default/pods`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const pod = await succeeded('pinned');

  const terminated = pod.status?.containerStatuses?.[0]?.state.terminated;
  expect([pod.metadata.creationTimestamp, pod.status?.startTime, terminated?.startedAt, terminated?.finishedAt]).toEqual([PINNED, PINNED, PINNED, PINNED]);
  expect(new Set(pod.status?.conditions?.map((c) => c.lastTransitionTime))).toEqual(new Set([PINNED]));

  const events = (await get<{ items: CoreEvent[] }>('/api/v1/namespaces/default/events')).items;
  expect(events.length).toBeGreaterThan(0);
  // The kubelet's events carry first and last timestamps; the scheduler's (events.k8s.io) an eventTime, to the microsecond.
  expect(new Set(events.flatMap((e) => [e.firstTimestamp, e.lastTimestamp]).filter((t) => t !== null))).toEqual(new Set([PINNED]));
  expect(events.filter((e) => e.reportingComponent === 'default-scheduler').map((e) => e.eventTime)).toEqual(['2021-02-03T04:05:06.000000Z']);
  expect(events.find((e) => e.reason === 'Pulled')?.message).toMatch(/ in 0ms \(0ms including waiting\)\./);

  expect(await get<string>('/api/v1/namespaces/default/pods/pinned/log?timestamps=true', 'text/plain')).toBe('2021-02-03T04:05:06.000000000Z hi\n');
  const table = await get<{ rows: { cells: unknown[] }[] }>('/api/v1/namespaces/default/pods/pinned', 'application/json;as=Table;v=v1;g=meta.k8s.io');
  expect(table.rows[0]?.cells[4]).toBe('0s');
  const namespace = await get<KubeObject>('/api/v1/namespaces/default');
  expect(namespace.metadata.creationTimestamp).toBe(PINNED);
});

test('claims, their events and their deletion read the injected clock too', async () => {
  const post = (path: string, body: object) => fetch(`${cluster.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  await post('/api/v1/namespaces/default/persistentvolumeclaims', { metadata: { name: 'ws' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
  await post('/api/v1/namespaces/default/pods', {
    metadata: { name: 'holds-ws' },
    spec: { volumes: [{ name: 'ws', persistentVolumeClaim: { claimName: 'ws' } }], containers: [{ name: 'step', image: 'alpine:3.20', command: ['true'] }] },
  });
  await succeeded('holds-ws');

  // Held by the pod, the deleted claim stays, with its deletion time.
  await fetch(`${cluster.url}/api/v1/namespaces/default/persistentvolumeclaims/ws`, { method: 'DELETE' });
  const claim = await get<PersistentVolumeClaim>('/api/v1/namespaces/default/persistentvolumeclaims/ws');
  expect([claim.status?.phase, claim.metadata.creationTimestamp, claim.metadata.deletionTimestamp]).toEqual(['Bound', PINNED, PINNED]);
  const events = (await get<{ items: CoreEvent[] }>('/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DPersistentVolumeClaim')).items;
  expect(events.map((e) => e.reason)).toEqual(['WaitForFirstConsumer', 'ExternalProvisioning', 'Provisioning', 'ProvisioningSucceeded']);
  expect(new Set(events.flatMap((e) => [e.firstTimestamp, e.lastTimestamp]))).toEqual(new Set([PINNED]));
});
