/**
 * The local stack's own S3: the cache's and artifacts' bucket when a build runs on this machine.
 *
 * Why not an existing one: the local stack must run on a fresh machine with Node 20 and npm only,
 * so moto_server (Python) is out; and a second `run` must restore what the first saved, so the
 * objects must persist on disk, which moto (memory only) does not do either. s3rver persists but
 * has no conditional PUT (`If-None-Match: *`, which the cache's save relies on) and has been
 * unmaintained since 2021. So this is a small server of exactly the operations the runner uses
 * (conditional PUTs too: If-None-Match: * for the cache, If-Match: <ETag> for concurrency groups),
 * path-style only (`/bucket/key`), with signatures checked as S3 checks them (an expired or
 * tampered presigned URL fails here as it would on AWS). test/s3-protocol.integration.test.ts
 * runs the same cases against it and against moto_server, to keep it honest.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CHECKED_ALGORITHMS, ChecksumTap, checksumHeader, type ChecksumAlgorithm } from './checksums.js';
import { deleteExpired, type ExpiryRule } from './expiry.js';
import { listPage, listPageXml, listParameters } from './list-objects.js';
import { ObjectStore, sameEtag, type ObjectInfo } from './object-store.js';
import { receiveBody } from './put-body.js';
import { S3Error, s3Errors } from './s3-errors.js';
import { verifySignature, type SigningSecret } from './sigv4.js';
import { escapeXml, parseDeleteRequest } from './xml.js';

export interface LocalS3Options {
  /** Where the objects live; the same directory on the next start gives the same objects back. */
  dir: string;
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  region?: string;
  /** The one key pair it accepts. */
  credentials: SigningSecret;
  /** Made at start when missing. */
  buckets: readonly string[];
  /** Objects under a prefix older than `days` are deleted at start and every hour. */
  expiry?: readonly ExpiryRule[];
  /** ms since the epoch; the request-time checks, Last-Modified and expiry read it. */
  clock?: () => number;
}

export interface LocalS3 {
  /** `http://host:port`, for a client with forcePathStyle. */
  endpoint: string;
  close(): Promise<void>;
}

const EXPIRY_INTERVAL_MS = 60 * 60 * 1000;
const MAX_DELETE_BODY_BYTES = 2 * 1024 * 1024;

interface Context {
  store: ObjectStore;
  options: LocalS3Options & { region: string; clock: () => number };
}

