/**
 * The image check against real registries: Debian's docker-registry (the CNCF distribution
 * registry) on loopback, open and behind htpasswd, and the embedded cluster's catalog registry.
 * What a real registry cannot be made to do on demand (hang, rate-limit, refuse connections) is
 * played by the smallest server that does it.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { checkImages, dockerConfigLookup, imageChecker, MANIFEST_ACCEPT, type ImageVerdict } from '../lib/registry/index.js';
import { pullSecretsReader, readPullSecretConfigs, type PullSecretsApi } from '../lib/kube/pull-secrets.js';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { distributionRegistryInstalled, startDistributionRegistry, type DistributionRegistry, OCI_INDEX, OCI_MANIFEST } from './fixtures/distribution-registry.js';
import { describeRequiring } from './fixtures/requirements.js';
import { parseImageReference } from '../lib/pipeline/index.js';

const one = async (image: string, options: Parameters<typeof checkImages>[1] = {}): Promise<ImageVerdict> => (await checkImages([parseImageReference(image)], options)).get(image)!;

describeRequiring('the distribution registry', distributionRegistryInstalled, () => {
  let open: DistributionRegistry;
  let locked: DistributionRegistry;
  let appDigest: string;
  let indexDigest: string;
  const user = { username: 'ci', password: 'correct horse' };

  beforeAll(async () => {
    [open, locked] = await Promise.all([startDistributionRegistry(), startDistributionRegistry({ htpasswd: user })]);
    appDigest = await open.push('team/app', '1.0');
    indexDigest = await open.pushIndex('team/multi', '2.0');
    await locked.push('team/secret', '1.0');
  }, 30_000);

  afterAll(async () => {
    await Promise.all([open?.stop(), locked?.stop()]);
  });

  it('finds a pushed image, with the digest the registry gave it', async () => {
    expect(await one(`${open.host}/team/app:1.0`)).toEqual({ kind: 'found', digest: appDigest, mediaType: OCI_MANIFEST });
  });

  it('finds it by digest too', async () => {
    expect(await one(`${open.host}/team/app@${appDigest}`)).toMatchObject({ kind: 'found', digest: appDigest });
  });

  it('finds a multi-arch index, as an index', async () => {
    expect(await one(`${open.host}/team/multi:2.0`)).toEqual({ kind: 'found', digest: indexDigest, mediaType: OCI_INDEX });
  });

  it('says not found for an unknown tag, in the registry\'s words', async () => {
    expect(await one(`${open.host}/team/app:9.9`)).toEqual({ kind: 'not-found', status: 404, words: '404 MANIFEST_UNKNOWN: manifest unknown' });
  });

  it('says not found for an unknown repository', async () => {
    expect(await one(`${open.host}/team/nothing-here:1.0`)).toMatchObject({ kind: 'not-found', status: 404 });
  });

  it('is inconclusive, not a failure, when the registry wants credentials the check does not have', async () => {
    expect(await one(`${locked.host}/team/secret:1.0`)).toMatchObject({ kind: 'inconclusive', reason: 'unauthorized' });
    // Even for an image that does not exist: without credentials the registry says nothing about it.
    expect(await one(`${locked.host}/team/secret:9.9`)).toMatchObject({ kind: 'inconclusive', reason: 'unauthorized' });
  });

  it('finds and misses images behind htpasswd with the pull secret\'s credentials', async () => {
    const auth = Buffer.from(`${user.username}:${user.password}`).toString('base64');
    const credentials = dockerConfigLookup([JSON.stringify({ auths: { [`http://${locked.host}`]: { auth } } })]);
    expect(await one(`${locked.host}/team/secret:1.0`, { credentials })).toMatchObject({ kind: 'found', digest: expect.stringMatching(/^sha256:/) });
    expect(await one(`${locked.host}/team/secret:9.9`, { credentials })).toMatchObject({ kind: 'not-found', words: '404 MANIFEST_UNKNOWN: manifest unknown' });
  });

  it('is inconclusive when the registry refuses the credentials', async () => {
    const credentials = async () => ({ username: user.username, password: 'wrong' });
    expect(await one(`${locked.host}/team/secret:1.0`, { credentials })).toMatchObject({ kind: 'inconclusive', reason: 'unauthorized', words: expect.stringContaining('refused the credentials') });
  });

  it('reads the credentials from the namespace\'s pull secrets (the default service account\'s dockerconfigjson)', async () => {
    const config = JSON.stringify({ auths: { [locked.host]: { username: user.username, password: user.password } } });
    const api = {
      readNamespacedServiceAccount: async () => ({ imagePullSecrets: [{ name: 'gone' }, { name: 'regcred' }] }),
      readNamespacedSecret: async ({ name }: { name: string }) => {
        if (name === 'gone') throw Object.assign(new Error('HTTP-Code: 404'), { code: 404 });
        return { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from(config).toString('base64') } };
      },
    } as unknown as PullSecretsApi;
    const check = imageChecker({ readPullSecrets: pullSecretsReader(async () => api) });
    const report = await check([parseImageReference(`${locked.host}/team/secret:1.0`), parseImageReference(`${open.host}/team/app:1.0`)], 'builds');
    expect(report.verdicts.get(`${locked.host}/team/secret:1.0`)).toMatchObject({ kind: 'found' });
    expect(report.notes).toEqual(['pull secrets not read: secret builds/gone: HTTP 404']);
  });

  it('asks with the Accept headers of every manifest kind, one HEAD per found image', async () => {
    const seen: { method: string; accept: string | null }[] = [];
    const counting: typeof fetch = async (input, init) => {
      seen.push({ method: init?.method ?? 'GET', accept: new Headers(init?.headers).get('accept') });
      return fetch(input, init);
    };
    await one(`${open.host}/team/app:1.0`, { fetch: counting });
    expect(seen).toEqual([{ method: 'HEAD', accept: MANIFEST_ACCEPT }]);
  });
});

describe('registries that give no answer worth failing a build on', () => {
  let hanging: TcpServer;
  const sockets: Socket[] = [];
  let limited: Server;
  let refusedPort: number;

  beforeAll(async () => {
    hanging = createTcpServer((socket) => sockets.push(socket));
    limited = createHttpServer((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '30' });
      res.end(JSON.stringify({ errors: [{ code: 'TOOMANYREQUESTS', message: 'You have reached your pull rate limit.' }] }));
    });
    await Promise.all([hanging, limited].map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    refusedPort = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all([hanging, limited].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  });

  const port = (server: TcpServer | Server) => (server.address() as { port: number }).port;

  it('a registry that never answers: inconclusive (timeout)', async () => {
    expect(await one(`127.0.0.1:${port(hanging)}/team/app:1`, { timeoutMs: 200 })).toMatchObject({ kind: 'inconclusive', reason: 'timeout' });
  });

  it('a rate limit: inconclusive (rate-limited), asked once (a GET would count against the limit)', async () => {
    let requests = 0;
    const counting: typeof fetch = async (input, init) => ((requests += 1), fetch(input, init));
    expect(await one(`127.0.0.1:${port(limited)}/team/app:1`, { fetch: counting })).toEqual({ kind: 'inconclusive', reason: 'rate-limited', words: '429 (retry after 30)' });
    expect(requests).toBe(1);
  });

  it('a refused connection: inconclusive (unreachable)', async () => {
    expect(await one(`127.0.0.1:${refusedPort}/team/app:1`)).toMatchObject({ kind: 'inconclusive', reason: 'unreachable', words: expect.stringContaining('ECONNREFUSED') });
  });

  it('a host that does not resolve: inconclusive (unreachable)', async () => {
    expect(await one('no-such-registry.invalid/team/app:1')).toMatchObject({ kind: 'inconclusive', reason: 'unreachable' });
  });
});

describe('the embedded cluster\'s catalog registry', () => {
  let cluster: EmbeddedCluster;
  const mirror = () => cluster.registry.url;

  beforeAll(async () => {
    cluster = await startEmbeddedCluster({
      timings: FAST_TIMINGS,
      images: [
        { image: 'registry.example.com/team/secret-tool:1', private: true },
        { image: 'ghcr.io/acme/builder:7', digest: `sha256:${'7'.repeat(64)}` },
      ],
    });
  });

  afterAll(async () => {
    await cluster.stop();
  });

  it.each<[string, string, Partial<ImageVerdict> & { kind: string }]>([
    ['a catalog image', 'alpine:3.20', { kind: 'found', mediaType: OCI_INDEX }],
    ['its listed digest', 'ghcr.io/acme/builder:7', { kind: 'found', digest: `sha256:${'7'.repeat(64)}` }],
    ['by that digest', `ghcr.io/acme/builder@sha256:${'7'.repeat(64)}`, { kind: 'found' }],
    // A miss is the catalog's: not "unknown" to the registry, which may well have the image.
    ['an unknown tag of a known repository', 'alpine:3.99-nope', { kind: 'not-found', words: expect.stringMatching(/^404 MANIFEST_UNKNOWN: not in the local image catalog: .*--images FILE/) }],
    ['an unknown repository on another registry', 'ghcr.io/acme/nothing:1', { kind: 'not-found', words: expect.stringMatching(/^404 NAME_UNKNOWN: not in the local image catalog/) }],
    ['an unknown Docker Hub repository', 'nosuchuser/nosuchimage:1', { kind: 'not-found', words: expect.stringMatching(/^404 NAME_UNKNOWN: not in the local image catalog/) }],
    ['a private image', 'registry.example.com/team/secret-tool:1', { kind: 'inconclusive', reason: 'unauthorized' }],
    ['a registry host that does not exist', 'nowhere.example.net/x/y:1', { kind: 'inconclusive', reason: 'registry-error', words: expect.stringContaining('no such host') }],
  ])('%s (%s)', async (_title, image, expected) => {
    expect(await one(image, { mirror: mirror() })).toMatchObject(expected);
  });

  it('follows the anonymous token flow as on Docker Hub: HEAD, token, HEAD', async () => {
    const seen: string[] = [];
    const counting: typeof fetch = async (input, init) => {
      seen.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
      return fetch(input, init);
    };
    await one('busybox:1.37', { mirror: mirror(), fetch: counting });
    expect(seen).toEqual(['HEAD /v2/library/busybox/manifests/1.37', 'GET /token', 'HEAD /v2/library/busybox/manifests/1.37']);
  });

  it('gives the digest the kubelet reports for the same image', async () => {
    const verdict = await one('alpine:3.20', { mirror: mirror() });
    expect(verdict).toMatchObject({ kind: 'found', digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
  });
});

describe('readPullSecretConfigs', () => {
  it('says why, and reads nothing, when the service account cannot be read', async () => {
    const api = {
      readNamespacedServiceAccount: async () => {
        throw Object.assign(new Error('forbidden'), { code: 403 });
      },
      readNamespacedSecret: async () => ({}),
    } as unknown as PullSecretsApi;
    expect(await readPullSecretConfigs(api, 'builds')).toEqual({ documents: [], unreadable: ['service account builds/default: HTTP 403'] });
  });

  it('reads the pods\' own pull secrets instead of the service account\'s, as the kubelet does', async () => {
    const read: string[] = [];
    const api = {
      readNamespacedServiceAccount: async () => {
        read.push('serviceaccount');
        return { imagePullSecrets: [{ name: 'from-account' }] };
      },
      readNamespacedSecret: async ({ name }: { name: string }) => {
        read.push(`secret ${name}`);
        if (name === 'missing') throw Object.assign(new Error('not found'), { code: 404 });
        return { data: { '.dockerconfigjson': Buffer.from(`{"auths":{"${name}.example.com":{}}}`).toString('base64') } };
      },
    } as unknown as PullSecretsApi;
    expect(await readPullSecretConfigs(api, 'builds', 'default', ['regcred', 'missing'])).toEqual({
      documents: ['{"auths":{"regcred.example.com":{}}}'],
      unreadable: ['secret builds/missing: HTTP 404'],
    });
    expect(read).toEqual(['secret regcred', 'secret missing']);
  });
});
