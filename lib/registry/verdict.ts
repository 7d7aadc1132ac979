/**
 * The verdict rules: only an explicit "no such manifest" fails a build; anything the registry
 * could have said for other reasons (credentials, limits, outages) leaves the pull to the kubelet.
 */
import { InconclusiveReasons, type ImageVerdict, type ManifestAnswer } from './types.js';

/** The distribution spec's error body: `{"errors": [{"code", "message", "detail"}]}`. */
export function registryWords(answer: Pick<ManifestAnswer, 'status' | 'body'>): string {
  const status = `${answer.status}`;
  if (!answer.body) return status;
  try {
    const parsed = JSON.parse(answer.body) as { errors?: { code?: unknown; message?: unknown }[] };
    const errors = (parsed.errors ?? [])
      .map((e) => [e.code, e.message].filter((part) => typeof part === 'string' && part !== '').join(': '))
      .filter((text) => text !== '');
    if (errors.length > 0) return `${status} ${errors.join('; ')}`.slice(0, 500);
  } catch {
    // Not JSON: a proxy's or a CDN's page; its first words are still the best there is.
  }
  return `${status} ${answer.body.replace(/\s+/g, ' ').trim()}`.slice(0, 200);
}

export function classifyManifestAnswer(answer: ManifestAnswer): ImageVerdict {
  const { status } = answer;
  if (status >= 200 && status < 300) {
    const digest = answer.headers.get('docker-content-digest') ?? undefined;
    const mediaType = answer.headers.get('content-type')?.split(';')[0]?.trim() || undefined;
    return { kind: 'found', ...(digest ? { digest } : {}), ...(mediaType ? { mediaType } : {}) };
  }
  const words = registryWords(answer);
  if (status === 404) return { kind: 'not-found', status, words };
  if (status === 401 || status === 403) {
    const why = answer.authenticated ? 'the registry refused the credentials the check used' : 'the registry wants credentials the check does not have';
    return { kind: 'inconclusive', reason: InconclusiveReasons.unauthorized, words: `${why} (${words})` };
  }
  if (status === 429) {
    const retryAfter = answer.headers.get('retry-after');
    return { kind: 'inconclusive', reason: InconclusiveReasons.rateLimited, words: `${words}${retryAfter ? ` (retry after ${retryAfter})` : ''}` };
  }
  return { kind: 'inconclusive', reason: InconclusiveReasons.registryError, words };
}

/** A request that got no answer: fetch's TypeError wraps the system error (ENOTFOUND...). */
export function classifyFailure(error: unknown, timedOut: boolean): ImageVerdict {
  if (timedOut) return { kind: 'inconclusive', reason: InconclusiveReasons.timeout, words: 'the registry did not answer in time' };
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const message = typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
  return { kind: 'inconclusive', reason: InconclusiveReasons.unreachable, words: code && !message.includes(code) ? `${code}: ${message}` : message };
}
