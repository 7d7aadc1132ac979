/**
 * A PUT's body streamed to a file in the store's incoming directory (never held in memory), its
 * md5 (the ETag) and sha256 computed on the way; the sha256 is checked when the client signed one,
 * and any x-amz-checksum-* the request claims (see checksums.ts).
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AwsChunkedError, awsChunkedDecoder } from './aws-chunked.js';
import { ChecksumTap, checksumHeader, isCheckedAlgorithm, type ChecksumAlgorithm } from './checksums.js';
import type { IncomingBody } from './object-store.js';
import { s3Errors } from './s3-errors.js';

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** x-amz-content-sha256 values whose body framing this server reads. */
export function bodyFramingOf(payloadHash: string): 'plain' | 'aws-chunked' {
  if (payloadHash === 'UNSIGNED-PAYLOAD' || HEX_SHA256.test(payloadHash)) return 'plain';
  if (payloadHash === 'STREAMING-UNSIGNED-PAYLOAD-TRAILER') return 'aws-chunked';
  // Signed chunks would need each chunk's signature checked; no client the runner uses sends them.
  throw s3Errors.notImplemented(`x-amz-content-sha256: ${payloadHash.slice(0, 64)}`);
}

/**
 * @param claimed checksums the request states up front (headers, presigned query), by algorithm;
 * a trailer the request announces in `x-amz-trailer` is read from the end of an aws-chunked body.
 */
export async function receiveBody(request: IncomingMessage, file: string, payloadHash: string, claimed: ReadonlyMap<ChecksumAlgorithm, string>): Promise<IncomingBody> {
  const framing = bodyFramingOf(payloadHash);
  const trailerName = String(request.headers['x-amz-trailer'] ?? '').toLowerCase().replace(/^x-amz-checksum-/, '');
  const trailed = framing === 'aws-chunked' && isCheckedAlgorithm(trailerName) ? trailerName : undefined;
  const checksums = new ChecksumTap(new Set([...claimed.keys(), ...(trailed ? [trailed] : [])]));
  const md5 = createHash('md5');
  const sha256 = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      md5.update(chunk);
      sha256.update(chunk);
      checksums.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  const trailers = new Map<string, string>();
  const stages: (Readable | Transform)[] = framing === 'aws-chunked' ? [request, awsChunkedDecoder(trailers), tap] : [request, tap];
  try {
    await pipeline([...stages, createWriteStream(file)]);
  } catch (error) {
    if (error instanceof AwsChunkedError) throw s3Errors.invalidRequest(error.message);
    throw error;
  }
  if (framing === 'aws-chunked') {
    const declared = request.headers['x-amz-decoded-content-length'];
    if (declared !== undefined && Number(declared) !== size) throw s3Errors.incompleteBody();
  }
  if (HEX_SHA256.test(payloadHash) && sha256.digest('hex') !== payloadHash) throw s3Errors.contentSha256Mismatch();
  const expected = new Map(claimed);
  const trailer = trailed && trailers.get(checksumHeader(trailed));
  if (trailed && trailer !== undefined) expected.set(trailed, trailer);
  for (const [algorithm, value] of expected) if (checksums.digest(algorithm) !== value) throw s3Errors.badDigest(algorithm);
  return { file, size, etag: `"${md5.digest('hex')}"` };
}
