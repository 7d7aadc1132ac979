/**
 * One image's check: `HEAD /v2/<name>/manifests/<reference>` as a pull would start, following the
 * registry's challenge (the token flow of Docker Hub, GHCR, Quay, ECR's Basic auth...). Never
 * throws: a failure is an inconclusive verdict.
 */
import { parseChallenge, type Challenge } from './challenge.js';
import { manifestUrl, type ManifestTarget } from './reference.js';
import { InconclusiveReasons, type BasicCredentials, type CredentialsLookup, type ImageVerdict } from './types.js';
import { classifyFailure, classifyManifestAnswer, registryWords } from './verdict.js';

/** Every manifest kind a kubelet accepts, so the registry does not convert or refuse one. */
export const MANIFEST_ACCEPT = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.v1+prettyjws',
].join(', ');

/** Error bodies are small; a huge one is not a registry's. */
const MAX_BODY_CHARS = 16_384;

export interface ManifestCheckOptions {
  signal: AbortSignal;
  credentials?: CredentialsLookup;
  /** Ask this registry for every image (the embedded cluster's catalog), upstream in `ns`. */
  mirror?: string;
  fetch?: typeof fetch;
}

export async function checkManifest(target: ManifestTarget, options: ManifestCheckOptions): Promise<ImageVerdict> {
  const doFetch = options.fetch ?? fetch;
  const url = manifestUrl(target, options.mirror);
  const send = (method: 'HEAD' | 'GET', authorization?: string) =>
    doFetch(url, { method, headers: { accept: MANIFEST_ACCEPT, ...(authorization ? { authorization } : {}) }, signal: options.signal });
  try {
    let response = await send('HEAD');
    let authorization: string | undefined;
    let authenticated = false;
    if (response.status === 401) {
      const credentials = await options.credentials?.(target.registry);
      const auth = await authorize(parseChallenge(response.headers.get('www-authenticate')), target, credentials, options, doFetch);
      if ('verdict' in auth) return auth.verdict;
      ({ authorization } = auth);
      authenticated = credentials !== undefined;
      response = await send('HEAD', authorization);
    }
    let body: string | undefined;
    // A HEAD answer has no body: the registry's own words come from the same request as a GET.
    // Never after a 429 or a success: Docker Hub counts manifest GETs against the pull limit.
    if (response.status === 404 || response.status >= 500) {
      const get = await send('GET', authorization);
      if (get.status === response.status) body = (await get.text()).slice(0, MAX_BODY_CHARS);
      else await get.body?.cancel();
    }
    return classifyManifestAnswer({ status: response.status, headers: response.headers, authenticated, ...(body !== undefined ? { body } : {}) });
  } catch (error) {
    return classifyFailure(error, options.signal.aborted);
  }
}

type Authorization = { authorization: string } | { verdict: ImageVerdict };

async function authorize(
  challenge: Challenge | undefined,
  target: ManifestTarget,
  credentials: BasicCredentials | undefined,
  options: ManifestCheckOptions,
  doFetch: typeof fetch,
): Promise<Authorization> {
  const basic = credentials ? `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}` : undefined;
  if (challenge?.scheme === 'basic') {
    return basic ? { authorization: basic } : unauthorized('the registry asks for a user name and password, and the check has none');
  }
  const realm = challenge?.scheme === 'bearer' ? challenge.params['realm'] : undefined;
  if (!realm) return unauthorized('the registry answered 401 without a challenge the check can follow');
  const tokenUrl = new URL(realm);
  if (challenge?.params['service']) tokenUrl.searchParams.set('service', challenge.params['service']);
  tokenUrl.searchParams.set('scope', `repository:${target.repository}:pull`);
  const answer = await doFetch(tokenUrl, { headers: basic ? { authorization: basic } : {}, signal: options.signal });
  const text = (await answer.text()).slice(0, MAX_BODY_CHARS);
  if (!answer.ok) {
    const words = registryWords({ status: answer.status, body: text });
    if (answer.status === 429) return { verdict: { kind: 'inconclusive', reason: InconclusiveReasons.rateLimited, words: `token service: ${words}` } };
    return unauthorized(`the token service ${tokenUrl.host} refused${basic ? ' the credentials' : ' an anonymous token'} (${words})`);
  }
  let token: unknown;
  try {
    const parsed = JSON.parse(text) as { token?: unknown; access_token?: unknown };
    token = parsed.token ?? parsed.access_token;
  } catch {
    token = undefined;
  }
  if (typeof token !== 'string' || token === '') return unauthorized(`the token service ${tokenUrl.host} answered without a token`);
  return { authorization: `Bearer ${token}` };
}

function unauthorized(words: string): Authorization {
  return { verdict: { kind: 'inconclusive', reason: InconclusiveReasons.unauthorized, words } };
}
