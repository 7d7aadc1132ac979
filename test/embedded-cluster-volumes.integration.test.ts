/**
 * Volumes on the embedded cluster through @kubernetes/client-node, over real HTTP: claims that bind
 * on their first consumer as on EKS, a build's pods sharing files through one claim, workingDir and
 * emptyDir, the ways a pod stays Pending (unknown storage class, missing claim, node affinity), and
 * deleting a claim that a pod still holds.
 * On the process runtime: a container's workingDir is a folder of this machine, so the emptyDir
 * test finds the pod's file at the path the pod printed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { CoreV1Api, StorageV1Api, Watch, type CoreV1Event, type V1PersistentVolumeClaim, type V1Pod } from '@kubernetes/client-node';
import { FAST_TIMINGS, startEmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { embeddedClusterForFile } from './fixtures/embedded-cluster.js';
import { waitFor } from './fixtures/wait-for.js';
import { apiError } from './fixtures/api-error.js';

const NS = 'builds';
const SELECTED_NODE = 'volume.kubernetes.io/selected-node';
const NOT_HELPFUL = 'preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.';
const kube = embeddedClusterForFile(NS);

/** `storageClassName` null: none named, so the cluster's default applies. */
function claimBody(name: string, storageClassName: string | null = 'gp2', labels: Record<string, string> = {}): V1PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, labels: { 'app.kubernetes.io/managed-by': 'serverless-step-runner', ...labels } },
    spec: { accessModes: ['ReadWriteOnce'], ...(storageClassName !== null ? { storageClassName } : {}), resources: { requests: { storage: '10Gi' } } },
  };
}

/** A step pod as the runner makes it: the claim at /workspace, its working directory. */
function stepPod(name: string, claimName: string, script: string, extra: Partial<V1Pod['spec']> = {}): V1Pod {
  return {
    metadata: { name },
    spec: {
      restartPolicy: 'Never',
      volumes: [{ name: 'workspace', persistentVolumeClaim: { claimName } }],
      containers: [
        {
          name: 'step',
          image: 'alpine:3.20',
          command: ['/bin/sh', '-c', script],
          workingDir: '/workspace',
          env: [{ name: 'CI_WORKSPACE', value: '/workspace' }],
          volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }],
        },
      ],
      ...extra,
    },
  };
}

function pinnedTo(node: string): Partial<V1Pod['spec']> {
  return {
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }],
        },
      },
    },
  };
}

const readPod = (name: string) => kube.api.readNamespacedPod({ namespace: NS, name });
const readClaim = (name: string) => kube.api.readNamespacedPersistentVolumeClaim({ namespace: NS, name });

function waitForPod(name: string, done: (pod: V1Pod) => boolean, what: string): Promise<V1Pod> {
  return waitFor(async () => {
    const pod = await readPod(name);
    return done(pod) && pod;
  }, { timeoutMs: 8_000, what: `pod ${name} ${what}` });
}

