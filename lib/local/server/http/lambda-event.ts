/**
 * A Node HTTP request as API Gateway (HTTP API, payload v2) hands it to Lambda, so the local server
 * calls the very handler that is deployed. The body is passed base64-encoded: the exact bytes,
 * whatever they are, which is what signature checking needs.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';

export interface NodeRequestParts {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  sourceIp?: string;
  now?: Date;
}

export function lambdaEventFrom(request: NodeRequestParts): APIGatewayProxyEventV2 {
  const now = request.now ?? new Date();
  const [rawPath = '/', rawQueryString = ''] = request.url.split('?', 2);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    // API Gateway joins repeated headers with commas, as Node does for most of them.
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    headers,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
      http: {
        method: request.method,
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: request.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    body: request.body.toString('base64'),
    isBase64Encoded: true,
  };
}

/** The handler's answer, as API Gateway would send it. */
export function httpResponseFrom(result: APIGatewayProxyResultV2): { status: number; headers: Record<string, string>; body: Buffer } {
  if (typeof result === 'string') {
    return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(result) };
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = String(value);
  const body = result.body === undefined ? Buffer.alloc(0) : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  return { status: result.statusCode ?? 200, headers, body };
}