export async function startLocalS3(options: LocalS3Options): Promise<LocalS3> {
  const { host = '127.0.0.1', port = 0, region = 'us-east-1', clock = Date.now } = options;
  const store = await ObjectStore.open(options.dir);
  for (const bucket of options.buckets) await store.createBucket(bucket);
  const context: Context = { store, options: { ...options, region, clock } };
  const sweep = async () => {
    if (options.expiry && options.expiry.length > 0) await deleteExpired(store, options.expiry, clock());
  };
  await sweep();
  const timer = setInterval(() => void sweep().catch(() => undefined), EXPIRY_INTERVAL_MS);
  timer.unref();

  const server = createServer((request, response) => {
    const requestId = randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase();
    response.setHeader('x-amz-request-id', requestId);
    // The SDK sets its clock offset from this header, so it must be the clock the checks read.
    response.setHeader('Date', new Date(clock()).toUTCString());
    handle(request, response, context).catch((error: unknown) => {
      const failure = error instanceof S3Error ? error : new S3Error(500, 'InternalError', `We encountered an internal error: ${(error as Error).message}`);
      if (response.headersSent) {
        response.destroy();
        return;
      }
      request.resume();
      const body = request.method === 'HEAD' ? '' : failure.toXml(requestId);
      response.writeHead(failure.status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) });
      response.end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    endpoint: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    async close() {
      clearInterval(timer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** Query pairs decoded the way SigV4 reads them (`+` is a plus, as the SDK encodes a space %20). */
function parseQuery(rawQuery: string): [string, string][] {
  if (rawQuery === '') return [];
  try {
    return rawQuery.split('&').map((pair) => {
      const at = pair.indexOf('=');
      return at < 0 ? [decodeURIComponent(pair), ''] : [decodeURIComponent(pair.slice(0, at)), decodeURIComponent(pair.slice(at + 1))];
    });
  } catch {
    throw s3Errors.invalidRequest('The query string is not valid percent-encoding.');
  }
}

async function handle(request: IncomingMessage, response: ServerResponse, { store, options }: Context): Promise<void> {
  const url = request.url ?? '/';
  const mark = url.indexOf('?');
  const rawPath = mark < 0 ? url : url.slice(0, mark);
  const pairs = parseQuery(mark < 0 ? '' : url.slice(mark + 1));
  const method = request.method ?? 'GET';
  if (!rawPath.startsWith('/')) throw s3Errors.invalidRequest('Only path-style requests (/bucket/key) are served.');
  const verified = verifySignature({ method, rawPath, query: pairs, headers: request.headers }, { credentials: options.credentials, region: options.region, now: options.clock() });
  const query = new URLSearchParams(pairs);

  const slash = rawPath.indexOf('/', 1);
  const bucket = decodeURIComponent(slash < 0 ? rawPath.slice(1) : rawPath.slice(1, slash));
  const key = slash < 0 ? '' : decodeURIComponent(rawPath.slice(slash + 1));
  if (bucket === '') throw s3Errors.notImplemented('ListBuckets');

  if (key === '') {
    if (method === 'PUT') {
      await store.createBucket(bucket);
      response.writeHead(200, { Location: `/${bucket}`, 'Content-Length': 0 }).end();
      return;
    }
    if (!store.hasBucket(bucket)) throw s3Errors.noSuchBucket(bucket);
    if (method === 'HEAD') return void response.writeHead(200, { 'Content-Length': 0 }).end();
    if (method === 'GET' && query.get('list-type') === '2') return listObjects(response, store, bucket, query);
    if (method === 'GET') throw s3Errors.notImplemented('this bucket GET (only ListObjectsV2, list-type=2)');
    if (method === 'POST' && query.has('delete')) return deleteObjects(request, response, store, bucket, verified.payloadHash, claimedChecksums(request, query));
    throw s3Errors.methodNotAllowed();
  }

  if (!store.hasBucket(bucket)) throw s3Errors.noSuchBucket(bucket);
  if (query.has('uploadId') || query.has('uploads') || query.has('partNumber')) throw s3Errors.notImplemented('multipart uploads');
  switch (method) {
    case 'PUT':
      return putObject(request, response, store, bucket, key, verified.payloadHash, claimedChecksums(request, query), options.clock);
    case 'GET':
    case 'HEAD':
      return getObject(request, response, store, bucket, key, method === 'HEAD');
    case 'DELETE':
      await store.delete(bucket, key);
      response.writeHead(204).end();
      return;
    default:
      throw s3Errors.methodNotAllowed();
  }
}

/** x-amz-checksum-ALGORITHM as a header or, on a presigned URL, a query parameter. */
function claimedChecksums(request: IncomingMessage, query: URLSearchParams): Map<ChecksumAlgorithm, string> {
  const claimed = new Map<ChecksumAlgorithm, string>();
  for (const algorithm of CHECKED_ALGORITHMS) {
    const header = request.headers[checksumHeader(algorithm)];
    const value = typeof header === 'string' ? header : (query.get(checksumHeader(algorithm)) ?? undefined);
    if (value !== undefined) claimed.set(algorithm, value);
  }
  return claimed;
}

async function putObject(
  request: IncomingMessage,
  response: ServerResponse,
  store: ObjectStore,
  bucket: string,
  key: string,
  payloadHash: string,
  checksums: ReadonlyMap<ChecksumAlgorithm, string>,
  clock: () => number,
): Promise<void> {
  if (request.headers['x-amz-copy-source'] !== undefined) throw s3Errors.notImplemented('CopyObject');
  if (Buffer.byteLength(key, 'utf8') > 1024) throw new S3Error(400, 'KeyTooLongError', 'Your key is too long');
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && ifNoneMatch !== '*') throw s3Errors.notImplemented('If-None-Match other than *');
  // If-Match: <ETag> replaces only the object of that ETag (quoted or not, as S3 takes it); no
  // object at all is 404 NoSuchKey, another ETag 412 (Amazon S3 User Guide, conditional writes).
  const ifMatch = request.headers['if-match'];
  if (ifMatch !== undefined && ifNoneMatch !== undefined) throw s3Errors.notImplemented('If-Match together with If-None-Match');
  // Fail fast when the condition fails already; the decision that counts is made again under the lock.
  if (ifNoneMatch === '*' && store.head(bucket, key)) throw s3Errors.preconditionFailed();
  if (ifMatch !== undefined) {
    const current = store.head(bucket, key);
    if (!current) throw s3Errors.noSuchKey(key);
    if (!sameEtag(current.etag, ifMatch)) throw s3Errors.preconditionFailed('If-Match');
  }
  const file = store.incomingFile();
  try {
    const body = await receiveBody(request, file, payloadHash, checksums);
    const stored = await store.put(bucket, key, body, {
      contentType: request.headers['content-type'] ?? 'binary/octet-stream',
      ifNoneMatch: ifNoneMatch === '*',
      ...(ifMatch !== undefined ? { ifMatch } : {}),
      now: clock(),
    });
    response.writeHead(200, { ETag: stored.etag, 'Content-Length': 0 }).end();
  } finally {
    await store.discard(file);
  }
}

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` -> [start, end] inclusive; undefined for the whole object (S3 ignores what it cannot parse). */
function byteRange(header: string | undefined, size: number): [number, number] | undefined {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) throw s3Errors.invalidRange();
    return [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size) throw s3Errors.invalidRange();
  if (end < start) return undefined;
  return [start, end];
}

function objectHeaders(info: ObjectInfo): Record<string, string | number> {
  return { ETag: info.etag, 'Last-Modified': new Date(info.lastModified).toUTCString(), 'Content-Type': info.contentType, 'Accept-Ranges': 'bytes' };
}

async function getObject(request: IncomingMessage, response: ServerResponse, store: ObjectStore, bucket: string, key: string, headOnly: boolean): Promise<void> {
  if (headOnly) {
    const info = store.head(bucket, key);
    if (!info) throw s3Errors.noSuchKey(key);
    response.writeHead(200, { ...objectHeaders(info), 'Content-Length': info.size }).end();
    return;
  }
  const opened = await store.openObject(bucket, key);
  if (!opened) throw s3Errors.noSuchKey(key);
  const { info, file } = opened;
  let range: [number, number] | undefined;
  try {
    range = byteRange(request.headers.range, info.size);
  } catch (error) {
    await file.close();
    throw error;
  }
  if (info.size === 0) {
    await file.close();
    response.writeHead(200, { ...objectHeaders(info), 'Content-Length': 0 }).end();
    return;
  }
  const [start, end] = range ?? [0, info.size - 1];
  response.writeHead(range ? 206 : 200, {
    ...objectHeaders(info),
    'Content-Length': end - start + 1,
    ...(range ? { 'Content-Range': `bytes ${start}-${end}/${info.size}` } : {}),
  });
  const stream = file.createReadStream({ start, end, autoClose: true });
  stream.on('error', () => response.destroy());
  response.on('close', () => stream.destroy());
  stream.pipe(response);
}

function listObjects(response: ServerResponse, store: ObjectStore, bucket: string, query: URLSearchParams): void {
  const parameters = listParameters(query);
  const body = listPageXml(bucket, parameters, listPage(store.list(bucket), parameters));
  response.writeHead(200, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) }).end(body);
}

/** A small body whole, held to the hashes the request claims for it, as a PUT's is. */
async function readSmallBody(request: IncomingMessage, limit: number, payloadHash: string, checksums: ReadonlyMap<ChecksumAlgorithm, string>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw s3Errors.malformedXml();
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks);
  if (/^[0-9a-f]{64}$/.test(payloadHash) && createHash('sha256').update(body).digest('hex') !== payloadHash) throw s3Errors.contentSha256Mismatch();
  const tap = new ChecksumTap(new Set(checksums.keys()));
  tap.update(body);
  for (const [algorithm, value] of checksums) if (tap.digest(algorithm) !== value) throw s3Errors.badDigest(algorithm);
  return body.toString('utf8');
}

async function deleteObjects(request: IncomingMessage, response: ServerResponse, store: ObjectStore, bucket: string, payloadHash: string, checksums: ReadonlyMap<ChecksumAlgorithm, string>): Promise<void> {
  const parsed = parseDeleteRequest(await readSmallBody(request, MAX_DELETE_BODY_BYTES, payloadHash, checksums));
  if (!parsed) throw s3Errors.malformedXml();
  for (const key of parsed.keys) await store.delete(bucket, key);
  const deleted = parsed.quiet ? '' : parsed.keys.map((key) => `<Deleted><Key>${escapeXml(key)}</Key></Deleted>`).join('');
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${deleted}</DeleteResult>`;
  response.writeHead(200, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) }).end(body);
}
