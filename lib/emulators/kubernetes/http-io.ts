/** Small HTTP helpers shared by the handlers: JSON in, JSON or Status out. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, badRequest } from './api-errors.js';
import { decodeProtobufObject } from './protobuf-body.js';

const MAX_BODY_BYTES = 3 * 1024 * 1024; // etcd's default request limit, as the apiserver enforces it

export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim() ?? '';
  const json = type === 'application/json' || type === '' || type.endsWith('+json');
  const protobuf = type === 'application/vnd.kubernetes.protobuf';
  if (!json && !protobuf) {
    req.resume();
    throw new ApiError(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    chunks.push(buffer);
  }
  const body = Buffer.concat(chunks);
  if (protobuf && body.length > 0) return decodeProtobufObject(body);
  const text = body.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(error as Error).message}`);
  }
}

export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendError(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.code, error.toStatus(), error.headers);
}
