/**
 * A build's inputs tag looked up, and the image it names tagged again, over the registry's HTTP API
 * (the OCI distribution spec: github.com/opencontainers/distribution-spec spec.md, "Checking if
 * content exists in the registry", "Pulling manifests", "Pushing Manifests"): what a build whose
 * inputs were pushed already does instead of running the builder (lib/workflow/build-reuse.ts).
 *
 * Why here and not in a pod: a tag is one manifest PUT of bytes the registry has, and no tool a
 * builder image must provide copies a manifest without pulling its layers (`buildah push` pushes
 * from its own store, which a fresh pod must fill first: the very pull this saves). The credentials
 * are those the builder pushes with (its registry login, else the pod's first pull secret), read
 * by the task as the image check reads them. Never throws.
 */
import { createHash } from 'node:crypto';
import type { ImageReference } from '../pipeline/index.js';
import { parseChallenge } from './challenge.js';
import { MANIFEST_ACCEPT } from './manifest-check.js';
import { isLoopbackHost } from './reference.js';
import type { CredentialsLookup, ImageVerdict } from './types.js';
import { classifyFailure, classifyManifestAnswer, registryWords } from './verdict.js';

export interface RegistryAccess {
  credentials?: CredentialsLookup;
  /** Registries (`host:port` as written) spoken to over plain HTTP, as the builder's STEP_RUNNER_INSECURE_REGISTRIES. */
  insecure?: readonly string[];
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Manifests are small (the spec lets a registry refuse past 4 MiB). */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 10_000;

type Send = (init: { method: string; headers?: Record<string, string>; body?: Uint8Array }) => Promise<Response>;

/** Requests to one repository, authorized once (Basic, or a bearer token for `actions`) after the first 401. */
function repositorySession(reference: ImageReference, actions: 'pull' | 'pull,push', access: RegistryAccess, signal: AbortSignal): { send(path: string): Send; authenticated(): boolean } {
  const doFetch = access.fetch ?? fetch;
  const host = reference.domain === 'docker.io' ? 'registry-1.docker.io' : reference.domain;
  const scheme = isLoopbackHost(host) || access.insecure?.includes(reference.domain) ? 'http' : 'https';
  let authorization: string | undefined;
  let withCredentials = false;
  const authorize = async (challengeHeader: string | null): Promise<boolean> => {
    const credentials = await access.credentials?.(reference.domain);
    withCredentials = credentials !== undefined;
    const basic = credentials ? `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}` : undefined;
    const challenge = parseChallenge(challengeHeader);
    if (challenge?.scheme === 'basic') {
      authorization = basic;
      return basic !== undefined;
    }
    const realm = challenge?.scheme === 'bearer' ? challenge.params['realm'] : undefined;
    if (!realm) return false;
    const url = new URL(realm);
    if (challenge?.params['service']) url.searchParams.set('service', challenge.params['service']);
    url.searchParams.set('scope', `repository:${reference.repository}:${actions}`);
    const answer = await doFetch(url, { headers: basic ? { authorization: basic } : {}, signal });
    if (!answer.ok) return (await answer.body?.cancel(), false);
    const parsed = (await answer.json().catch(() => ({}))) as { token?: unknown; access_token?: unknown };
    const token = parsed.token ?? parsed.access_token;
    if (typeof token !== 'string' || token === '') return false;
    authorization = `Bearer ${token}`;
    return true;
  };
  return {
    authenticated: () => withCredentials,
    send: (path) => async (init) => {
      const url = `${scheme}://${host}/v2/${reference.repository}${path}`;
      const request = () => doFetch(url, { method: init.method, headers: { ...init.headers, ...(authorization ? { authorization } : {}) }, ...(init.body ? { body: init.body } : {}), signal });
      const first = await request();
      if (first.status !== 401 || authorization !== undefined) return first;
      const challenge = first.headers.get('www-authenticate');
      await first.body?.cancel();
      return (await authorize(challenge)) ? request() : first;
    },
  };
}

/** Whether the registry has `reference`'s manifest (a HEAD, as a pull starts), and its digest. */
export async function findManifest(reference: ImageReference, access: RegistryAccess = {}): Promise<ImageVerdict> {
  const signal = AbortSignal.timeout(access.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  try {
    const session = repositorySession(reference, 'pull', access, signal);
    const answer = await session.send(`/manifests/${reference.digest ?? reference.tag ?? 'latest'}`)({ method: 'HEAD', headers: { accept: MANIFEST_ACCEPT } });
    await answer.body?.cancel();
    return classifyManifestAnswer({ status: answer.status, headers: answer.headers, authenticated: session.authenticated() });
  } catch (error) {
    return classifyFailure(error, signal.aborted);
  }
}

export type CopyOutcome = { ok: true; digest: string } | { ok: false; words: string };

/**
 * The manifest `digest` of `from`'s repository put under each of `tags` (all in that repository:
 * every blob it names is there already), each answer checked to name the same digest.
 */
export async function tagManifest(from: ImageReference, digest: string, tags: readonly ImageReference[], access: RegistryAccess = {}): Promise<CopyOutcome> {
  const elsewhere = tags.find((tag) => tag.domain !== from.domain || tag.repository !== from.repository);
  if (elsewhere) return { ok: false, words: `${elsewhere.original} is not in ${from.domain}/${from.repository}` };
  const signal = AbortSignal.timeout(access.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  try {
    const session = repositorySession(from, 'pull,push', access, signal);
    // By digest, so the bytes are those the key's tag named when it was found, whatever it names now.
    const got = await session.send(`/manifests/${digest}`)({ method: 'GET', headers: { accept: MANIFEST_ACCEPT } });
    if (!got.ok) return { ok: false, words: `reading ${from.domain}/${from.repository}@${digest}: ${registryWords({ status: got.status, body: (await got.text()).slice(0, 2000) })}` };
    const bytes = new Uint8Array(await got.arrayBuffer());
    if (bytes.length > MAX_MANIFEST_BYTES) return { ok: false, words: `the manifest ${digest} is ${bytes.length} bytes, more than a manifest's ${MAX_MANIFEST_BYTES}` };
    const read = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    if (read !== digest) return { ok: false, words: `the registry's manifest for ${digest} hashes to ${read}` };
    const mediaType = got.headers.get('content-type')?.split(';')[0]?.trim() || JSON.parse(new TextDecoder().decode(bytes)).mediaType;
    for (const tag of tags) {
      const put = await session.send(`/manifests/${tag.tag}`)({ method: 'PUT', headers: { 'content-type': String(mediaType) }, body: bytes });
      const body = put.ok ? (await put.body?.cancel(), '') : (await put.text()).slice(0, 2000);
      if (!put.ok) return { ok: false, words: `tagging ${tag.original}: ${registryWords({ status: put.status, body })}` };
      const answered = put.headers.get('docker-content-digest');
      if (answered && answered !== digest) return { ok: false, words: `tagging ${tag.original}: the registry stored ${answered}, not ${digest}` };
    }
    return { ok: true, digest };
  } catch (error) {
    const verdict = classifyFailure(error, signal.aborted);
    return { ok: false, words: verdict.kind === 'inconclusive' ? verdict.words : String(error) };
  }
}