const finished = (name: string) => waitForPod(name, (p) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed', 'to finish');
const log = (name: string, container?: string) => kube.api.readNamespacedPodLog({ namespace: NS, name, ...(container ? { container } : {}) });

async function eventsOf(kind: string, name: string): Promise<CoreV1Event[]> {
  const list = await kube.api.listNamespacedEvent({ namespace: NS, fieldSelector: `involvedObject.kind=${kind},involvedObject.name=${name}` });
  return list.items;
}

function waitForEvent(kind: string, name: string, reason: string): Promise<CoreV1Event> {
  return waitFor(async () => (await eventsOf(kind, name)).find((e) => e.reason === reason), { timeoutMs: 8_000, what: `a ${reason} event about ${kind} ${name}` });
}


test('a gp2 claim waits for its first consumer, then is bound on the node that pod was scheduled to', async () => {
  const created = await kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claimBody('first') });
  expect(created.status?.phase).toBe('Pending');
  expect(created.metadata?.finalizers).toEqual(['kubernetes.io/pvc-protection']);
  expect(created.spec?.volumeMode).toBe('Filesystem');
  const waiting = await waitForEvent('PersistentVolumeClaim', 'first', 'WaitForFirstConsumer');
  expect(waiting).toMatchObject({ type: 'Normal', message: 'waiting for first consumer to be created before binding', source: { component: 'persistentvolume-controller' } });
  const beforeConsumer = await readClaim('first');
  expect(beforeConsumer.status?.phase).toBe('Pending');
  expect(beforeConsumer.metadata?.annotations?.[SELECTED_NODE]).toBeUndefined();

  await kube.api.createNamespacedPod({ namespace: NS, body: stepPod('first-step', 'first', 'true') });
  const pod = await finished('first-step');
  expect(pod.status?.phase).toBe('Succeeded');

  const claim = await readClaim('first');
  expect(claim.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '10Gi' } });
  expect(claim.spec?.volumeName).toBe(`pvc-${claim.metadata?.uid}`);
  expect(claim.metadata?.annotations).toMatchObject({
    [SELECTED_NODE]: pod.spec?.nodeName,
    'volume.kubernetes.io/storage-provisioner': 'ebs.csi.aws.com',
    'pv.kubernetes.io/bind-completed': 'yes',
  });
  expect(pod.spec?.nodeName).toBe('embedded-node');
  expect((await eventsOf('PersistentVolumeClaim', 'first')).map((e) => [e.reason, e.message])).toEqual([
    ['WaitForFirstConsumer', 'waiting for first consumer to be created before binding'],
    [
      'ExternalProvisioning',
      "Waiting for a volume to be created either by the external provisioner 'ebs.csi.aws.com' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
    ],
    ['Provisioning', `External provisioner is provisioning volume for claim "${NS}/first"`],
    ['ProvisioningSucceeded', `Successfully provisioned volume pvc-${claim.metadata?.uid}`],
  ]);
});

test("a build's steps share files through the claim: /workspace is the working directory, CI_WORKSPACE points there", async () => {
  await kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claimBody('shared') });
  await kube.api.createNamespacedPod({ namespace: NS, body: stepPod('writes', 'shared', 'echo hi > out.txt') });
  expect((await finished('writes')).status?.phase).toBe('Succeeded');
  const node = (await readClaim('shared')).metadata?.annotations?.[SELECTED_NODE] ?? '';

  // The next step, pinned where the volume went, as the runner pins it.
  const reads = 'cat out.txt; test "$PWD" = "$CI_WORKSPACE" && cat "$CI_WORKSPACE/out.txt"';
  await kube.api.createNamespacedPod({ namespace: NS, body: stepPod('reads', 'shared', reads, pinnedTo(node)) });
  expect((await finished('reads')).status?.phase).toBe('Succeeded');
  expect(await log('reads')).toBe('hi\nhi\n');
});

test('a workingDir below the mount is made in the volume; one outside every mount is the container\'s own', async () => {
  await kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claimBody('deep') });
  const below = stepPod('below', 'deep', 'echo deep > file');
  below.spec!.containers[0]!.workingDir = '/workspace/src/app';
  const outside = stepPod('outside', 'deep', 'echo lost > file');
  outside.spec!.containers[0]!.workingDir = '/tmp/build';
  await kube.api.createNamespacedPod({ namespace: NS, body: below });
  await kube.api.createNamespacedPod({ namespace: NS, body: outside });
  expect((await finished('below')).status?.phase).toBe('Succeeded');
  expect((await finished('outside')).status?.phase).toBe('Succeeded');

  await kube.api.createNamespacedPod({ namespace: NS, body: stepPod('lists', 'deep', 'cat src/app/file; ls -A') });
  expect((await finished('lists')).status?.phase).toBe('Succeeded');
  expect(await log('lists')).toBe('deep\nsrc\n');
});

