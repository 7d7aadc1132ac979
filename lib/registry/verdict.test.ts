import { classifyFailure, classifyManifestAnswer, registryWords } from './verdict.js';
import type { ManifestAnswer } from './types.js';

const headers = (values: Record<string, string> = {}) => new Headers(values);
const errorBody = (code: string, message: string) => JSON.stringify({ errors: [{ code, message }] });

describe('classifyManifestAnswer', () => {
  const cases: [string, ManifestAnswer, { kind: string; reason?: string; words?: RegExp }][] = [
    ['200 with a digest: found', { status: 200, headers: headers({ 'docker-content-digest': 'sha256:abc', 'content-type': 'application/vnd.oci.image.index.v1+json' }), authenticated: false }, { kind: 'found' }],
    ['404 manifest unknown (tag): not found', { status: 404, headers: headers(), body: errorBody('MANIFEST_UNKNOWN', 'manifest unknown'), authenticated: false }, { kind: 'not-found', words: /^404 MANIFEST_UNKNOWN: manifest unknown$/ }],
    ['404 name unknown (repository): not found', { status: 404, headers: headers(), body: errorBody('NAME_UNKNOWN', 'repository name not known to registry'), authenticated: true }, { kind: 'not-found', words: /NAME_UNKNOWN/ }],
    ['404 without a body: not found', { status: 404, headers: headers(), authenticated: false }, { kind: 'not-found', words: /^404$/ }],
    ['401 without credentials: inconclusive', { status: 401, headers: headers(), body: errorBody('UNAUTHORIZED', 'authentication required'), authenticated: false }, { kind: 'inconclusive', reason: 'unauthorized', words: /does not have/ }],
    ['401 with credentials: inconclusive', { status: 401, headers: headers(), authenticated: true }, { kind: 'inconclusive', reason: 'unauthorized', words: /refused the credentials/ }],
    ['403 denied: inconclusive', { status: 403, headers: headers(), body: errorBody('DENIED', 'requested access to the resource is denied'), authenticated: true }, { kind: 'inconclusive', reason: 'unauthorized' }],
    ['429 toomanyrequests: inconclusive', { status: 429, headers: headers({ 'retry-after': '60' }), body: errorBody('TOOMANYREQUESTS', 'You have reached your pull rate limit'), authenticated: false }, { kind: 'inconclusive', reason: 'rate-limited', words: /retry after 60/ }],
    ['500: inconclusive', { status: 500, headers: headers(), authenticated: false }, { kind: 'inconclusive', reason: 'registry-error' }],
    ['503 from a proxy page: inconclusive', { status: 503, headers: headers(), body: '<html>Service Unavailable</html>', authenticated: false }, { kind: 'inconclusive', reason: 'registry-error', words: /Service Unavailable/ }],
    ['400 name invalid: inconclusive (the reference was already valid by Docker\'s grammar)', { status: 400, headers: headers(), body: errorBody('NAME_INVALID', 'invalid repository name'), authenticated: false }, { kind: 'inconclusive', reason: 'registry-error' }],
  ];
  it.each(cases)('%s', (_title, answer, expected) => {
    const verdict = classifyManifestAnswer(answer);
    expect(verdict.kind).toBe(expected.kind);
    if (expected.reason) expect(verdict).toMatchObject({ reason: expected.reason });
    if (expected.words) expect((verdict as { words: string }).words).toMatch(expected.words);
  });

  it('keeps the digest and media type of a found manifest', () => {
    expect(classifyManifestAnswer({ status: 200, headers: headers({ 'docker-content-digest': 'sha256:abc', 'content-type': 'application/vnd.oci.image.index.v1+json; charset=utf-8' }), authenticated: false })).toEqual({
      kind: 'found',
      digest: 'sha256:abc',
      mediaType: 'application/vnd.oci.image.index.v1+json',
    });
  });
});

describe('classifyFailure', () => {
  it.each([
    ['a timeout', new DOMException('aborted', 'TimeoutError'), true, 'timeout'],
    ['DNS', Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND nowhere.example' } }), false, 'unreachable'],
    ['a refused connection', Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:1' } }), false, 'unreachable'],
    ['a TLS failure', Object.assign(new TypeError('fetch failed'), { cause: { code: 'CERT_HAS_EXPIRED', message: 'certificate has expired' } }), false, 'unreachable'],
  ])('%s is inconclusive', (_title, error, timedOut, reason) => {
    expect(classifyFailure(error, timedOut)).toMatchObject({ kind: 'inconclusive', reason });
  });

  it('names the system error', () => {
    const error = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND nowhere.example' } });
    expect(classifyFailure(error, false)).toMatchObject({ words: 'getaddrinfo ENOTFOUND nowhere.example' });
  });
});

describe('registryWords', () => {
  it('joins every error of the body', () => {
    expect(registryWords({ status: 404, body: JSON.stringify({ errors: [{ code: 'A', message: 'a' }, { code: 'B' }] }) })).toBe('404 A: a; B');
  });
});
