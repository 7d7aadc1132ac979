/**
 * The embedded cluster through @kubernetes/client-node, over real HTTP on loopback: what lib/kube
 * and users see of pods, events, logs, errors, selectors and watches.
 * On the process runtime: pull failures in the catalog's words, a stopped shell ending 143 at
 * once, pids of this machine.
 */
import { CoreV1Api, Watch, type CoreV1Event, type V1Pod } from '@kubernetes/client-node';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster, type Fault } from '../lib/emulators/kubernetes/index.js';
import { waitFor } from './fixtures/wait-for.js';
import { apiError } from './fixtures/api-error.js';

const NS = 'default';
let cluster: EmbeddedCluster;
let api: CoreV1Api;

beforeAll(async () => {
  cluster = await startEmbeddedCluster({
    timings: FAST_TIMINGS,
    namespaces: ['ci'],
    images: [
      { image: 'registry.example.com/team/private-tool:1', private: true },
      { image: 'docker.io/library/flaky:1', failFirstPulls: { count: 2 } },
    ],
  });
  api = cluster.kubeConfig().makeApiClient(CoreV1Api);
});

afterAll(async () => {
  await cluster?.stop();
});

function podBody(name: string, script: string, extra: Partial<V1Pod['spec']> & { image?: string; labels?: Record<string, string> } = {}): V1Pod {
  const { image = 'alpine:3.20', labels, ...spec } = extra;
  return {
    metadata: { name, labels },
    spec: { restartPolicy: 'Never', containers: [{ name: 'step', image, command: ['/bin/sh', '-c', script] }], ...spec },
  };
}

async function waitForPod(name: string, done: (pod: V1Pod) => boolean, namespace = NS, timeoutMs = 8000): Promise<V1Pod> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const pod = await api.readNamespacedPod({ namespace, name });
    if (done(pod)) return pod;
    if (Date.now() > until) throw new Error(`pod ${name} never got there: ${JSON.stringify(pod.status)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function podEvents(name: string, namespace = NS): Promise<CoreV1Event[]> {
  const list = await api.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` });
  return list.items;
}


const terminated = (pod: V1Pod) => pod.status?.containerStatuses?.[0]?.state?.terminated;

test('a pod runs its command as a local process: Succeeded, exit 0, its output in the log, events in order', async () => {
  await api.createNamespacedPod({ namespace: NS, body: podBody('hello', 'echo hello; echo oops >&2') });
  const pod = await waitForPod('hello', (p) => p.status?.phase === 'Succeeded');
  expect(terminated(pod)).toMatchObject({ exitCode: 0, reason: 'Completed' });
  expect(pod.spec?.nodeName).toBe('embedded-node');
  expect(pod.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status).toBe('True');

  expect(await api.readNamespacedPodLog({ namespace: NS, name: 'hello' })).toBe('hello\noops\n');
  expect(await api.readNamespacedPodLog({ namespace: NS, name: 'hello', tailLines: 1 })).toBe('oops\n');
  expect(await api.readNamespacedPodLog({ namespace: NS, name: 'hello', limitBytes: 3 })).toBe('hel');

  const events = await podEvents('hello');
  expect(events.map((e) => e.reason)).toEqual(['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started']);
  const [scheduled, , pulled] = events;
  // Through events.k8s.io, as the scheduler writes: read through core/v1 the reporter is reportingComponent, the source empty.
  expect(scheduled).toMatchObject({ type: 'Normal', source: {}, reportingComponent: 'default-scheduler', action: 'Binding', message: 'Successfully assigned default/hello to embedded-node' });
  expect(pulled?.message).toMatch(/^Successfully pulled image "alpine:3\.20" in \d+ms \(\d+ms including waiting\)\. Image size: \d+ bytes\.$/);
  expect(pulled?.involvedObject).toMatchObject({ kind: 'Pod', name: 'hello', namespace: NS, uid: pod.metadata?.uid, fieldPath: 'spec.containers{step}' });
  expect(pulled?.metadata?.name).toMatch(/^hello\.[0-9a-f]+$/);
});