test("an emptyDir is shared by the pod's containers, starts empty in every pod, and goes with its pod", async () => {
  const scratch = (name: string, script: string) => ({
    name,
    image: 'alpine:3.20',
    command: ['/bin/sh', '-c', script],
    workingDir: '/scratch',
    volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
  });
  const waitForNote = 'i=0; while [ ! -f note ] && [ $i -lt 3000 ]; do sleep 0.02; i=$((i+1)); done; cat note; pwd';
  await kube.api.createNamespacedPod({
    namespace: NS,
    body: { metadata: { name: 'scratchpad' }, spec: { restartPolicy: 'Never', volumes: [{ name: 'scratch', emptyDir: {} }], containers: [scratch('writer', 'echo shared > note'), scratch('reader', waitForNote)] } },
  });
  expect((await finished('scratchpad')).status?.phase).toBe('Succeeded');
  const [note, dir = ''] = (await log('scratchpad', 'reader')).trimEnd().split('\n');
  expect(note).toBe('shared');
  expect(existsSync(`${dir}/note`)).toBe(true);

  await kube.api.createNamespacedPod({
    namespace: NS,
    body: { metadata: { name: 'fresh-scratch' }, spec: { restartPolicy: 'Never', volumes: [{ name: 'scratch', emptyDir: {} }], containers: [scratch('step', 'ls -A')] } },
  });
  expect((await finished('fresh-scratch')).status?.phase).toBe('Succeeded');
  expect(await log('fresh-scratch')).toBe('');

  await kube.api.deleteNamespacedPod({ namespace: NS, name: 'scratchpad' });
  await waitFor(() => !existsSync(dir), { timeoutMs: 5_000, what: "the deleted pod's emptyDir to be removed" });
});

test('an unknown storage class: the claim fails to provision and its pod stays Pending, Unschedulable', async () => {
  await kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claimBody('fast', 'fast-ssd') });
  const failed = await waitForEvent('PersistentVolumeClaim', 'fast', 'ProvisioningFailed');
  expect(failed).toMatchObject({ type: 'Warning', message: 'storageclass.storage.k8s.io "fast-ssd" not found', source: { component: 'persistentvolume-controller' } });

  await kube.api.createNamespacedPod({ namespace: NS, body: stepPod('no-volume', 'fast', 'true') });
  const message = `0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. ${NOT_HELPFUL}`;
  const scheduling = await waitForEvent('Pod', 'no-volume', 'FailedScheduling');
  // The scheduler writes through events.k8s.io: read through core/v1 its reporter is reportingComponent, its source empty.
  expect(scheduling).toMatchObject({ type: 'Warning', message, involvedObject: { kind: 'Pod', name: 'no-volume' }, source: {}, reportingComponent: 'default-scheduler' });
  const pod = await readPod('no-volume');
  expect(pod.status?.phase).toBe('Pending');
  expect(pod.spec?.nodeName).toBeUndefined();
  expect(pod.status?.conditions).toEqual([expect.objectContaining({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message })]);
  expect((await readClaim('fast')).status?.phase).toBe('Pending');
});

test('a pod whose claim does not exist yet waits, Unschedulable, and runs once the claim is created', async () => {
  await kube.api.createNamespacedPod({ namespace: NS, body: stepPod('early', 'late', 'echo ran') });
  const scheduling = await waitForEvent('Pod', 'early', 'FailedScheduling');
  expect(scheduling.message).toBe(`0/1 nodes are available: persistentvolumeclaim "late" not found. ${NOT_HELPFUL}`);
  expect((await readPod('early')).status?.phase).toBe('Pending');

  await kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claimBody('late') });
  expect((await finished('early')).status?.phase).toBe('Succeeded');
  expect(await log('early')).toBe('ran\n');
  expect((await readClaim('late')).status?.phase).toBe('Bound');
});

