/**
 * The additional checksums a PUT may claim (`x-amz-checksum-crc32` and kin, as a header, a
 * presigned query parameter, or an aws-chunked trailer), checked against the body. It matters for
 * presigned URLs: the SDK signs into a presigned PutObject URL the CRC32 of an empty body unless
 * the presigning client says `requestChecksumCalculation: 'WHEN_REQUIRED'`, and S3-compatible
 * stores (and by reports S3) then refuse any real upload with 400 BadDigest. Refusing here too
 * means a URL that works locally works there; moto lets it pass.
 */
import { createHash, type Hash } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** The algorithms Node computes; CRC32C and CRC64NVME go unchecked. */
export const CHECKED_ALGORITHMS = ['crc32', 'sha1', 'sha256'] as const;
export type ChecksumAlgorithm = (typeof CHECKED_ALGORITHMS)[number];

export const checksumHeader = (algorithm: ChecksumAlgorithm) => `x-amz-checksum-${algorithm}`;

/** Computes the named checksums over a body as it streams by. */
export class ChecksumTap {
  private crc = 0;
  private readonly hashes = new Map<ChecksumAlgorithm, Hash>();

  constructor(private readonly algorithms: ReadonlySet<ChecksumAlgorithm>) {
    for (const algorithm of algorithms) if (algorithm !== 'crc32') this.hashes.set(algorithm, createHash(algorithm));
  }

  update(chunk: Buffer): void {
    if (this.algorithms.has('crc32')) this.crc = crc32(chunk, this.crc);
    for (const hash of this.hashes.values()) hash.update(chunk);
  }

  /** Base64, as S3 writes them (CRC32 as four big-endian bytes). */
  digest(algorithm: ChecksumAlgorithm): string {
    if (algorithm === 'crc32') {
      const bytes = Buffer.alloc(4);
      bytes.writeUInt32BE(this.crc >>> 0);
      return bytes.toString('base64');
    }
    return this.hashes.get(algorithm)!.digest('base64');
  }
}

export function isCheckedAlgorithm(name: string): name is ChecksumAlgorithm {
  return (CHECKED_ALGORITHMS as readonly string[]).includes(name);
}
