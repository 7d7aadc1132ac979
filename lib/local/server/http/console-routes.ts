/**
 * The console page's routes on the local server (I/O only; the pages are rendered in
 * lib/console):
 *   GET /, GET /executions            the list, when a browser asks for HTML
 *   GET /executions/NAME              one execution, when a browser asks for HTML
 *   GET /executions/NAME/stream       its live updates (server-sent events)
 *   GET /executions/NAME/steps/I/log  a step's whole log (text/plain)
 *   GET /executions/NAME/steps/I/artifacts/N  an artifact the step kept, from the store (a download)
 *   GET /console/stream               the list's live updates
 *   GET /console/assets/FILE          the stylesheet and the script
 * Anything else, and every request that does not ask for HTML, falls through to the JSON routes,
 * so scripts and curl get what they always got.
 */
import { closeSync, createReadStream, fstatSync, openSync, readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { consoleAsset } from '../../../console/assets.js';
import { executionModel } from '../../../console/execution-model.js';
import { clientModel, executionFragments, executionPage } from '../../../console/execution-page.js';
import { isSkippedKey } from '../../../console/step-list.js';
import type { GraphLayout } from '../../../console/graph-layout.js';
import { LIST_STREAM, listPage, listRows } from '../../../console/list-page.js';
import { ASSET_PREFIX } from '../../../console/page-shell.js';
import type { ExecutionChange, ExecutionDetail, ListedExecution } from '../../../console/execution-view.js';
import { finishedStep, isLaunchState, type ExecutionEvent } from '../../../emulators/stepfunctions/executor.js';
import { logTail } from '../../../workflow/log-tail.js';
import type { PollState } from '../../../workflow/state-data.js';
import type { CacheStore } from '../../../workflow/cache-store.js';

export interface ConsoleSource {
  list(): ListedExecution[];
  detail(name: string): ExecutionDetail | undefined;
  subscribe(listener: (change: ExecutionChange) => void): () => void;
}

export interface ConsoleRoutesOptions {
  executions: ConsoleSource;
  /**
   * The state machine's graph, laid out on the first page asked for (dagre takes about 0.4 CPU-s
   * for the definition, and most servers never draw a page) and kept: the definition does not
   * change while serving.
   */
  graph: () => GraphLayout;
  now?: () => Date;
  /** Live updates are sent at most this often, so a burst of polls is one update. */
  throttleMs?: number;
  /** Where the steps' artifacts are (the local cache store); without it their downloads answer 404. */
  artifacts?: Pick<CacheStore, 'download' | 'locationOf'>;
}

/** Handles the request and returns true, or returns false to let the JSON routes answer it. */
export type ConsoleRoutes = (request: IncomingMessage, response: ServerResponse, path: string) => Promise<boolean>;

export function createConsoleRoutes(options: ConsoleRoutesOptions): ConsoleRoutes {
  const now = options.now ?? (() => new Date());
  const throttleMs = options.throttleMs ?? 150;
  let laidOut: GraphLayout | undefined;
  const graph = () => (laidOut ??= options.graph());

  return async (request, response, path) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;

    if (path.startsWith(ASSET_PREFIX)) {
      const asset = await consoleAsset(path.slice(ASSET_PREFIX.length));
      if (!asset) return false;
      response.writeHead(200, { 'content-type': asset.contentType, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' }).end(asset.body);
      return true;
    }
    if (path === LIST_STREAM) {
      stream(request, response, options, () => ({ fragments: { 'x-list': listRows(options.executions.list(), now()).text } }), () => true, () => false, throttleMs);
      return true;
    }

    const segments = path.split('/').slice(1);
    if (segments[0] !== 'executions' && path !== '/') return false;
    let name: string | undefined;
    try {
      name = segments[1] === undefined || segments[1] === '' ? undefined : decodeURIComponent(segments[1]);
    } catch {
      return false;
    }
    const rest = segments.slice(2);

    if (name === undefined) {
      if (!wantsHtml(request)) return false;
      sendHtml(response, 200, listPage(options.executions.list(), now()).text);
      return true;
    }
    const detail = options.executions.detail(name);
    if (!detail) {
      if (!wantsHtml(request) || rest.length > 0) return false;
      sendHtml(response, 404, listPage(options.executions.list(), now(), `No execution named ${name} on this server.`).text);
      return true;
    }

    if (rest.length === 0) {
      if (!wantsHtml(request)) return false;
      const step = new URL(request.url ?? '/', 'http://local').searchParams.get('step');
      // An iteration by its index, or a skipped step (no iteration) by its key: step-list.ts.
      const requested = step !== null && /^\d+$/.test(step) ? Number(step) : step !== null && isSkippedKey(step) ? step : null;
      sendHtml(response, 200, executionPage(executionModel(withLiveLogs(detail)), graph(), requested, now()).text);
      return true;
    }
    if (rest.length === 1 && rest[0] === 'stream') {
      const current = () => {
        const model = executionModel(withLiveLogs(options.executions.detail(name)!));
        return { model: clientModel(model), fragments: executionFragments(model, model.defaultStep, now()) };
      };
      const ended = () => options.executions.detail(name)?.execution.status !== 'RUNNING';
      // A running step's log grows with no event to announce it: while the build runs, the page is sent again every second.
      stream(request, response, options, current, (change) => change.name === name, ended, throttleMs, LIVE_LOG_REFRESH_MS);
      return true;
    }
    if (rest.length === 3 && rest[0] === 'steps' && /^\d+$/.test(rest[1] ?? '') && rest[2] === 'log') {
      await sendLog(response, detail, Number(rest[1]));
      return true;
    }
    if (rest.length === 4 && rest[0] === 'steps' && /^\d+$/.test(rest[1] ?? '') && rest[2] === 'artifacts' && /^\d+$/.test(rest[3] ?? '')) {
      await sendArtifact(request, response, detail, Number(rest[1]), Number(rest[3]), options.artifacts);
      return true;
    }
    return false;
  };
}

/** A browser navigating asks for text/html; fetch(), curl and scripts do not. */
export function wantsHtml(request: IncomingMessage): boolean {
  return /\btext\/html\b/.test(request.headers.accept ?? '');
}

function sendHtml(response: ServerResponse, status: number, body: string): void {
  response
    .writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      vary: 'Accept',
      'cache-control': 'no-store',
      // Everything the page uses comes from this server; nothing may be loaded from elsewhere.
      'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'",
    })
    .end(body);
}

