/**
 * The key's tag looked up and the image it names tagged again, against a registry that answers as
 * the distribution spec says (a bearer challenge, a token for the scope asked, manifests by digest
 * and by tag): the requests made, in order, and each refusal's words.
 */
import { createHash } from 'node:crypto';
import { parseImageReference } from '../pipeline/index.js';
import { findManifest, tagManifest } from './manifest-copy.js';

const MANIFEST = JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config: {}, layers: [] });
const DIGEST = `sha256:${createHash('sha256').update(MANIFEST).digest('hex')}`;
const HOST = 'registry.example.com:5000';
const KEY_TAG = parseImageReference(`${HOST}/team/app:inputs-abc`);

/** A registry that wants a token for its repository, got with Basic credentials (github.com/distribution/distribution docs/spec/auth/token.md). */
function registry(options: { stored?: string; putDigest?: string } = {}) {
  const requests: string[] = [];
  const fake: typeof fetch = async (url, init) => {
    const target = new URL(String(url));
    const method = init?.method ?? 'GET';
    const auth = new Headers(init?.headers).get('authorization');
    requests.push(`${method} ${target.protocol}//${target.host}${target.pathname}${target.search}${auth ? ` (${auth.split(' ')[0]})` : ''}`);
    if (target.pathname === '/token') {
      return auth === `Basic ${Buffer.from('ci:secret').toString('base64')}` ? Response.json({ token: `t-${target.searchParams.get('scope')}` }) : new Response('{}', { status: 401 });
    }
    if (!auth?.startsWith('Bearer ')) return new Response(null, { status: 401, headers: { 'www-authenticate': `Bearer realm="http://${HOST}/token",service="${HOST}"` } });
    if (method === 'HEAD') return target.pathname.endsWith('/inputs-abc') ? new Response(null, { status: 200, headers: { 'docker-content-digest': DIGEST } }) : new Response(null, { status: 404 });
    if (method === 'GET') return new Response(options.stored ?? MANIFEST, { headers: { 'content-type': 'application/vnd.oci.image.manifest.v1+json' } });
    if (method === 'PUT') {
      if (!auth.includes('pull,push')) return Response.json({ errors: [{ code: 'DENIED', message: 'requested access to the resource is denied' }] }, { status: 403 });
      return new Response(null, { status: 201, headers: { 'docker-content-digest': options.putDigest ?? DIGEST } });
    }
    return new Response(null, { status: 405 });
  };
  return { fake, requests };
}
const credentials = async (host: string) => (host === HOST ? { username: 'ci', password: 'secret' } : undefined);

describe("the key's tag", () => {
  it('is found with its digest, over plain HTTP for an insecure registry, after a pull token', async () => {
    const r = registry();
    expect(await findManifest(KEY_TAG, { credentials, insecure: [HOST], fetch: r.fake })).toEqual({ kind: 'found', digest: DIGEST });
    expect(r.requests).toEqual([
      `HEAD http://${HOST}/v2/team/app/manifests/inputs-abc`,
      `GET http://${HOST}/token?service=${encodeURIComponent(HOST)}&scope=repository%3Ateam%2Fapp%3Apull (Basic)`,
      `HEAD http://${HOST}/v2/team/app/manifests/inputs-abc (Bearer)`,
    ]);
  });

  it('is not found when the registry says so', async () => {
    const r = registry();
    expect(await findManifest(parseImageReference(`${HOST}/team/app:inputs-other`), { credentials, insecure: [HOST], fetch: r.fake })).toMatchObject({ kind: 'not-found', status: 404 });
  });
});

describe('tagging the image it names', () => {
  const tags = [`${HOST}/team/app:1`, `${HOST}/team/app:latest`].map((tag) => parseImageReference(tag));

  it('reads the manifest by digest and puts the same bytes under each tag, with a push token', async () => {
    const r = registry();
    expect(await tagManifest(KEY_TAG, DIGEST, tags, { credentials, insecure: [HOST], fetch: r.fake })).toEqual({ ok: true, digest: DIGEST });
    expect(r.requests.slice(1)).toEqual([
      `GET http://${HOST}/token?service=${encodeURIComponent(HOST)}&scope=repository%3Ateam%2Fapp%3Apull%2Cpush (Basic)`,
      `GET http://${HOST}/v2/team/app/manifests/${DIGEST} (Bearer)`,
      `PUT http://${HOST}/v2/team/app/manifests/1 (Bearer)`,
      `PUT http://${HOST}/v2/team/app/manifests/latest (Bearer)`,
    ]);
  });

  it.each<[string, Parameters<typeof registry>[0], string]>([
    ['a manifest whose bytes are not the digest', { stored: `${MANIFEST} ` }, `the registry's manifest for ${DIGEST} hashes to sha256:`],
    ['a registry that stores another digest', { putDigest: 'sha256:0' }, `tagging ${HOST}/team/app:1: the registry stored sha256:0, not ${DIGEST}`],
  ])('refuses %s', async (_, options, words) => {
    const outcome = await tagManifest(KEY_TAG, DIGEST, tags, { credentials, insecure: [HOST], fetch: registry(options).fake });
    expect(outcome).toEqual({ ok: false, words: expect.stringContaining(words) });
  });

  it("says the registry's words when it refuses the push", async () => {
    const outcome = await tagManifest(KEY_TAG, DIGEST, tags, { insecure: [HOST], fetch: registry().fake });
    expect(outcome).toEqual({ ok: false, words: expect.stringContaining(`reading ${HOST}/team/app@${DIGEST}: 401`) });
  });

  it('asks nothing for a tag of another repository', async () => {
    const r = registry();
    expect(await tagManifest(KEY_TAG, DIGEST, [parseImageReference(`${HOST}/team/mirror:1`)], { credentials, fetch: r.fake })).toEqual({ ok: false, words: `${HOST}/team/mirror:1 is not in ${HOST}/team/app` });
    expect(r.requests).toEqual([]);
  });
});