test('follow=true streams the log until the container ends', async () => {
  await api.createNamespacedPod({ namespace: NS, body: podBody('chatty', 'echo first; sleep 0.3; echo second') });
  await waitForPod('chatty', (p) => p.status?.phase === 'Running');
  const res = await fetch(`${cluster.url}/api/v1/namespaces/${NS}/pods/chatty/log?follow=true`);
  expect(await res.text()).toBe('first\nsecond\n');
  expect((await api.readNamespacedPod({ namespace: NS, name: 'chatty' })).status?.phase).toBe('Succeeded');
});

test('a non-zero exit fails the pod with that exit code', async () => {
  await api.createNamespacedPod({ namespace: NS, body: podBody('exit-three', 'echo failing; exit 3') });
  const pod = await waitForPod('exit-three', (p) => p.status?.phase === 'Failed');
  expect(terminated(pod)).toMatchObject({ exitCode: 3, reason: 'Error' });
});

test('an unknown tag: ErrImagePull then ImagePullBackOff with containerd wording, repeated events aggregated', async () => {
  const reasons: string[] = [];
  const seenReasons = new Promise<void>((resolve, reject) => {
    void new Watch(cluster.kubeConfig())
      .watch(`/api/v1/namespaces/${NS}/pods`, { fieldSelector: 'metadata.name=no-such-tag' }, (_type, pod: V1Pod) => {
        const reason = pod.status?.containerStatuses?.[0]?.state?.waiting?.reason;
        if (reason && reasons.at(-1) !== reason) reasons.push(reason);
        if (reasons.filter((r) => r === 'ImagePullBackOff').length >= 2) resolve();
      }, (err) => (err ? reject(err) : undefined))
      .then((controller) => seenReasons.finally(() => controller.abort()));
  });
  await api.createNamespacedPod({ namespace: NS, body: podBody('no-such-tag', 'true', { image: 'alpine:3.99-nope' }) });
  await seenReasons;
  expect(reasons.slice(0, 4)).toEqual(['ContainerCreating', 'ErrImagePull', 'ImagePullBackOff', 'ErrImagePull']);

  const runtimeError =
    'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/alpine:3.99-nope": not in the local image catalog: the embedded cluster pulls no image; add an entry for it with --images FILE (the format is in lib/emulators/kubernetes/images/README.md)';
  const pod = await api.readNamespacedPod({ namespace: NS, name: 'no-such-tag' });
  expect(pod.status?.phase).toBe('Pending');
  const waiting = pod.status?.containerStatuses?.[0]?.state?.waiting;
  expect([
    { reason: 'ErrImagePull', message: runtimeError },
    { reason: 'ImagePullBackOff', message: `Back-off pulling image "alpine:3.99-nope": ErrImagePull: ${runtimeError}` },
  ]).toContainEqual({ reason: waiting?.reason, message: waiting?.message });

  const events = await podEvents('no-such-tag');
  const failed = events.find((e) => e.message === `Failed to pull image "alpine:3.99-nope": ${runtimeError}`);
  expect(failed).toMatchObject({ type: 'Warning', reason: 'Failed' });
  expect(failed?.count).toBeGreaterThanOrEqual(2);
  expect(events.filter((e) => e.message === 'Error: ErrImagePull')).toHaveLength(1);
  expect(events.find((e) => e.reason === 'BackOff')?.message).toBe('Back-off pulling image "alpine:3.99-nope"');
  expect(events.find((e) => e.message === 'Error: ImagePullBackOff')?.type).toBe('Warning');
  expect(Date.parse(String(failed?.lastTimestamp))).toBeGreaterThanOrEqual(Date.parse(String(failed?.firstTimestamp)));

  const noLog = await apiError(api.readNamespacedPodLog({ namespace: NS, name: 'no-such-tag' }));
  expect(noLog.code).toBe(400);
  expect(String(noLog.status.message)).toMatch(/^container "step" in pod "no-such-tag" is waiting to start: (trying and failing to pull image|image can't be pulled)$/);
});

test('a private image fails with 401 Unauthorized, an unknown Docker Hub repository as not in the local image catalog', async () => {
  await api.createNamespacedPod({ namespace: NS, body: podBody('private', 'true', { image: 'registry.example.com/team/private-tool:1' }) });
  await api.createNamespacedPod({ namespace: NS, body: podBody('no-repo', 'true', { image: 'nosuchimage-xyz:1' }) });
  const waitingMessage = (p: V1Pod) => p.status?.containerStatuses?.[0]?.state?.waiting?.message ?? '';
  const privatePod = await waitForPod('private', (p) => /ErrImagePull|ImagePullBackOff/.test(p.status?.containerStatuses?.[0]?.state?.waiting?.reason ?? ''));
  expect(waitingMessage(privatePod)).toContain(
    'failed to resolve reference "registry.example.com/team/private-tool:1": pulling from host registry.example.com failed with status code [manifests 1]: 401 Unauthorized',
  );
  const noRepo = await waitForPod('no-repo', (p) => /ErrImagePull|ImagePullBackOff/.test(p.status?.containerStatuses?.[0]?.state?.waiting?.reason ?? ''));
  expect(waitingMessage(noRepo)).toContain('failed to pull and unpack image "docker.io/library/nosuchimage-xyz:1": not in the local image catalog');
  expect(waitingMessage(noRepo)).not.toContain('does not exist');
});

test('an invalid image reference is InvalidImageName with the kubelet wording', async () => {
  await api.createNamespacedPod({ namespace: NS, body: podBody('bad-ref', 'true', { image: 'Alpine:3.20' }) });
  const pod = await waitForPod('bad-ref', (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'InvalidImageName');
  const message = 'Failed to apply default image tag "Alpine:3.20": couldn\'t parse image reference "Alpine:3.20": invalid reference format: repository name must be lowercase';
  expect(pod.status?.containerStatuses?.[0]?.state?.waiting?.message).toBe(message);
  const events = await podEvents('bad-ref');
  expect(events.map((e) => [e.reason, e.message])).toEqual(
    expect.arrayContaining([['InspectFailed', message], ['Failed', 'Error: InvalidImageName']]),
  );
});

test('a transient pull error (429) recovers on a later pull and the step runs', async () => {
  await api.createNamespacedPod({ namespace: NS, body: podBody('flaky', 'echo pulled at last', { image: 'flaky:1' }) });
  const pod = await waitForPod('flaky', (p) => p.status?.phase === 'Succeeded');
  expect(terminated(pod)?.exitCode).toBe(0);
  const failures = (await podEvents('flaky')).filter((e) => e.message?.startsWith('Failed to pull image "flaky:1"'));
  expect(failures).toHaveLength(1);
  expect(failures[0]?.count).toBe(2);
  expect(failures[0]?.message).toContain('429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit.');
});

test('with pull policy Never an image that was never pulled is ErrImageNeverPull; once pulled it is already present', async () => {
  const never = podBody('never-pull', 'true', { image: 'busybox:1.36-musl' });
  never.spec!.containers[0]!.imagePullPolicy = 'Never';
  await api.createNamespacedPod({ namespace: NS, body: never });
  const pod = await waitForPod('never-pull', (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ErrImageNeverPull');
  expect(pod.status?.containerStatuses?.[0]?.state?.waiting?.message).toBe('Container image "busybox:1.36-musl" is not present with pull policy of Never');

  await api.createNamespacedPod({ namespace: NS, body: podBody('again', 'true', { image: 'alpine:3.20' }) });
  await waitForPod('again', (p) => p.status?.phase === 'Succeeded');
  expect((await podEvents('again')).map((e) => e.message)).toContain('Container image "alpine:3.20" already present on machine');
});

test('a Secret is replaced whole by PUT, as the apiserver updates, refusing a stale resourceVersion', async () => {
  const created = await api.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'renewed', annotations: { a: '1' } }, stringData: { token: 'old' } } });
  const replaced = await api.replaceNamespacedSecret({
    namespace: NS,
    name: 'renewed',
    body: { metadata: { name: 'renewed', resourceVersion: created.metadata!.resourceVersion!, annotations: { a: '2' } }, stringData: { token: 'new' } },
  });
  expect(replaced.metadata).toMatchObject({ uid: created.metadata!.uid, creationTimestamp: created.metadata!.creationTimestamp, annotations: { a: '2' } });
  expect(replaced.metadata!.resourceVersion).not.toBe(created.metadata!.resourceVersion);
  expect(Buffer.from(replaced.data!.token!, 'base64').toString()).toBe('new');
  expect(replaced.stringData).toBeUndefined();

  // Based on the version before the replacement: someone else's change would be lost, so it is refused.
  const stale = await apiError(
    api.replaceNamespacedSecret({ namespace: NS, name: 'renewed', body: { metadata: { name: 'renewed', resourceVersion: created.metadata!.resourceVersion! }, stringData: { token: 'lost' } } }),
  );
  expect(stale).toMatchObject({
    code: 409,
    status: {
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on secrets "renewed": the object has been modified; please apply your changes to the latest version and try again',
    },
  });
  const renamed = await apiError(api.replaceNamespacedSecret({ namespace: NS, name: 'renewed', body: { metadata: { name: 'other' } } }));
  expect(renamed).toMatchObject({ code: 400, status: { message: 'the name of the object (other) does not match the name on the URL (renewed)' } });
});

test('env from a Secret: missing secret is CreateContainerConfigError until the secret exists', async () => {
  const body = podBody('with-secret', 'echo "password=$DB_PASSWORD plain=$PLAIN"');
  body.spec!.containers[0]!.env = [
    { name: 'PLAIN', value: 'yes' },
    { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'ci-db', key: 'password' } } },
  ];
  await api.createNamespacedPod({ namespace: NS, body });
  const waiting = await waitForPod('with-secret', (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError');
  expect(waiting.status?.containerStatuses?.[0]?.state?.waiting?.message).toBe('secret "ci-db" not found');
  expect((await podEvents('with-secret')).map((e) => e.message)).toContain('Error: secret "ci-db" not found');

  await api.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'ci-db' }, stringData: { user: 'ci' } } });
  const missingKey = await waitForPod('with-secret', (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.message?.startsWith("couldn't") ?? false);
  expect(missingKey.status?.containerStatuses?.[0]?.state?.waiting?.message).toBe("couldn't find key password in Secret default/ci-db");

  await api.deleteNamespacedSecret({ namespace: NS, name: 'ci-db' });
  const secret = await api.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'ci-db' }, data: { password: Buffer.from('s3cret').toString('base64') } } });
  expect(secret.type).toBe('Opaque');
  await waitForPod('with-secret', (p) => p.status?.phase === 'Succeeded');
  expect(await api.readNamespacedPodLog({ namespace: NS, name: 'with-secret' })).toBe('password=s3cret plain=yes\n');
});

