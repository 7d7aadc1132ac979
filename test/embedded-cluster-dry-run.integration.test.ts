/**
 * Server-side dry runs and refusals of what the embedded cluster does not do, with a real kubectl
 * (skipped, saying why, without one; CI installs it) and over plain HTTP: a dry run validates and
 * answers, and nothing is stored or run; `kubectl run` without --restart=Never is refused as the
 * apiserver refuses an unsupported value.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { KUBECTL_ON_PATH, kubectlIn } from './fixtures/kubectl.js';
import { describeRequiring } from './fixtures/requirements.js';


let cluster: EmbeddedCluster;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'step-runner-dry-run-'));
  cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS, workspace: dir });
  writeFileSync(join(dir, 'kubeconfig'), cluster.kubeconfigYaml());
});
afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Enough of an object or a Status for the assertions. */
interface KubeAnswer {
  metadata: { name?: string; uid?: string; resourceVersion?: string };
  spec: { restartPolicy?: string };
  items: unknown[];
  reason?: string;
  message?: string;
}

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${cluster.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as KubeAnswer };
}

const pod = (name: string, restartPolicy?: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: 'main', image: 'alpine:3.20', command: ['sh', '-c', 'echo ran > ran.txt'] }] },
});

describe('dryRun=All over HTTP', () => {
  it('create: answers 201 with the defaulted object, stores nothing, starts nothing', async () => {
    const answer = await api('POST', '/api/v1/namespaces/default/pods?dryRun=All', pod('dry-1', 'Never'));
    expect(answer.status).toBe(201);
    expect(answer.json.metadata).toMatchObject({ name: 'dry-1', namespace: 'default', uid: expect.any(String), creationTimestamp: expect.any(String) });
    expect(answer.json.metadata.resourceVersion).toBeUndefined();
    expect(answer.json.spec).toMatchObject({ restartPolicy: 'Never', dnsPolicy: 'ClusterFirst' });
    expect((await api('GET', '/api/v1/namespaces/default/pods/dry-1')).status).toBe(404);
    expect((await api('GET', '/api/v1/namespaces/default/events')).json.items).toEqual([]);
  });

  it('create: still validates, and still says AlreadyExists', async () => {
    expect(await api('POST', '/api/v1/namespaces/default/pods?dryRun=All', { metadata: { name: 'x' }, spec: { containers: [] } })).toMatchObject({
      status: 422,
      json: { reason: 'Invalid', message: 'Pod "x" is invalid: spec.containers: Required value' },
    });
    expect((await api('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'kept' }, stringData: { a: 'b' } })).status).toBe(201);
    expect(await api('POST', '/api/v1/namespaces/default/secrets?dryRun=All', { metadata: { name: 'kept' } })).toMatchObject({ status: 409, json: { reason: 'AlreadyExists' } });
  });

  it('delete: answers as a deletion would, and the object stays', async () => {
    expect((await api('DELETE', '/api/v1/namespaces/default/secrets/kept', { dryRun: ['All'] })).status).toBe(200);
    expect((await api('DELETE', '/api/v1/namespaces/default/secrets/kept?dryRun=All')).status).toBe(200);
    expect((await api('GET', '/api/v1/namespaces/default/secrets/kept')).status).toBe(200);
  });

  it('refuses a dryRun value other than All, as the apiserver does', async () => {
    expect(await api('POST', '/api/v1/namespaces/default/pods?dryRun=Yes', pod('dry-2', 'Never'))).toMatchObject({
      status: 422,
      json: { reason: 'Invalid', message: 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Yes"}: supported values: "All"' },
    });
    expect((await api('GET', '/api/v1/namespaces/default/pods/dry-2')).status).toBe(404);
  });
});

describe('restartPolicy', () => {
  it.each(['Always', 'OnFailure'])('%s is refused with 422: the node never restarts a container', async (policy) => {
    expect(await api('POST', '/api/v1/namespaces/default/pods', pod('restarts', policy))).toMatchObject({
      status: 422,
      json: {
        reason: 'Invalid',
        message: `Pod "restarts" is invalid: spec.restartPolicy: Unsupported value: "${policy}": supported values: "Never"`,
        details: { causes: [{ reason: 'FieldValueNotSupported', field: 'spec.restartPolicy' }] },
      },
    });
  });

  it('a pod that names none gets Never, what this node does', async () => {
    const created = await api('POST', '/api/v1/namespaces/default/pods?dryRun=All', pod('unnamed-policy'));
    expect(created.json.spec.restartPolicy).toBe('Never');
  });
});

describeRequiring('kubectl', KUBECTL_ON_PATH, () => {
  const kubectl = kubectlIn(() => dir);

  test('kubectl run --dry-run=server answers "created (server dry run)" and creates nothing', async () => {
    const answer = await kubectl('run', 'tryout', '--image=alpine:3.20', '--restart=Never', '--dry-run=server', '--', 'sh', '-c', 'touch ran.txt');
    expect(answer).toMatchObject({ code: 0, stdout: expect.stringContaining('pod/tryout created (server dry run)') });
    expect((await kubectl('get', 'pod', 'tryout')).stderr).toContain('pods "tryout" not found');
  });

  test('kubectl apply --dry-run=server validates a manifest without creating it', async () => {
    const file = join(dir, 'pod.yaml');
    writeFileSync(file, JSON.stringify(pod('applied', 'Never')));
    expect(await kubectl('apply', '--dry-run=server', '-f', file)).toMatchObject({ code: 0, stdout: expect.stringContaining('pod/applied created (server dry run)') });
    expect((await kubectl('get', 'pod', 'applied')).code).not.toBe(0);
    writeFileSync(file, JSON.stringify({ ...pod('applied', 'Never'), spec: { containers: [{ name: 'main' }] } }));
    const refused = await kubectl('apply', '--dry-run=server', '-f', file);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('spec.containers[0].image: Required value');
  });

  test('kubectl run without --restart=Never is refused with the apiserver\'s kind of error', async () => {
    const refused = await kubectl('run', 'keeps-restarting', '--image=alpine:3.20', '--', 'sleep', '1');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('The Pod "keeps-restarting" is invalid: spec.restartPolicy: Unsupported value: "Always": supported values: "Never"');
    expect((await kubectl('get', 'pod', 'keeps-restarting')).code).not.toBe(0);
  });
});