test("pinned to another node: Pending, Unschedulable, and the claim's volume is not made; pinned here: it runs", async () => {
  await kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claimBody('pinned') });
  await kube.api.createNamespacedPod({ namespace: NS, body: stepPod('elsewhere', 'pinned', 'true', pinnedTo('ip-10-0-1-23.ec2.internal')) });
  const scheduling = await waitForEvent('Pod', 'elsewhere', 'FailedScheduling');
  const message = `0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. ${NOT_HELPFUL}`;
  expect(scheduling.message).toBe(message);
  expect((await readPod('elsewhere')).status?.conditions?.[0]).toMatchObject({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message });
  const claim = await readClaim('pinned');
  expect(claim.status?.phase).toBe('Pending');
  expect(claim.metadata?.annotations?.[SELECTED_NODE]).toBeUndefined();

  await kube.api.createNamespacedPod({ namespace: NS, body: stepPod('here', 'pinned', 'true', pinnedTo('embedded-node')) });
  expect((await finished('here')).status?.phase).toBe('Succeeded');
  expect((await readPod('elsewhere')).status?.phase).toBe('Pending');
});

test('the node is labelled with its own name as kubernetes.io/hostname', async () => {
  const nodes = await kube.api.listNode();
  expect(nodes.items.map((n) => [n.metadata?.name, n.metadata?.labels?.['kubernetes.io/hostname']])).toEqual([['embedded-node', 'embedded-node']]);
});

test('deleting a claim a pod holds leaves it Terminating until the pod is deleted; then its volume goes', async () => {
  await kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claimBody('doomed') });
  await kube.api.createNamespacedPod({ namespace: NS, body: stepPod('holder', 'doomed', 'echo old > old.txt; pwd') });
  expect((await finished('holder')).status?.phase).toBe('Succeeded');
  const volumeDir = (await log('holder')).trim();
  expect(existsSync(`${volumeDir}/old.txt`)).toBe(true);

  const deleted = await kube.api.deleteNamespacedPersistentVolumeClaim({ namespace: NS, name: 'doomed' });
  expect(deleted.metadata?.deletionTimestamp).toBeDefined();
  const terminating = await readClaim('doomed');
  expect(terminating.metadata?.deletionTimestamp).toBeDefined();
  expect(terminating.metadata?.finalizers).toEqual(['kubernetes.io/pvc-protection']);

  await kube.api.createNamespacedPod({ namespace: NS, body: stepPod('latecomer', 'doomed', 'ls -A') });
  expect((await waitForEvent('Pod', 'latecomer', 'FailedScheduling')).message).toBe(
    `0/1 nodes are available: persistentvolumeclaim "doomed" is being deleted. ${NOT_HELPFUL}`,
  );

  await kube.api.deleteNamespacedPod({ namespace: NS, name: 'holder' });
  await waitFor(async () => (await apiError(readClaim('doomed'))).code === 404, { timeoutMs: 5_000, what: 'the released claim to disappear' });
  await waitFor(() => !existsSync(volumeDir), { timeoutMs: 5_000, what: "the deleted claim's volume to be removed" });

  // A new claim of the same name is a new, empty volume.
  await kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claimBody('doomed') });
  expect((await finished('latecomer')).status?.phase).toBe('Succeeded');
  expect(await log('latecomer')).toBe('');
});

test('an unused claim is deleted at once; deleting it again is 404 NotFound', async () => {
  await kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claimBody('unused') });
  await kube.api.deleteNamespacedPersistentVolumeClaim({ namespace: NS, name: 'unused' });
  await waitFor(async () => (await apiError(readClaim('unused'))).code === 404, { timeoutMs: 5_000, what: 'the unused claim to disappear' });
  expect(await apiError(kube.api.deleteNamespacedPersistentVolumeClaim({ namespace: NS, name: 'unused' }))).toEqual({
    code: 404,
    status: expect.objectContaining({ reason: 'NotFound', message: 'persistentvolumeclaims "unused" not found', details: { name: 'unused', kind: 'persistentvolumeclaims' } }),
  });
});

