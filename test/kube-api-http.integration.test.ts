/**
 * lib/kube against a scripted Kubernetes API on loopback: the real client, real HTTP, and the
 * failures a real API server or its load balancer produce (503, 429 + Retry-After, dropped
 * connections, Status bodies), which the embedded cluster never produces on its own.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { deleteStepPod, launchStepPod, observeStep, readStepLog, stepPodManifest } from '../lib/kube/index.js';
import { KubernetesUnavailable, PodConfigError } from '../lib/kube/index.js';
import { parseImageReference } from '../lib/pipeline/index.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Scripted {
  api: CoreV1Api;
  requests: { method: string; url: string }[];
  close(): Promise<void>;
}

/** Serves the handlers in turn, one per request (the last one repeats). */
async function scriptedApi(...handlers: Handler[]): Promise<Scripted> {
  const requests: { method: string; url: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '' });
      const handler = handlers.length > 1 ? handlers.shift()! : handlers[0]!;
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    // client-node refuses plain http unless TLS verification is explicitly off.
    clusters: [{ name: 'scripted', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'c', cluster: 'scripted', user: 'u' }],
    currentContext: 'c',
  });
  return {
    api: kubeConfig.makeApiClient(CoreV1Api),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json =
  (code: number, object: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(object));
  };
const status = (code: number, reason: string, message: string, headers: Record<string, string> = {}) =>
  json(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message, code }, headers);
const dropConnection: Handler = (req) => req.socket.destroy();

const pod = (name: string, uid = 'uid-1') => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'ci', uid },
  status: { phase: 'Pending' },
});
const fastRetry = { sleep: async () => {} };

let scripted: Scripted | undefined;
afterEach(async () => {
  await scripted?.close();
  scripted = undefined;
});