test('activeDeadlineSeconds stops a long step: Failed, DeadlineExceeded', async () => {
  // A grace period long enough that a loaded machine still ends the shell by SIGTERM (143): with
  // 1 s, a run under load saw the kubelet's SIGKILL (137) first.
  await api.createNamespacedPod({ namespace: NS, body: podBody('too-slow', 'sleep 30', { activeDeadlineSeconds: 1, terminationGracePeriodSeconds: 20 }) });
  const pod = await waitForPod('too-slow', (p) => p.status?.phase === 'Failed', NS, 25_000);
  expect(pod.status).toMatchObject({ reason: 'DeadlineExceeded', message: 'Pod was active on the node longer than the specified deadline' });
  expect(terminated(pod)?.exitCode).toBe(143);
  const reasons = (await podEvents('too-slow')).map((e) => e.reason);
  expect(reasons).toEqual(expect.arrayContaining(['DeadlineExceeded', 'Killing']));
});

test('a pod that asks for more than the node has stays Pending, Unschedulable', async () => {
  const body = podBody('too-big', 'true');
  body.spec!.containers[0]!.resources = { requests: { memory: '64Gi', cpu: '500m' } };
  await api.createNamespacedPod({ namespace: NS, body });
  const message = '0/1 nodes are available: 1 Insufficient memory. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.';
  const pod = await waitForPod('too-big', (p) => (p.status?.conditions ?? []).length > 0);
  expect(pod.status?.phase).toBe('Pending');
  expect(pod.status?.conditions?.[0]).toMatchObject({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message });
  expect((await podEvents('too-big')).map((e) => [e.type, e.reason, e.message, e.reportingComponent])).toEqual([
    ['Warning', 'FailedScheduling', message, 'default-scheduler'],
  ]);
});

