/**
 * What containerd says when a pull fails, word for word as the kubelet passes it on (see
 * test/fixtures/kube/image-pull-messages.json). lib/kube classifies on these words, so
 * they must stay real; a catalog miss is the one exception (notInCatalog).
 */
import type { ImageReference } from './image-catalog.js';

const registryHost = (domain: string) => (domain === 'docker.io' ? 'registry-1.docker.io' : domain);

function unpack(reference: ImageReference, code: 'NotFound' | 'Unknown', detail: string): string {
  return `rpc error: code = ${code} desc = failed to pull and unpack image "${reference.full}": ${detail}`;
}

function resolveFailed(reference: ImageReference, code: 'NotFound' | 'Unknown', detail: string): string {
  return unpack(reference, code, `failed to resolve reference "${reference.full}": ${detail}`);
}

/**
 * An image of a known registry that the catalog does not list. It may well exist there: the node
 * pulls nothing, so say what is missing (the catalog entry) and how to add one, not what a
 * registry would say of an image it does not have. lib/kube judges these words permanent.
 */
const NOT_IN_CATALOG = 'not in the local image catalog';

export function notInCatalogWords(): string {
  return `${NOT_IN_CATALOG}: the embedded cluster pulls no image; add an entry for it with --images FILE (the format is in lib/emulators/kubernetes/images/README.md)`;
}

export function notInCatalog(reference: ImageReference): string {
  return unpack(reference, 'NotFound', notInCatalogWords());
}

export function unauthorized(reference: ImageReference): string {
  const object = reference.digest ?? reference.tag ?? 'latest';
  return resolveFailed(
    reference,
    'Unknown',
    `pulling from host ${registryHost(reference.domain)} failed with status code [manifests ${object}]: 401 Unauthorized`,
  );
}

export function rateLimited(reference: ImageReference, digest: string): string {
  return unpack(
    reference,
    'Unknown',
    `failed to copy: httpReaderSeeker: failed open: unexpected status code https://${registryHost(reference.domain)}/v2/${reference.repository}/manifests/${digest}: 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit. You may increase the limit by authenticating and upgrading: https://www.docker.com/increase-rate-limit`,
  );
}

/** A registry host that does not resolve (a typo in the registry name). */
export function unknownHost(reference: ImageReference): string {
  const object = reference.digest ?? reference.tag ?? 'latest';
  const url = `https://${reference.domain}/v2/${reference.repository}/manifests/${object}`;
  const host = reference.domain.replace(/:\d+$/, '');
  const dial = /^(localhost|127\.)/.test(host)
    ? `dial tcp ${host === 'localhost' ? '127.0.0.1' : host}:${reference.domain.split(':')[1] ?? '443'}: connect: connection refused`
    : `dial tcp: lookup ${host} on 127.0.0.53:53: no such host`;
  return resolveFailed(reference, 'Unknown', `failed to do request: Head "${url}": ${dial}`);
}

/** kubelet: InspectFailed and the InvalidImageName waiting message. */
export function invalidReferenceMessage(image: string, parseError: string): string {
  return `Failed to apply default image tag "${image}": couldn't parse image reference "${image}": ${parseError}`;
}