describe('lib/kube over HTTP', () => {
  it('retries a 503 and a dropped connection, then reads the pod', async () => {
    scripted = await scriptedApi(
      status(503, 'ServiceUnavailable', 'apiserver is shutting down'),
      dropConnection,
      json(200, pod('p')),
      json(200, { kind: 'EventList', apiVersion: 'v1', metadata: {}, items: [] }),
    );
    const observation = await observeStep(scripted.api, 'ci', 'p', { now: () => new Date(0), retry: fastRetry });
    expect(observation.pod?.metadata?.name).toBe('p');
    expect(scripted.requests.length).toBeGreaterThanOrEqual(4);
  });

  it('waits as long as Retry-After says on a 429', async () => {
    scripted = await scriptedApi(status(429, 'TooManyRequests', 'slow down', { 'retry-after': '1' }), json(200, pod('p')));
    const waits: number[] = [];
    const removed = await deleteStepPod(scripted.api, 'ci', 'p', { sleep: async (ms) => void waits.push(ms) });
    expect(removed).toBe(true);
    expect(waits).toEqual([1000]);
    expect(scripted.requests.map((r) => r.method)).toEqual(['DELETE', 'DELETE']);
  });

  it('ends in KubernetesUnavailable with the server words when the API keeps failing', async () => {
    scripted = await scriptedApi(status(503, 'ServiceUnavailable', 'etcd cluster is unavailable'));
    const error = await observeStep(scripted.api, 'ci', 'p', { retry: fastRetry }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesUnavailable);
    expect((error as Error).message).toMatch(/failed 5 times; last error: 503 ServiceUnavailable: etcd cluster is unavailable/);
  });

  it('reports a pod that is gone as null and asks for its events with an escaped field selector', async () => {
    scripted = await scriptedApi((req, res, body) => {
      if (req.url?.includes('/events')) return json(200, { kind: 'EventList', apiVersion: 'v1', metadata: {}, items: [] })(req, res, body);
      return status(404, 'NotFound', 'pods "a,b=c" not found')(req, res, body);
    });
    const observation = await observeStep(scripted.api, 'ci', 'a,b=c', { now: () => new Date(5), retry: fastRetry });
    expect(observation).toEqual({ pod: null, events: [], observedAt: new Date(5) });
    expect(scripted.requests).toHaveLength(2);
    const eventsUrl = new URL(scripted.requests.find((r) => r.url.includes('/events'))!.url, 'http://x');
    expect(eventsUrl.pathname).toBe('/api/v1/namespaces/ci/events');
    expect(eventsUrl.searchParams.get('fieldSelector')).toBe('involvedObject.name=a\\,b\\=c');
  });

  it('turns a 422 on create into PodConfigError with the API message, without retrying', async () => {
    scripted = await scriptedApi(
      status(422, 'Invalid', 'Pod "p" is invalid: spec.containers[0].image: Required value'),
    );
    const error = await launchStepPod(
      scripted.api,
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ci' }, spec: { containers: [] } },
      fastRetry,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PodConfigError);
    expect((error as Error).message).toContain('spec.containers[0].image: Required value');
    expect(scripted.requests).toHaveLength(1);
  });

  it.each([
    ['Pod Security', 'pods "p" is forbidden: violates PodSecurity "restricted:latest": runAsNonRoot != true (pod or container "step" must set securityContext.runAsNonRoot=true)'],
    ['a ResourceQuota that wants limits', 'pods "p" is forbidden: failed quota: compute-resources: must specify limits.cpu for: step; limits.memory for: step'],
    ['a LimitRange', 'pods "p" is forbidden: maximum cpu usage per Container is 2, but limit is 4'],
    ['a validating webhook', 'admission webhook "validation.gatekeeper.sh" denied the request: [must-have-team] you must provide labels: {"team"}'],
  ])('fails a pod refused at admission by %s at once, as PodConfigError with the API server\'s words', async (_rule, message) => {
    scripted = await scriptedApi(status(403, 'Forbidden', message));
    const manifest = stepPodManifest({ buildId: 'b-1', namespace: 'ci', step: { name: 'test', image: 'node:22-alpine', imageRef: parseImageReference('node:22-alpine'), commands: ['npm test'], env: {}, secrets: [], pull: 'if-not-present', timeoutSeconds: 600 } });
    const error = await launchStepPod(scripted.api, manifest, fastRetry).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PodConfigError);
    expect((error as Error).message).toMatch(
      /^Namespace "ci" refused the pod for step "test" of build "b-1" at admission \(Pod Security, a ResourceQuota or LimitRange, or an admission webhook\): 403 Forbidden: /,
    );
    expect((error as Error).message.endsWith(message)).toBe(true);
    expect(scripted.requests).toHaveLength(1);
  });

  it.each([
    ['the runner may not create pods (RBAC)', 'pods is forbidden: User "system:serviceaccount:ci:runner" cannot create resource "pods" in API group "" in the namespace "ci"'],
    ['the quota is used up for now', 'pods "p" is forbidden: exceeded quota: compute-resources, requested: pods=1, used: pods=10, limited: pods=10'],
  ])('leaves a 403 that is not about the pod itself as KubernetesUnavailable: %s', async (_why, message) => {
    scripted = await scriptedApi(status(403, 'Forbidden', message));
    const error = await launchStepPod(scripted.api, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ci' }, spec: { containers: [] } }, fastRetry).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KubernetesUnavailable);
    expect((error as Error).message).toContain(message);
  });

  it('turns a 403 into KubernetesUnavailable naming what was refused', async () => {
    scripted = await scriptedApi(
      status(403, 'Forbidden', 'pods "p" is forbidden: User "runner" cannot get resource "pods/log"'),
    );
    const error = await readStepLog(scripted.api, 'ci', 'p', {}, fastRetry).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesUnavailable);
    expect((error as Error).message).toBe(
      'The Kubernetes API refused to read log of pod ci/p: 403 Forbidden: pods "p" is forbidden: User "runner" cannot get resource "pods/log"',
    );
  });

  it('asks for a bounded tail of the step container log', async () => {
    scripted = await scriptedApi((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('+ echo hi\nhi\n');
    });
    await expect(readStepLog(scripted.api, 'ci', 'p', { tailLines: 5 }, fastRetry)).resolves.toBe('+ echo hi\nhi\n');
    const url = new URL(scripted.requests[0]!.url, 'http://x');
    expect(url.pathname).toBe('/api/v1/namespaces/ci/pods/p/log');
    expect(url.searchParams.get('container')).toBe('step');
    expect(url.searchParams.get('tailLines')).toBe('5');
    expect(url.searchParams.get('limitBytes')).toBe(String(64 * 1024));
  });
});
