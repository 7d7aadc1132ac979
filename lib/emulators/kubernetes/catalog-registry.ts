/**
 * The image catalog served as a registry (the OCI distribution API) on loopback, so the runner's
 * image check asks it what the simulated node would pull, over the same requests it sends to a
 * real registry. It is a mirror for every registry: the upstream comes in `ns`, as containerd
 * sends it to mirrors. Answers follow what the real registries answer for the same case, the
 * anonymous token flow included (Docker Hub's), except for an image the catalog lacks: that one
 * is "not in the local image catalog", never "does not exist".
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { digestOf, resolveImage, type ImageCatalog } from './image-catalog.js';
import { notInCatalogWords } from './pull-errors.js';

export interface CatalogRegistry {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Requests answered so far, tokens included (for the benchmark and tests). */
  requests(): number;
  stop(): Promise<void>;
}

const SERVICE = 'embedded-catalog-registry';
const INDEX_MEDIA_TYPE = 'application/vnd.oci.image.index.v1+json';

export async function startCatalogRegistry(catalog: ImageCatalog, host = '127.0.0.1'): Promise<CatalogRegistry> {
  const tokens = new Set<string>();
  let answered = 0;
  let url = '';
  const server: Server = createServer((req, res) => {
    answered += 1;
    try {
      const requestUrl = new URL(req.url ?? '/', url);
      if (requestUrl.pathname === '/token') return issueToken(res, tokens);
      if (requestUrl.pathname === '/v2/' || requestUrl.pathname === '/v2') {
        return authorized(req, tokens) ? json(res, 200, {}) : challenge(res, url);
      }
      const match = /^\/v2\/(.+)\/manifests\/([^/]+)$/.exec(requestUrl.pathname);
      if (!match) return errors(res, 404, 'NOT_FOUND', 'not found');
      const [, name, reference] = match as unknown as [string, string, string];
      if (!authorized(req, tokens)) return challenge(res, url, name);
      if (req.method !== 'GET' && req.method !== 'HEAD') return errors(res, 405, 'UNSUPPORTED', 'The operation is unsupported.');
      return manifest(req, res, catalog, requestUrl.searchParams.get('ns') ?? 'docker.io', name, reference);
    } catch (error) {
      return errors(res, 500, 'UNKNOWN', (error as Error).message);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    requests: () => answered,
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function manifest(req: IncomingMessage, res: ServerResponse, catalog: ImageCatalog, ns: string, name: string, reference: string): void {
  const separator = reference.includes(':') ? '@' : ':';
  const resolution = resolveImage(catalog, `${ns}/${name}${separator}${reference}`);
  switch (resolution.kind) {
    case 'invalid':
      return errors(res, 400, 'NAME_INVALID', `invalid repository name: ${resolution.message}`);
    // A miss is the catalog's, not the registry's: the image may exist there (pull-errors.ts).
    case 'unknown-tag':
      return errors(res, 404, 'MANIFEST_UNKNOWN', notInCatalogWords(), { Tag: reference });
    case 'unknown-repository':
      return errors(res, 404, 'NAME_UNKNOWN', notInCatalogWords(), { name });
    case 'unknown-registry': {
      // What the node would meet instead of an answer: no such host (or nothing listening on loopback).
      const local = /^(localhost|127\.|\[::1\])/.test(resolution.reference.domain);
      const words = local ? `dial tcp ${resolution.reference.domain}: connect: connection refused` : `dial tcp: lookup ${resolution.reference.domain.replace(/:\d+$/, '')}: no such host`;
      return errors(res, 502, 'UNAVAILABLE', words);
    }
    case 'found': {
      // Private entries refuse anonymous pulls, as the real registry refuses the anonymous token.
      if (resolution.entry.private) return errors(res, 401, 'UNAUTHORIZED', 'authentication required', [{ Type: 'repository', Name: name, Action: 'pull' }]);
      const body = JSON.stringify({ schemaVersion: 2, mediaType: INDEX_MEDIA_TYPE, manifests: [], annotations: { 'dev.step-runner.catalog': resolution.entry.image } });
      const digest = reference.startsWith('sha256:') ? reference : digestOf(resolution.entry, resolution.reference);
      res.writeHead(200, { 'content-type': INDEX_MEDIA_TYPE, 'content-length': Buffer.byteLength(body), 'docker-content-digest': digest, 'docker-distribution-api-version': 'registry/2.0' });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
  }
}

function authorized(req: IncomingMessage, tokens: Set<string>): boolean {
  const header = req.headers.authorization ?? '';
  return header.startsWith('Bearer ') && tokens.has(header.slice('Bearer '.length));
}

function issueToken(res: ServerResponse, tokens: Set<string>): void {
  const token = createHash('sha256').update(randomBytes(16)).digest('hex');
  tokens.add(token);
  json(res, 200, { token, access_token: token, expires_in: 300, issued_at: new Date().toISOString() });
}

function challenge(res: ServerResponse, url: string, name?: string): void {
  const scope = name ? `,scope="repository:${name}:pull"` : '';
  res.setHeader('www-authenticate', `Bearer realm="${url}/token",service="${SERVICE}"${scope}`);
  errors(res, 401, 'UNAUTHORIZED', 'authentication required');
}

function errors(res: ServerResponse, status: number, code: string, message: string, detail?: unknown): void {
  json(res, status, { errors: [{ code, message, ...(detail !== undefined ? { detail } : {}) }] });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'docker-distribution-api-version': 'registry/2.0' });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}
