/** The HTTP front of the embedded cluster: faults, routing, and the verbs, answered as the apiserver does. */
import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, methodNotAllowed, noSuchPath } from './api-errors.js';
import { apiGroup, apiGroupList, apiVersions, resourceList, SERVER_VERSION } from './discovery.js';
import { faultError, type FaultInjector } from './faults.js';
import { contextFor, isDryRun } from './dry-run.js';
import { evictPod, parseEviction } from './eviction.js';
import { readJsonBody, sendError, sendJson } from './http-io.js';
import { patchType } from './merge-patch.js';
import { openApiDocument } from './openapi.js';
import { PodExecServer, type ExecSource, type UpgradeSocket } from './pod-exec.js';
import { servePodLog, type LogSource } from './pod-logs.js';
import {
  createObject,
  deleteCollection,
  deleteObject,
  deleteOptionsFrom,
  getObject,
  getStored,
  listBody,
  listObjects,
  patchObject,
  replaceObject,
  withKind,
  type ApiContext,
} from './resource-handlers.js';
import { POD_EVICTION_SUBRESOURCE, POD_EXEC_SUBRESOURCE, POD_LOG_SUBRESOURCE, type ResourceType } from './resources.js';
import { parseRoute, type Route } from './routes.js';
import { requestToken, SERVICE_ACCOUNT_TOKEN_SUBRESOURCE } from './token-request.js';
import { toTable, wantsTable, type IncludeObject } from './tables.js';
import { isWatchRequest, serveWatch, type OpenWatch } from './watch-stream.js';

export interface ApiServerOptions {
  context: ApiContext;
  logs: LogSource;
  exec: ExecSource;
  faults?: FaultInjector;
}

export interface ApiServer {
  server: Server;
  /** Ends every open watch stream and exec session (clients see them close, as on an apiserver restart). */
  closeStreams(): void;
}

/**
 * A response written straight onto the socket of a request that asked for an upgrade, for every
 * answer that is not one (errors, and any other resource asked for with an Upgrade header).
 */
function responseOnSocket(req: IncomingMessage, socket: Socket): ServerResponse {
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket);
  res.once('finish', () => {
    res.detachSocket(socket);
    socket.end();
  });
  return res;
}

export function createApiServer(options: ApiServerOptions): ApiServer {
  const watches = new Set<OpenWatch>();
  const ctx = options.context;
  const exec = new PodExecServer(ctx.store, options.exec);

  async function handle(req: IncomingMessage, res: ServerResponse, upgrade?: UpgradeSocket): Promise<void> {
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
    await dispatch(route, method, url.searchParams, req, res, upgrade);
  }

  async function dispatch(
    route: Route,
    method: string,
    query: URLSearchParams,
    req: IncomingMessage,
    res: ServerResponse,
    upgrade: UpgradeSocket | undefined,
  ): Promise<void> {
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
        if (route.resource.name === 'serviceaccounts' && route.namespace !== undefined && route.subresource === SERVICE_ACCOUNT_TOKEN_SUBRESOURCE) {
          if (method !== 'POST' || !ctx.tokens) throw methodNotAllowed();
          return sendJson(res, 201, requestToken({ store: ctx.store, now: ctx.now, tokens: ctx.tokens }, route.namespace, route.name, await readJsonBody(req)));
        }
        if (route.resource.name !== 'pods' || route.namespace === undefined) throw noSuchPath();
        if (route.subresource === POD_LOG_SUBRESOURCE) {
          if (method !== 'GET') throw methodNotAllowed();
          return servePodLog(ctx.store, options.logs, route.namespace, route.name, query, res, ctx.now);
        }
        if (route.subresource === POD_EVICTION_SUBRESOURCE) {
          if (method !== 'POST') throw methodNotAllowed();
          const eviction = parseEviction(await readJsonBody(req), route.name);
          const dryRun = isDryRun('CreateOptions', query) || isDryRun('DeleteOptions', new URLSearchParams(), eviction.deleteOptions);
          return sendJson(res, 201, evictPod(contextFor(ctx, dryRun), route.namespace, route.name, eviction));
        }
        if (route.subresource !== POD_EXEC_SUBRESOURCE) throw noSuchPath();
        // GET for WebSocket (browsers and Go's clients can only upgrade a GET), POST for SPDY.
        if (method !== 'GET' && method !== 'POST') throw methodNotAllowed();
        return exec.serve(route.namespace, route.name, query, req, res, upgrade);
      }
      case 'item': {
        const { resource, namespace, name } = route;
        if (method === 'GET') {
          // Tables print from the stored object, whichever version it is asked in.
          if (wantsTable(req.headers.accept)) return sendJson(res, 200, table(resource, [getStored(ctx, resource, namespace, name)], query));
          return sendJson(res, 200, getObject(ctx, resource, namespace, name));
        }
        if (method === 'DELETE' && resource.verbs.includes('delete')) {
          const body = await readJsonBody(req);
          return sendJson(res, 200, deleteObject(contextFor(ctx, isDryRun('DeleteOptions', query, body)), resource, namespace, name, deleteOptionsFrom(query, body)));
        }
        if (method === 'PATCH' && resource.verbs.includes('patch')) {
          const patch = await readJsonBody(req);
          patchType(req.headers['content-type']);
          return sendJson(res, 200, patchObject(contextFor(ctx, isDryRun('PatchOptions', query)), resource, namespace, name, patch));
        }
        if (method === 'PUT' && resource.verbs.includes('update')) {
          return sendJson(res, 200, replaceObject(contextFor(ctx, isDryRun('UpdateOptions', query)), resource, namespace, name, await readJsonBody(req)));
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
          const created = createObject(contextFor(ctx, isDryRun('CreateOptions', query)), resource, namespace, await readJsonBody(req));
          return sendJson(res, 201, created);
        }
        if (method === 'DELETE' && resource.verbs.includes('deletecollection') && namespace !== undefined) {
          const body = await readJsonBody(req);
          return sendJson(res, 200, deleteCollection(contextFor(ctx, isDryRun('DeleteOptions', query, body)), resource, namespace, query, deleteOptionsFrom(query, body)));
        }
        throw methodNotAllowed();
      }
    }
  }

  function table(resource: ResourceType, items: ReturnType<typeof withKind>[], query: URLSearchParams) {
    const include = (query.get('includeObject') ?? 'Metadata') as IncludeObject;
    return toTable(resource, items, { now: ctx.now(), resourceVersion: ctx.store.resourceVersion, include });
  }

  function respond(req: IncomingMessage, res: ServerResponse, upgrade?: UpgradeSocket): void {
    handle(req, res, upgrade).catch((error: unknown) => {
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
  }

  const server = createServer((req, res) => respond(req, res));
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    // The HTTP server stops watching a socket it hands over for an upgrade; a reset must not go unhandled.
    socket.on('error', () => socket.destroy());
    respond(req, responseOnSocket(req, socket), { socket, head });
  });

  return {
    server,
    closeStreams: () => {
      for (const watch of [...watches]) watch.close();
      exec.closeAll();
    },
  };
}