/**
 * Server-sent events: one `update` now, then one per burst of changes, then `end` once `ended()`
 * says so. The client closes on `end`; a dropped connection is resumed by EventSource itself.
 */
function stream(
  request: IncomingMessage,
  response: ServerResponse,
  options: ConsoleRoutesOptions,
  current: () => unknown,
  concerns: (change: ExecutionChange) => boolean,
  ended: () => boolean,
  throttleMs: number,
  refreshMs?: number,
): void {
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', vary: 'Accept' });
  response.write('retry: 1000\n\n');
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const send = () => {
    timer = undefined;
    if (closed) return;
    response.write(`event: update\ndata: ${JSON.stringify(current())}\n\n`);
    if (ended()) {
      response.write('event: end\ndata: {}\n\n');
      close();
      response.end();
    }
  };
  const unsubscribe = options.executions.subscribe((change) => {
    if (closed || !concerns(change)) return;
    // An execution's end is sent at once; anything else waits for the burst to pass.
    if (change.kind === 'ended') {
      if (timer) clearTimeout(timer);
      send();
    } else timer ??= setTimeout(send, throttleMs);
  });
  // Proxies and browsers drop idle connections; a comment line keeps this one open.
  const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), 15_000);
  const refresh = refreshMs ? setInterval(() => (timer ??= setTimeout(send, 0)), refreshMs) : undefined;
  const close = () => {
    closed = true;
    unsubscribe();
    clearInterval(heartbeat);
    clearInterval(refresh);
    if (timer) clearTimeout(timer);
  };
  request.on('close', close);
  send();
}

