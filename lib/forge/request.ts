/**
 * The parts of an API Gateway (HTTP API, payload v2) request a webhook needs, read strictly: the
 * exact body bytes (signatures are over bytes, so a base64-encoded body is decoded, never
 * re-serialised), its size, its media type, and a header by name. Pure: event in, values or a
 * WebhookError out.
 */
import { isUtf8 } from 'node:buffer';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { MalformedBody, PayloadTooLarge, UnsupportedMediaType } from './errors.js';

/** GitHub caps payloads at 25 MB, but a push that starts a build is a few kB; 1 MiB leaves room. */
export const MAX_BODY_BYTES = 1024 * 1024;

const MODULE = 'request';

/** Headers by lower-case name; API Gateway v2 already lower-cases them, http-header-normalizer makes sure. */
export function header(event: Pick<APIGatewayProxyEventV2, 'headers'>, name: string): string | undefined {
  const value = event.headers?.[name.toLowerCase()];
  return value === undefined || value === '' ? undefined : value;
}

/** The body exactly as sent, as bytes. */
export function rawBody(event: Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded'>, maxBytes = MAX_BODY_BYTES): Buffer {
  const body = event.body ?? '';
  // Refuse before decoding: base64 is 4/3 of the bytes, so a body this long is too large anyway.
  if (body.length > Math.ceil((maxBytes * 4) / 3) + 4) throw tooLarge(maxBytes);
  const bytes = event.isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
  if (bytes.length > maxBytes) throw tooLarge(maxBytes);
  return bytes;
}

function tooLarge(maxBytes: number): PayloadTooLarge {
  return new PayloadTooLarge(`The body is larger than ${maxBytes} bytes, the most this endpoint accepts.`, MODULE);
}

/**
 * The body as text, only when it is UTF-8: JSON must be, and then the string and the bytes are
 * one-to-one, so a signature checked on the string is a signature checked on the exact bytes.
 */
export function bodyText(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw new MalformedBody('The body is not UTF-8 text; a JSON payload must be.', MODULE);
  return bytes.toString('utf8');
}

export const MediaTypes = { json: 'application/json', form: 'application/x-www-form-urlencoded' } as const;

/**
 * Only JSON is accepted. GitHub can also send `application/x-www-form-urlencoded` (`payload=` plus
 * the JSON, URL-encoded); that is refused with a message saying which setting to change, because
 * one format means one exact byte sequence to verify and one parser to trust.
 */
export function requireJson(event: Pick<APIGatewayProxyEventV2, 'headers'>): void {
  const contentType = header(event, 'content-type');
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (mediaType === MediaTypes.json) return;
  if (mediaType === MediaTypes.form) {
    throw new UnsupportedMediaType(
      'Form-encoded webhooks are not accepted: set the webhook\'s "Content type" to application/json.',
      MODULE,
    );
  }
  throw new UnsupportedMediaType(
    `Content-Type ${mediaType ? `"${printable(mediaType)}"` : '(none)'} is not accepted: send application/json.`,
    MODULE,
  );
}

/** JSON.parse, where a syntax error is the sender's fault, said without echoing the body. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // V8's message quotes a slice of the body; only the position is kept.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new MalformedBody(`The body is not valid JSON${position ? ` (at character ${position})` : ''}.`, MODULE);
  }
}

/** Echo a header value safely: short, printable ASCII only. */
export function printable(value: string, max = 60): string {
  const clean = value.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}...` : clean;
}
