/**
 * `?watch=true`: a chunked stream of `{"type","object"}` lines, as the apiserver sends them. Without
 * a resourceVersion (or with "0") it starts with ADDED for everything that exists; with one, it
 * replays what happened after it, or answers 410 Expired when that is too old. Objects that enter or
 * leave a selection are sent as ADDED or DELETED, as a real selector watch does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './api-errors.js';
import type { KubeObject } from './objects.js';
import { selection, withKind, type ApiContext } from './resource-handlers.js';
import { storedAs, type ResourceType } from './resources.js';
import type { StoreEvent, WatchEventType } from './store.js';
import { toTable, wantsTable, type IncludeObject } from './tables.js';

export interface OpenWatch {
  close(): void;
}

export function isWatchRequest(query: URLSearchParams): boolean {
  const watch = query.get('watch');
  return watch === 'true' || watch === '1';
}

export function serveWatch(
  ctx: ApiContext,
  resource: ResourceType,
  namespace: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  onClose: (watch: OpenWatch) => void,
): OpenWatch {
  const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
  const chosen = selection(resource, namespace, query);
  const asTable = wantsTable(req.headers.accept);
  const include = (query.get('includeObject') ?? 'Metadata') as IncludeObject;
  let sentColumns = false;

  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache' });
  res.flushHeaders();

  const send = (type: WatchEventType | 'ERROR', object: KubeObject | object) => {
    let payload: unknown = type === 'ERROR' ? object : withKind(resource, object as KubeObject);
    if (asTable && type !== 'ERROR') {
      payload = toTable(resource, [object as KubeObject], {
        now: ctx.now(),
        resourceVersion: (object as KubeObject).metadata.resourceVersion ?? '',
        include,
        withColumns: !sentColumns,
      });
      sentColumns = true;
    }
    res.write(`${JSON.stringify({ type, object: payload })}\n`);
  };

  const deliver = (event: StoreEvent) => {
    if (event.resource !== storedAs(resource)) return;
    const now = chosen.matches(event.object);
    const before = event.previous !== undefined && chosen.matches(event.previous);
    if (event.type === 'ADDED' && now) send('ADDED', event.object);
    else if (event.type === 'DELETED' && now) send('DELETED', event.object);
    else if (event.type === 'MODIFIED') {
      if (now && before) send('MODIFIED', event.object);
      else if (now) send('ADDED', event.object);
      else if (before) send('DELETED', event.object);
    }
  };

  let unsubscribe = () => {};
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const watch: OpenWatch = {
    close: () => {
      if (closed) return;
      closed = true;
      unsubscribe();
      if (timer) clearTimeout(timer);
      res.end();
      onClose(watch);
    },
  };

  const from = query.get('resourceVersion');
  if (from === null || from === '' || from === '0') {
    for (const object of ctx.store.list(storedAs(resource), namespace)) if (chosen.matches(object)) send('ADDED', object);
  } else {
    const since = Number(from);
    const replay = Number.isInteger(since) ? ctx.store.eventsSince(since) : undefined;
    if (replay === undefined) {
      const expired = new ApiError(410, 'Expired', `too old resource version: ${from} (${ctx.store.oldestResumable})`);
      send('ERROR', expired.toStatus());
      queueMicrotask(() => watch.close());
      return watch;
    }
    replay.forEach(deliver);
  }
  unsubscribe = ctx.store.subscribe(deliver);

  const timeout = Number(query.get('timeoutSeconds'));
  if (Number.isFinite(timeout) && timeout > 0) timer = setTimeout(() => watch.close(), timeout * 1000);
  req.on('close', () => watch.close());
  res.on('close', () => watch.close());
  return watch;
}
