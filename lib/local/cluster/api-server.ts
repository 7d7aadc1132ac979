/** The HTTP front of the embedded cluster: faults, routing, and the verbs, answered as the apiserver does. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ApiError, methodNotAllowed, noSuchPath } from './api-errors.js';
import { apiGroup, apiGroupList, apiVersions, resourceList, SERVER_VERSION } from './discovery.js';
import { faultError, type FaultInjector } from './faults.js';
import { readJsonBody, sendError, sendJson } from './http-io.js';
import { openApiDocument } from './openapi.js';
import { servePodLog, type LogSource } from './pod-logs.js';
import {
  createObject,
  deleteCollection,
  deleteObject,
  deleteOptionsFrom,
  getObject,
  listBody,
  listObjects,
  withKind,
  type ApiContext,
} from './resource-handlers.js';
import { POD_LOG_SUBRESOURCE, type ResourceType } from './resources.js';
import { parseRoute, type Route } from './routes.js';
import { toTable, wantsTable, type IncludeObject } from './tables.js';
import { isWatchRequest, serveWatch, type OpenWatch } from './watch-stream.js';

export interface ApiServerOptions {
  context: ApiContext;
  logs: LogSource;
  faults?: FaultInjector;
}

export interface ApiServer {
  server: Server;
  /** Ends every open watch stream (clients see the stream close, as on an apiserver restart). */
  closeWatches(): void;
}

export function createApiServer(options: ApiServerOptions): ApiServer {
  const watches = new Set<OpenWatch>();
  const ctx = options.context;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    const fault = options.faults?.({ method, path: url.pathname, query: url.searchParams });
    if (fault?.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'status') throw faultError(fault);

    const route = parseRoute(url.pathname);
    if (route === undefined) throw noSuchPath();
    await dispatch(route, method, url.searchParams, req, res);
  }

  async function dispatch(route: Route, method: string, query: URLSearchParams, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const address = req.socket.localAddress && req.socket.localPort ? `${req.socket.localAddress}:${req.socket.localPort}` : '';
    switch (route.kind) {
      case 'version':
        return sendJson(res, 200, SERVER_VERSION);
      case 'api':
        return sendJson(res, 200, apiVersions(address));
      case 'apis':
        return sendJson(res, 200, apiGroupList());
      case 'group':
        return sendJson(res, 200, apiGroup(route.group));
      case 'resourceList':
        return sendJson(res, 200, resourceList(route.group));
      case 'healthz':
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('ok');
        return;
      case 'openapi': {
        const document = openApiDocument(new URL(req.url ?? '/', 'http://localhost').pathname);
        if (document === undefined) throw noSuchPath();
        return sendJson(res, 200, document);
      }
      case 'subresource': {
        if (route.subresource !== POD_LOG_SUBRESOURCE || route.resource.name !== 'pods' || route.namespace === undefined) throw noSuchPath();
        if (method !== 'GET') throw methodNotAllowed();
        return servePodLog(ctx.store, options.logs, route.namespace, route.name, query, res);
      }
      case 'item': {
        const { resource, namespace, name } = route;
        if (method === 'GET') {
          const object = getObject(ctx, resource, namespace, name);
          return sendJson(res, 200, wantsTable(req.headers.accept) ? table(resource, [object], query) : object);
        }
        if (method === 'DELETE' && resource.verbs.includes('delete')) {
          const body = await readJsonBody(req);
          return sendJson(res, 200, deleteObject(ctx, resource, namespace, name, deleteOptionsFrom(query, body)));
        }
        throw methodNotAllowed();
      }
      case 'collection': {
        const { resource, namespace } = route;
        if (method === 'GET') {
          if (isWatchRequest(query)) {
            const watch = serveWatch(ctx, resource, namespace, req, res, (w) => watches.delete(w));
            watches.add(watch);
            return;
          }
          const items = listObjects(ctx, resource, namespace, query);
          const body = wantsTable(req.headers.accept) ? table(resource, items, query) : listBody(ctx, resource, items);
          return sendJson(res, 200, body);
        }
        if (method === 'POST' && resource.verbs.includes('create') && (namespace !== undefined || !resource.namespaced)) {
          const created = createObject(ctx, resource, namespace, await readJsonBody(req));
          return sendJson(res, 201, created);
        }
        if (method === 'DELETE' && resource.verbs.includes('deletecollection') && namespace !== undefined) {
          const body = await readJsonBody(req);
          return sendJson(res, 200, deleteCollection(ctx, resource, namespace, query, deleteOptionsFrom(query, body)));
        }
        throw methodNotAllowed();
      }
    }
  }

  function table(resource: ResourceType, items: ReturnType<typeof withKind>[], query: URLSearchParams) {
    const include = (query.get('includeObject') ?? 'Metadata') as IncludeObject;
    return toTable(resource, items, { now: ctx.now(), resourceVersion: ctx.store.resourceVersion, include });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const apiError =
        error instanceof ApiError
          ? error
          : new ApiError(500, 'InternalError', `Internal error occurred: ${(error as Error)?.message ?? String(error)}`);
      sendError(res, apiError);
    });
  });

  return {
    server,
    closeWatches: () => {
      for (const watch of [...watches]) watch.close();
    },
  };
}
