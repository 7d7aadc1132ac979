/**
 * AWS Signature Version 4 checked as S3 checks it: the canonical request is rebuilt from the
 * request as received (not from what a client meant to send), signed with the one secret the
 * server knows, and compared in constant time. Both forms S3 accepts: the Authorization header
 * (what @aws-sdk/client-s3 sends) and the presigned query (what the cache's pods get as URLs).
 * Written here rather than by driving @smithy/signature-v4's signer backwards, because the signer
 * adds and hoists headers of its own; and the tests sign with the SDK, so a drift shows as a 403.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { s3Errors } from './s3-errors.js';

const ALGORITHM = 'AWS4-HMAC-SHA256';
const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
/** S3 refuses header-signed requests whose X-Amz-Date is further than this from its clock. */
const MAX_SKEW_MS = 15 * 60 * 1000;
/** A presigned URL may live at most seven days. */
const MAX_EXPIRES_SECONDS = 7 * 24 * 60 * 60;

export interface ReceivedRequest {
  method: string;
  /** The path exactly as on the request line, still percent-encoded. */
  rawPath: string;
  /** The query, decoded, in the order received. */
  query: readonly (readonly [string, string])[];
  headers: IncomingHttpHeaders;
}

export interface SigningSecret {
  accessKeyId: string;
  secretAccessKey: string;
  /**
   * A session's (STS's) token: every request must carry it (X-Amz-Security-Token, in the query of a
   * presigned URL, else as a header), and none is accepted past `expiration`, whatever the URL's
   * own X-Amz-Expires: "If you created a presigned URL by using a temporary token, then the URL
   * expires when the token expires" (S3 user guide, "Sharing objects with presigned URLs").
   */
  sessionToken?: string;
  /** When the session ends, ms since the epoch. */
  expiration?: number;
}

export interface VerifyOptions {
  credentials: SigningSecret;
  region: string;
  /** Milliseconds since the epoch, the server's clock. */
  now: number;
}

export interface VerifiedRequest {
  /** How the client signed: the body's hash must then be checked against `payloadHash`. */
  form: 'header' | 'query';
  /** x-amz-content-sha256 as signed: a hex sha256, UNSIGNED-PAYLOAD, or a STREAMING-* mode. */
  payloadHash: string;
}

/** RFC 3986 unreserved characters only, as SigV4 encodes (encodeURIComponent leaves !'()* bare). */
export function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** `20261202T014441Z` -> ms; NaN when it is not that shape. */
function parseAmzDate(text: string): number {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!match) return NaN;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
}

function canonicalPath(rawPath: string): string {
  // S3 signs each segment encoded once: decode what arrived, re-encode strictly, so a client that
  // left `!` or `'` bare on the wire and one that escaped it both match what their signer computed.
  try {
    return rawPath.split('/').map((segment) => uriEncode(decodeURIComponent(segment))).join('/');
  } catch {
    throw s3Errors.invalidRequest('The request path is not valid percent-encoding.');
  }
}

