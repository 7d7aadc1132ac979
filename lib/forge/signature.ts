import { verify } from '@octokit/webhooks-methods';
import { InvalidSignature, MissingSignature } from './errors.js';

const MODULE = 'signature';

/** `sha256=` and 64 hex digits: what GitHub sends in X-Hub-Signature-256 and the generic webhook in X-Signature-256. */
const SIGNATURE_FORMAT = /^sha256=[0-9a-f]{64}$/;

/**
 * Checks an HMAC-SHA256 signature over the body. `body` must be the exact text that was signed
 * (see bodyText: UTF-8 text and its bytes are one-to-one). The comparison is constant-time
 * (@octokit/webhooks-methods uses timingSafeEqual), and nothing here echoes the signature back.
 */
export async function verifySignature(secret: string, body: string, signature: string | undefined, headerName: string): Promise<void> {
  if (!signature) throw new MissingSignature(`The ${headerName} header is missing: the webhook must be signed with its secret.`, MODULE);
  const normalized = signature.trim().toLowerCase();
  // An empty body cannot be signed by verify(); no payload of ours is empty, so it cannot match.
  const matches = SIGNATURE_FORMAT.test(normalized) && body.length > 0 && (await verify(secret, body, normalized));
  if (!matches) {
    throw new InvalidSignature(
      `The ${headerName} signature does not match the body: check that the webhook's secret is the one this endpoint has.`,
      MODULE,
    );
  }
}