test('errors are Status objects: 409 AlreadyExists, 404 NotFound, 404 for a missing namespace, 422 Invalid', async () => {
  await api.createNamespacedPod({ namespace: NS, body: podBody('twice', 'true') });
  expect(await apiError(api.createNamespacedPod({ namespace: NS, body: podBody('twice', 'true') }))).toEqual({
    code: 409,
    status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "twice" already exists', reason: 'AlreadyExists', details: { name: 'twice', kind: 'pods' }, code: 409 },
  });
  expect(await apiError(api.readNamespacedPod({ namespace: NS, name: 'x' }))).toEqual({
    code: 404,
    status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "x" not found', reason: 'NotFound', details: { name: 'x', kind: 'pods' }, code: 404 },
  });
  const noNamespace = await apiError(api.createNamespacedPod({ namespace: 'nowhere', body: podBody('p', 'true') }));
  expect(noNamespace.status).toMatchObject({ code: 404, reason: 'NotFound', message: 'namespaces "nowhere" not found' });

  const invalid = await apiError(api.createNamespacedPod({ namespace: NS, body: { metadata: { name: 'Bad_Name' }, spec: { containers: [] } } }));
  expect(invalid.code).toBe(422);
  expect(invalid.status).toMatchObject({ reason: 'Invalid', details: { name: 'Bad_Name', kind: 'Pod' } });
  expect(String(invalid.status.message)).toMatch(/^Pod "Bad_Name" is invalid: \[metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain .*, spec\.containers: Required value\]$/);
  expect((invalid.status.details as { causes: unknown[] }).causes).toEqual([
    expect.objectContaining({ reason: 'FieldValueInvalid', field: 'metadata.name' }),
    { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' },
  ]);
});

test('generateName gives a fresh name', async () => {
  const created = await api.createNamespacedPod({ namespace: 'ci', body: { metadata: { generateName: 'build-' }, spec: podBody('', 'true').spec } });
  expect(created.metadata?.name).toMatch(/^build-[a-z0-9]{5}$/);
  expect(created.metadata?.namespace).toBe('ci');
  expect(created.spec?.containers[0]?.imagePullPolicy).toBe('IfNotPresent');
});

test('deletecollection by label removes only the labelled pods; list by label finds them first', async () => {
  for (const [name, build] of [['b1-a', '1'], ['b1-b', '1'], ['b2-a', '2']] as const) {
    await api.createNamespacedPod({ namespace: 'ci', body: podBody(name, 'true', { labels: { 'step-runner.dev/build': build } }) });
  }
  const listed = await api.listNamespacedPod({ namespace: 'ci', labelSelector: 'step-runner.dev/build=1' });
  expect(listed.items.map((p) => p.metadata?.name)).toEqual(['b1-a', 'b1-b']);
  const inSet = await api.listNamespacedPod({ namespace: 'ci', labelSelector: 'step-runner.dev/build in (1,2),step-runner.dev/build!=2' });
  expect(inSet.items).toHaveLength(2);

  await api.deleteCollectionNamespacedPod({ namespace: 'ci', labelSelector: 'step-runner.dev/build=1', gracePeriodSeconds: 0 });
  const left = await api.listNamespacedPod({ namespace: 'ci', labelSelector: 'step-runner.dev/build' });
  expect(left.items.map((p) => p.metadata?.name)).toEqual(['b2-a']);
});

test('a watch sees ADDED, MODIFIED and DELETED; resuming from a resourceVersion replays what followed', async () => {
  const seen: string[] = [];
  let resumeFrom = '';
  let deleted!: () => void;
  let failed!: (error: unknown) => void;
  const gone = new Promise<void>((resolve, reject) => ((deleted = resolve), (failed = reject)));
  // watch() resolves once the server has answered; the server subscribes the watch before it
  // answers, so from here on it sees every change: no sleep needed before creating the pod.
  const controller = await new Watch(cluster.kubeConfig()).watch(
    `/api/v1/namespaces/${NS}/pods`,
    { labelSelector: 'watch-me=yes' },
    (type, pod: V1Pod) => {
      seen.push(`${type} ${pod.status?.phase}`);
      if (type === 'ADDED') resumeFrom = pod.metadata?.resourceVersion ?? '';
      if (type === 'DELETED') deleted();
    },
    (err) => (err ? failed(err) : undefined),
  );
  try {
    await api.createNamespacedPod({ namespace: NS, body: podBody('watched', 'true', { labels: { 'watch-me': 'yes' } }) });
    await waitForPod('watched', (p) => p.status?.phase === 'Succeeded');
    await api.deleteNamespacedPod({ namespace: NS, name: 'watched' });
    await gone;
  } finally {
    controller.abort();
  }
  expect(seen[0]).toBe('ADDED Pending');
  expect(seen).toContain('MODIFIED Running');
  expect(seen).toContain('MODIFIED Succeeded');
  expect(seen.at(-1)).toMatch(/^DELETED/);

  const replayed: string[] = [];
  await new Promise<void>((resolve, reject) => {
    void new Watch(cluster.kubeConfig()).watch(
      `/api/v1/namespaces/${NS}/pods`,
      { labelSelector: 'watch-me=yes', resourceVersion: resumeFrom, timeoutSeconds: 1 },
      (type) => replayed.push(type),
      (err) => (err ? reject(err) : resolve()),
    );
  });
  expect(replayed[0]).toBe('MODIFIED');
  expect(replayed.at(-1)).toBe('DELETED');
});

test('a running pod deleted with a grace period shows Terminating, gets SIGTERM, then disappears with its process', async () => {
  const script = 'echo pid=$$; trap "echo got TERM; sleep 0.3; exit 0" TERM; while :; do sleep 0.05; done';
  await api.createNamespacedPod({ namespace: NS, body: podBody('long', script) });
  await waitForPod('long', (p) => p.status?.phase === 'Running');
  const log = await waitFor(
    async () => {
      const text = await api.readNamespacedPodLog({ namespace: NS, name: 'long' });
      return text.includes('\n') && text;
    },
    { timeoutMs: 5_000, what: 'the pod to print its pid' },
  );
  const pid = Number(/pid=(\d+)/.exec(log)?.[1]);

  const deleted = await api.deleteNamespacedPod({ namespace: NS, name: 'long', gracePeriodSeconds: 5 });
  expect(deleted.metadata?.deletionTimestamp).toBeDefined();
  const table = await fetch(`${cluster.url}/api/v1/namespaces/${NS}/pods/long`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  expect(((await table.json()) as { rows: { cells: unknown[] }[] }).rows[0]?.cells[2]).toBe('Terminating');

  await waitFor(async () => (await api.listNamespacedPod({ namespace: NS, fieldSelector: 'metadata.name=long' })).items.length === 0, {
    timeoutMs: 5_000,
    what: 'the deleted pod to disappear',
  });
  expect(() => process.kill(pid, 0)).toThrow();
  const killing = (await podEvents('long')).find((e) => e.reason === 'Killing');
  expect(killing?.message).toBe('Stopping container step');
});

test('field selectors: events of one pod, and escaped values', async () => {
  const odd = 'widget,with=odd\\chars';
  await api.createNamespacedEvent({
    namespace: NS,
    body: {
      metadata: { name: 'custom.1' },
      involvedObject: { kind: 'Widget', name: odd, namespace: NS },
      reason: 'Poked',
      message: 'poked it',
      type: 'Normal',
    },
  });
  const escaped = odd.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/=/g, '\\=');
  const found = await api.listNamespacedEvent({ namespace: NS, fieldSelector: `involvedObject.name=${escaped},involvedObject.kind=Widget` });
  expect(found.items.map((e) => e.reason)).toEqual(['Poked']);

  const ofHello = await api.listNamespacedEvent({ namespace: NS, fieldSelector: 'involvedObject.name=hello,involvedObject.fieldPath=spec.containers{step},type!=Warning' });
  expect(ofHello.items.map((e) => e.reason)).toEqual(['Pulling', 'Pulled', 'Created', 'Started']);

  const bad = await apiError(api.listNamespacedEvent({ namespace: NS, fieldSelector: 'spec.nope=1' }));
  expect(bad.status).toMatchObject({ code: 400, reason: 'BadRequest', message: 'field label not supported: spec.nope' });
});

test('kubectl-style Table output computes STATUS as kubectl does', async () => {
  await api.createNamespace({ body: { metadata: { name: 'tables' } } });
  await api.createNamespacedPod({ namespace: 'tables', body: podBody('ok', 'true') });
  await api.createNamespacedPod({ namespace: 'tables', body: podBody('fails', 'exit 1') });
  await api.createNamespacedPod({ namespace: 'tables', body: podBody('bad-ref', 'true', { image: 'alpine::x' }) });
  await api.createNamespacedPod({ namespace: 'tables', body: podBody('runs', 'sleep 5') });
  await waitForPod('ok', (p) => p.status?.phase === 'Succeeded', 'tables');
  await waitForPod('fails', (p) => p.status?.phase === 'Failed', 'tables');
  await waitForPod('bad-ref', (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'InvalidImageName', 'tables');
  await waitForPod('runs', (p) => p.status?.phase === 'Running', 'tables');

  const res = await fetch(`${cluster.url}/api/v1/namespaces/tables/pods`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' } });
  const table = (await res.json()) as { kind: string; columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] };
  expect(table.kind).toBe('Table');
  expect(table.columnDefinitions.slice(0, 5).map((c) => c.name)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age']);
  expect(table.rows.map((r) => r.cells.slice(0, 3))).toEqual([
    ['bad-ref', '0/1', 'InvalidImageName'],
    ['fails', '0/1', 'Error'],
    ['ok', '0/1', 'Completed'],
    ['runs', '1/1', 'Running'],
  ]);
  await api.deleteNamespace({ name: 'tables' });
  expect((await api.listNamespacedPod({ namespace: 'default', fieldSelector: 'metadata.namespace=tables' })).items).toEqual([]);
});

test('the fault seam answers 429 with Retry-After, or drops the connection', async () => {
  const faults: Fault[] = [{ kind: 'status', code: 429, retryAfterSeconds: 2 }, { kind: 'drop' }];
  const faulty = await startEmbeddedCluster({ timings: FAST_TIMINGS, faults: ({ path }) => (path.endsWith('/pods') ? faults.shift() : undefined) });
  try {
    const faultyApi = faulty.kubeConfig().makeApiClient(CoreV1Api);
    const limited = await fetch(`${faulty.url}/api/v1/namespaces/default/pods`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(await limited.json()).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429, details: { retryAfterSeconds: 2 } });
    await expect(faultyApi.listNamespacedPod({ namespace: 'default' })).rejects.toThrow();
    expect((await faultyApi.listNamespacedPod({ namespace: 'default' })).items).toEqual([]);
  } finally {
    await faulty.stop();
  }
});