function canonicalQuery(query: ReceivedRequest['query'], without: string | undefined): string {
  return query
    .filter(([name]) => name !== without)
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

function canonicalHeaders(headers: IncomingHttpHeaders, signed: readonly string[]): string {
  return signed.map((name) => `${name}:${(headerValue(headers, name) ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
}

function signingKey(secret: string, day: string, region: string): Buffer {
  const dateKey = createHmac('sha256', `AWS4${secret}`).update(day).digest();
  const regionKey = createHmac('sha256', dateKey).update(region).digest();
  const serviceKey = createHmac('sha256', regionKey).update('s3').digest();
  return createHmac('sha256', serviceKey).update('aws4_request').digest();
}

interface Claim {
  credential: string;
  signedHeaders: string[];
  signature: string;
  amzDate: string;
  payloadHash: string;
  /** The query parameter left out of the canonical query (the signature itself, when presigned). */
  unsignedParameter?: string;
  expiresSeconds?: number;
}

function headerClaim(request: ReceivedRequest, authorization: string): Claim {
  if (!authorization.startsWith(`${ALGORITHM} `)) throw s3Errors.invalidArgument('Unsupported Authorization Type');
  const fields = new Map(
    authorization
      .slice(ALGORITHM.length + 1)
      .split(',')
      .map((part) => part.trim().split('=') as [string, string?])
      .map(([name, ...rest]) => [name, rest.join('=')] as const),
  );
  const credential = fields.get('Credential');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (!credential || !signedHeaders || !signature) {
    throw s3Errors.authorizationHeaderMalformed('The authorization header is malformed; it must name Credential, SignedHeaders and Signature.');
  }
  const amzDate = headerValue(request.headers, 'x-amz-date');
  if (!amzDate) throw s3Errors.accessDenied('AWS authentication requires a valid Date or x-amz-date header');
  const payloadHash = headerValue(request.headers, 'x-amz-content-sha256');
  if (!payloadHash) throw s3Errors.invalidRequest('Missing required header for this request: x-amz-content-sha256');
  return { credential, signedHeaders: signedHeaders.split(';'), signature, amzDate, payloadHash };
}

function queryClaim(request: ReceivedRequest): Claim {
  const parameter = (name: string) => request.query.find(([key]) => key === name)?.[1];
  const algorithm = parameter('X-Amz-Algorithm');
  const credential = parameter('X-Amz-Credential');
  const amzDate = parameter('X-Amz-Date');
  const expires = parameter('X-Amz-Expires');
  const signedHeaders = parameter('X-Amz-SignedHeaders');
  const signature = parameter('X-Amz-Signature');
  if (algorithm !== ALGORITHM) throw s3Errors.authorizationQueryParametersError('X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
  if (!credential || !amzDate || !expires || !signedHeaders || !signature) {
    throw s3Errors.authorizationQueryParametersError(
      'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
    );
  }
  const expiresSeconds = /^\d+$/.test(expires) ? Number(expires) : NaN;
  if (!(expiresSeconds >= 1)) throw s3Errors.authorizationQueryParametersError('X-Amz-Expires should be a number');
  if (expiresSeconds > MAX_EXPIRES_SECONDS) throw s3Errors.authorizationQueryParametersError('X-Amz-Expires must be less than a week (in seconds) that is 604800');
  // A presigned URL's body is never part of its signature, whatever hash a client claims.
  const payloadHash = parameter('X-Amz-Content-Sha256') ?? UNSIGNED_PAYLOAD;
  return { credential, signedHeaders: signedHeaders.split(';'), signature, amzDate, payloadHash, unsignedParameter: 'X-Amz-Signature', expiresSeconds };
}

/**
 * Checks the request's signature; throws the S3Error S3 would answer with (403 for a wrong key,
 * signature or an expired URL, 400 for a malformed one), or tells how the payload was signed.
 */
export function verifySignature(request: ReceivedRequest, options: VerifyOptions): VerifiedRequest {
  const authorization = headerValue(request.headers, 'authorization');
  const presigned = request.query.some(([name]) => name === 'X-Amz-Algorithm' || name === 'X-Amz-Signature');
  if (authorization !== undefined && presigned) throw s3Errors.invalidArgument('Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter or the Authorization header should be specified');
  if (authorization === undefined && !presigned) throw s3Errors.accessDenied();
  const form = authorization !== undefined ? 'header' : 'query';
  const claim = authorization !== undefined ? headerClaim(request, authorization) : queryClaim(request);

  const [accessKeyId, day, region, service, terminator, ...extra] = claim.credential.split('/');
  if (!accessKeyId || !day || !region || service !== 's3' || terminator !== 'aws4_request' || extra.length > 0) {
    throw s3Errors.authorizationHeaderMalformed(`The credential ${claim.credential} is not of the form KEY/YYYYMMDD/REGION/s3/aws4_request.`);
  }
  if (accessKeyId !== options.credentials.accessKeyId) throw s3Errors.invalidAccessKeyId(accessKeyId);
  if (region !== options.region) throw s3Errors.authorizationHeaderMalformed(`The authorization header is malformed; the region '${region}' is wrong; expecting '${options.region}'`);
  const signedAt = parseAmzDate(claim.amzDate);
  if (Number.isNaN(signedAt) || !claim.amzDate.startsWith(day)) {
    throw s3Errors.authorizationHeaderMalformed(`The date ${claim.amzDate} is not of the form YYYYMMDDTHHMMSSZ, or not on the credential's day ${day}.`);
  }
  if (!claim.signedHeaders.includes('host')) throw s3Errors.authorizationHeaderMalformed('The host header must be signed.');

  const canonicalRequest = [
    request.method,
    canonicalPath(request.rawPath),
    canonicalQuery(request.query, claim.unsignedParameter),
    canonicalHeaders(request.headers, claim.signedHeaders),
    claim.signedHeaders.join(';'),
    claim.payloadHash,
  ].join('\n');
  const scope = `${day}/${region}/s3/aws4_request`;
  const stringToSign = [ALGORITHM, claim.amzDate, scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  const expected = Buffer.from(createHmac('sha256', signingKey(options.credentials.secretAccessKey, day, region)).update(stringToSign).digest('hex'));
  const given = Buffer.from(claim.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw s3Errors.signatureDoesNotMatch(stringToSign, canonicalRequest);

  // Time is checked after the signature, so only a holder of the secret learns about it.
  const { sessionToken, expiration } = options.credentials;
  if (sessionToken !== undefined) {
    const token = form === 'query' ? request.query.find(([name]) => name === 'X-Amz-Security-Token')?.[1] : headerValue(request.headers, 'x-amz-security-token');
    if (token !== sessionToken) throw s3Errors.invalidToken();
    // S3's answer to a session that has ended (Error codes: ExpiredToken, 400 Bad Request).
    if (expiration !== undefined && options.now >= expiration) throw s3Errors.expiredToken();
  }
  if (form === 'query') {
    if (options.now > signedAt + claim.expiresSeconds! * 1000) throw s3Errors.accessDenied('Request has expired');
  } else if (Math.abs(options.now - signedAt) > MAX_SKEW_MS) {
    throw s3Errors.requestTimeTooSkewed();
  }
  return { form, payloadHash: claim.payloadHash };
}