/**
 * Only a file this execution's history names for that step is served: the log FinishStep kept,
 * or while the step runs, the log store's live copy that LaunchStep named.
 */
async function sendLog(response: ServerResponse, detail: ExecutionDetail, index: number): Promise<void> {
  const file = finishedStep(detail.history, index)?.log ?? liveLogFile(detail.history, index) ?? null;
  const plain = { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };
  if (!file || file.startsWith('s3://')) {
    response.writeHead(404, plain).end(file ? `The log is in ${file}.\n` : 'No log was kept for this step (yet).\n');
    return;
  }
  let info;
  try {
    info = await stat(file);
    response.writeHead(200, { ...plain, 'content-length': info.size });
  } catch {
    response.writeHead(410, plain).end(`The log file ${file} is gone.\n`);
    return;
  }
  // A running step's log grows while it is sent: no more than the length announced.
  if (info.size === 0) response.end();
  else createReadStream(file, { end: info.size - 1 }).pipe(response);
}

/**
 * Only an artifact this execution's history names for that step is served (FinishStep's result),
 * and only from the store's own bucket: the page can fetch nothing else through this route.
 */
async function sendArtifact(
  request: IncomingMessage,
  response: ServerResponse,
  detail: ExecutionDetail,
  index: number,
  number: number,
  store: ConsoleRoutesOptions['artifacts'],
): Promise<void> {
  const plain = { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };
  const artifact = finishedStep(detail.history, index)?.artifacts?.[number];
  const bucket = store?.locationOf('');
  if (!artifact || !store || !bucket || !artifact.location.startsWith(bucket)) {
    response.writeHead(404, plain).end(artifact ? `The artifact is in ${artifact.location}, a store this server does not read.\n` : 'The step kept no such artifact.\n');
    return;
  }
  const object = await store.download(artifact.location.slice(bucket.length));
  if (!object) {
    response.writeHead(410, plain).end(`The artifact ${artifact.location} is gone (expired, or deleted).\n`);
    return;
  }
  // The object's own name without its number: `app.js`, `dist.tar.gz`.
  const file = (artifact.location.split('/').at(-1) ?? 'artifact').replace(/^\d+-/, '');
  response.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-disposition': `attachment; filename="${file.replace(/["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(file)}`,
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    'x-artifact-sha256': artifact.sha256,
    ...(object.size !== undefined ? { 'content-length': object.size } : {}),
  });
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  for await (const chunk of object.body) if (!response.write(chunk)) await new Promise((resolve) => response.once('drain', resolve));
  response.end();
}

const LIVE_LOG_REFRESH_MS = 1000;
/** As much of a running step's log as the page shows: the tail FinishStep will show at the end. */
const LIVE_LOG_END_BYTES = 8 * 1024;

/** The log store's live copy of a step still running, as LaunchStep named it; undefined once it ended. */
function liveLogFile(history: readonly ExecutionEvent[], index: number): string | undefined {
  if (finishedStep(history, index)) return undefined;
  const launched = history.find((e) => e.type === 'StateExited' && isLaunchState(e.state?.name) && e.index === index);
  return (launched?.state?.output as { poll?: PollState } | undefined)?.poll?.log?.location;
}

/** The detail with the end of each running step's log read from its live copy (small, synchronous reads of local files). */
function withLiveLogs(detail: ExecutionDetail): ExecutionDetail {
  if (detail.execution.status !== 'RUNNING') return detail;
  const liveLogs = new Map<number, string>();
  const started = new Set(detail.history.filter((e) => e.type === 'MapIterationStarted' && e.index !== undefined).map((e) => e.index!));
  for (const index of started) {
    const file = liveLogFile(detail.history, index);
    if (!file || file.startsWith('s3://')) continue;
    const end = readEnd(file);
    if (end) liveLogs.set(index, logTail(end));
  }
  return { ...detail, liveLogs };
}

function readEnd(file: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const { size } = fstatSync(fd);
    const length = Math.min(size, LIVE_LOG_END_BYTES);
    const bytes = Buffer.alloc(length);
    readSync(fd, bytes, 0, length, size - length);
    return bytes.toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