test('claims: 409 AlreadyExists, 422 Invalid with field paths, the default class when none is named, lists by label', async () => {
  await kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claimBody('build-7', null, { 'step-runner.dev/build': '7' }) });
  expect((await readClaim('build-7')).spec?.storageClassName).toBe('standard');
  expect(await apiError(kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claimBody('build-7') }))).toMatchObject({
    code: 409,
    status: { reason: 'AlreadyExists', message: 'persistentvolumeclaims "build-7" already exists' },
  });
  const invalid = await apiError(kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: { metadata: { name: 'bad' }, spec: { resources: { requests: { storage: '1Gi' } } } } }));
  expect(invalid).toMatchObject({
    code: 422,
    status: { reason: 'Invalid', message: 'PersistentVolumeClaim "bad" is invalid: spec.accessModes: Required value: at least 1 access mode is required' },
  });

  await kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claimBody('build-8', 'gp3', { 'step-runner.dev/build': '8' }) });
  const listed = await kube.api.listNamespacedPersistentVolumeClaim({ namespace: NS, labelSelector: 'app.kubernetes.io/managed-by=serverless-step-runner,step-runner.dev/build in (7,8)' });
  expect(listed.items.map((c) => c.metadata?.name)).toEqual(['build-7', 'build-8']);
  expect(listed.kind).toBe('PersistentVolumeClaimList');
});

test('a mount naming a volume the pod does not have is 422 Invalid, with the field path', async () => {
  const body = stepPod('bad-mount', 'shared', 'true');
  body.spec!.containers[0]!.volumeMounts = [{ name: 'x', mountPath: '/workspace' }];
  const refused = await apiError(kube.api.createNamespacedPod({ namespace: NS, body }));
  expect(refused).toMatchObject({
    code: 422,
    status: {
      reason: 'Invalid',
      message: 'Pod "bad-mount" is invalid: spec.containers[0].volumeMounts[0].name: Not found: "x"',
      details: { causes: [{ reason: 'FieldValueNotFound', message: 'Not found: "x"', field: 'spec.containers[0].volumeMounts[0].name' }] },
    },
  });
});

test('a watch on claims sees one added, bound by its first pod, and deleted', async () => {
  const seen: string[] = [];
  let gone!: () => void;
  const deleted = new Promise<void>((resolve) => (gone = resolve));
  const controller = await new Watch(kube.cluster.kubeConfig()).watch(
    `/api/v1/namespaces/${NS}/persistentvolumeclaims`,
    { fieldSelector: 'metadata.name=watched' },
    (type, claim: V1PersistentVolumeClaim) => {
      seen.push(`${type} ${claim.status?.phase}`);
      if (type === 'DELETED') gone();
    },
    () => undefined,
  );
  try {
    await kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claimBody('watched') });
    await kube.api.createNamespacedPod({ namespace: NS, body: stepPod('watcher', 'watched', 'true') });
    await finished('watcher');
    await kube.api.deleteNamespacedPod({ namespace: NS, name: 'watcher' });
    await kube.api.deleteNamespacedPersistentVolumeClaim({ namespace: NS, name: 'watched' });
    await deleted;
  } finally {
    controller.abort();
  }
  expect(seen[0]).toBe('ADDED Pending');
  expect(seen).toContain('MODIFIED Bound');
  expect(seen.at(-1)).toBe('DELETED Bound');
});

test('storage classes are served read-only: gp2 and gp3 for EBS, standard the default', async () => {
  const storage = kube.cluster.kubeConfig().makeApiClient(StorageV1Api);
  const classes = await storage.listStorageClass();
  expect(classes.items.map((c) => [c.metadata?.name, c.provisioner, c.volumeBindingMode])).toEqual([
    ['gp2', 'ebs.csi.aws.com', 'WaitForFirstConsumer'],
    ['gp3', 'ebs.csi.aws.com', 'WaitForFirstConsumer'],
    ['standard', 'step-runner.dev/host-path', 'WaitForFirstConsumer'],
  ]);
  expect((await storage.readStorageClass({ name: 'standard' })).metadata?.annotations).toEqual({ 'storageclass.kubernetes.io/is-default-class': 'true' });
  const refused = await fetch(`${kube.cluster.url}/apis/storage.k8s.io/v1/storageclasses`, { method: 'POST', body: JSON.stringify({ metadata: { name: 'mine' } }) });
  expect(refused.status).toBe(405);
});

