/**
 * The kubelet's credential keyring for one pull: the pod's imagePullSecrets
 * (kubernetes.io/dockerconfigjson), each entry keyed by a registry host or URL, matched to the
 * image's registry. Written apart from lib/registry's (PrepareBuild's image check) on purpose: the
 * embedded node must not share a bug with the code it is there to check.
 */
import type { ImageReference } from './image-catalog.js';
import type { Pod, Secret } from './objects.js';
import type { RegistryAuth } from './runtime/container-runtime.js';

const DOCKER_HUB = ['docker.io', 'index.docker.io', 'registry-1.docker.io'];

function hostOf(key: string): string {
  const host = key.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split('/')[0]?.toLowerCase() ?? '';
  return DOCKER_HUB.includes(host) ? 'docker.io' : host;
}

function loginOf(entry: unknown): { username: string; password: string } | undefined {
  if (!entry || typeof entry !== 'object') return undefined;
  const { username, password, auth } = entry as Record<string, unknown>;
  if (typeof username === 'string' && username !== '' && typeof password === 'string') return { username, password };
  if (typeof auth !== 'string') return undefined;
  const decoded = Buffer.from(auth, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) } : undefined;
}

/**
 * The first of the pod's pull secrets, in order, with a login for the image's registry; undefined:
 * pull anonymously. `image`: as the image manager parsed it, once per pull.
 */
export function pullAuth(pod: Pod, image: ImageReference, secret: (name: string) => Secret | undefined): RegistryAuth | undefined {
  const registry = image.domain.toLowerCase();
  for (const { name } of (pod.spec.imagePullSecrets ?? []) as { name?: string }[]) {
    const encoded = name ? secret(name)?.data?.['.dockerconfigjson'] : undefined;
    if (encoded === undefined) continue;
    let document: unknown;
    try {
      document = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
    } catch {
      continue;
    }
    const auths = (document as { auths?: Record<string, unknown> } | null)?.auths ?? {};
    for (const [key, entry] of Object.entries(auths)) {
      const login = hostOf(key) === registry ? loginOf(entry) : undefined;
      if (login) return { ...login, serveraddress: key };
    }
  }
  return undefined;
}
