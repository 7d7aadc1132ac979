/**
 * The local server's HTTP side: POST /webhook and /webhook/generic go to the Lambda handler as API
 * Gateway would pass them; GET / and /executions (the list) and /executions/NAME read the local registry (JSON),
 * and, when given, the console page's routes answer browsers at / and /executions/...
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import type { ListedExecution } from '../../../console/execution-view.js';
import { localLambdaContext } from '../../../emulators/lambda/lambda-context.js';
import type { ConsoleRoutes } from './console-routes.js';
import type { ControlRoutes } from './control-routes.js';
import { httpResponseFrom, lambdaEventFrom } from './lambda-event.js';

export interface LocalHttpOptions {
  webhook(event: APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyResultV2>;
  executions: { list(): ListedExecution[]; get(name: string): ListedExecution | undefined };
  /** Bodies are read up to this many bytes and one more, so the handler can tell "too large". */
  maxBodyBytes: number;
  /** The console page (HTML, live updates, logs); without it only the JSON routes answer. */
  console?: ConsoleRoutes;
  /** POST /executions/NAME/stop and /rerun; without it they answer 405 like any other POST. */
  control?: ControlRoutes;
  /** One line per request, e.g. `POST /webhook 202`. */
  onRequest?(line: string): void;
}

export function createLocalHttpServer(options: LocalHttpOptions): Server {
  const server = createServer((request, response) => {
    handle(request, response, options).catch((error: unknown) => {
      options.onRequest?.(`${request.method} ${request.url} failed: ${(error as Error).message}`);
      if (!response.headersSent) send(response, 500, { error: 'InternalError', message: 'The local server failed; see its output.' });
      else response.destroy();
    });
  });
  // An idle kept-alive connection is closed by the client, never by this server first: a request
  // sent on a socket the server is closing at that moment is reset (ECONNRESET), which a client
  // polling GET /executions/NAME met under load with Node's 5 s default. Clients close theirs
  // sooner (Node's fetch 1 s before the server's Keep-Alive hint, browsers within a minute or
  // so); headersTimeout must exceed it (Node's http docs, server.keepAliveTimeout). The server's
  // close ends every connection (local-server.ts), so nothing waits on these.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}

async function handle(request: IncomingMessage, response: ServerResponse, options: LocalHttpOptions): Promise<void> {
  const method = request.method ?? 'GET';
  const path = (request.url ?? '/').split('?')[0] ?? '/';

  if (path === '/webhook' || path.startsWith('/webhook/')) {
    const body = await readCapped(request, options.maxBodyBytes + 1);
    const event = lambdaEventFrom({
      method,
      url: request.url ?? '/',
      headers: request.headers,
      body,
      ...(request.socket.remoteAddress ? { sourceIp: request.socket.remoteAddress } : {}),
    });
    const answer = httpResponseFrom(await options.webhook(event, localLambdaContext('webhook')));
    response.writeHead(answer.status, answer.headers).end(answer.body);
    options.onRequest?.(`${method} ${path} ${answer.status} ${summaryOf(answer.body)}`);
    return;
  }

  if (options.control && (await options.control(request, response, path))) return;
  if (options.console && (await options.console(request, response, path))) return;

  // `/` is the list for a script too, as it is the list page for a browser.
  if (path === '/' || path === '/executions' || path.startsWith('/executions/')) {
    if (method !== 'GET') return send(response, 405, { error: 'MethodNotAllowed', message: `${method} ${path}: use GET.` });
    if (path === '/' || path === '/executions') return send(response, 200, options.executions.list());
    const name = decodeURIComponent(path.slice('/executions/'.length));
    const execution = options.executions.get(name);
    return execution
      ? send(response, 200, execution)
      : send(response, 404, { error: 'ExecutionDoesNotExist', message: `No execution named ${name} on this server.` });
  }

  send(response, 404, { error: 'RouteNotFound', message: options.console ? 'Try POST /webhook, POST /webhook/generic, GET /executions, or open / in a browser.' : 'Try POST /webhook, POST /webhook/generic, GET /executions.' });
}

/** The body up to `limit` bytes; the rest is read and dropped so the answer can still be sent. */
async function readCapped(request: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    if (size >= limit) continue;
    const part = chunk.subarray(0, limit - size);
    chunks.push(part);
    size += part.length;
  }
  return Buffer.concat(chunks);
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** What the answer was about, for the request line: the execution name, or why it was refused. */
function summaryOf(body: Buffer): string {
  try {
    const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    const said = json.executionName ?? json.ignored ?? json.error ?? (json.ok ? 'pong' : undefined);
    return said === undefined ? '' : `(${String(said)}${json.alreadyStarted ? ', already started' : ''})`;
  } catch {
    return '';
  }
}