test('stop() removes the state folder with every volume in it', async () => {
  const other = await startEmbeddedCluster({ timings: FAST_TIMINGS });
  const otherApi = other.kubeConfig().makeApiClient(CoreV1Api);
  await otherApi.createNamespacedPersistentVolumeClaim({ namespace: 'default', body: claimBody('kept') });
  const body = stepPod('user', 'kept', 'echo data > data.txt');
  await otherApi.createNamespacedPod({ namespace: 'default', body });
  await waitFor(async () => (await otherApi.readNamespacedPod({ namespace: 'default', name: 'user' })).status?.phase === 'Succeeded', { timeoutMs: 8_000, what: 'the pod to succeed' });
  expect(existsSync(other.stateDir)).toBe(true);
  await other.stop();
  expect(existsSync(other.stateDir)).toBe(false);
});

describe('the words are those recorded from real clusters (test/fixtures/kube/workspace-messages.json)', () => {
  interface Recorded {
    name: string;
    event: { reason: string; type: string; source: string; message: string };
    keyWords: string[];
  }
  const recorded = (JSON.parse(readFileSync('test/fixtures/kube/workspace-messages.json', 'utf8')) as { examples: Recorded[] }).examples;
  const example = (name: string): Recorded => {
    const found = recorded.find((e) => e.name === name);
    if (found === undefined) throw new Error(`no recorded example named "${name}"`);
    return found;
  };
  const said = (event: CoreV1Event) => ({ reason: event.reason, type: event.type, message: event.message });

  test('on the claim: the same events, word for word, for the same names', async () => {
    await kube.api.createNamespace({ body: { metadata: { name: 'volume-expand-6492' } } });
    await kube.api.createNamespacedPersistentVolumeClaim({ namespace: 'volume-expand-6492', body: claimBody('aws46qr4') });
    await kube.api.createNamespacedPod({ namespace: 'volume-expand-6492', body: stepPod('expand', 'aws46qr4', 'true') });
    await kube.api.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claimBody('high-speed', 'cinder-high-speed') });

    const onClaim = async (reason: string) =>
      waitFor(
        async () => (await kube.api.listNamespacedEvent({ namespace: 'volume-expand-6492', fieldSelector: `involvedObject.name=aws46qr4,reason=${reason}` })).items[0],
        { timeoutMs: 8_000, what: `the ${reason} event` },
      );
    for (const name of ['WaitForFirstConsumer claim before the scheduler picked a node', 'external provisioner not done yet (current wording)', 'the CSI provisioner at work']) {
      const { reason, type, message } = example(name).event;
      expect(said(await onClaim(reason))).toEqual({ reason, type, message });
    }
    const { reason, type, message, source } = example('storage class does not exist').event;
    const failed = await waitForEvent('PersistentVolumeClaim', 'high-speed', reason);
    expect({ ...said(failed), source: failed.source?.component }).toEqual({ reason, type, message, source });
  });

  test("on the pod: the scheduler's words (its layout is v1.27+'s, one node)", async () => {
    await kube.api.createNamespacedPod({ namespace: NS, body: stepPod('minecraft', 'minecraft-data-pvc', 'true') });
    await kube.api.createNamespacedPod({ namespace: NS, body: stepPod('high-speed-user', 'high-speed', 'true') });
    await kube.api.createNamespacedPod({ namespace: NS, body: stepPod('pinned-away', 'shared', 'true', pinnedTo('ip-10-0-12-34.eu-west-1.compute.internal')) });
    const cases = [
      ['minecraft', 'claim does not exist'],
      ['high-speed-user', 'claim not bound yet (Immediate class, or a class that does not exist)'],
      ['pinned-away', "step pinned to the workspace's node, which lacks cpu"],
    ] as const;
    for (const [pod, name] of cases) {
      const { event, keyWords } = example(name);
      const scheduling = await waitForEvent('Pod', pod, 'FailedScheduling');
      expect({ type: scheduling.type, source: scheduling.reportingComponent }).toEqual({ type: event.type, source: event.source });
      // The recorded count is of that cluster's nodes; here there is one.
      for (const words of keyWords) expect(scheduling.message).toContain(words.replace(/^\d+ /, '1 '));
    }
  });
});
