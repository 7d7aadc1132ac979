/**
 * Credentials from Docker config documents (the `.dockerconfigjson` of a pull Secret), matched to a
 * registry as the kubelet's credential keyring matches them: by host, with Docker Hub's legacy
 * keys counted as `docker.io`.
 */
import type { BasicCredentials, CredentialsLookup } from './types.js';

const DOCKER_HUB_KEYS = ['docker.io', 'index.docker.io', 'registry-1.docker.io'];

/** The registry host a config key names: keys may be URLs (`https://index.docker.io/v1/`) or hosts. */
export function configKeyHost(key: string): string {
  const withoutScheme = key.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const host = withoutScheme.split('/')[0]?.toLowerCase() ?? '';
  return DOCKER_HUB_KEYS.includes(host) ? 'docker.io' : host;
}

function credentialsOf(entry: unknown): BasicCredentials | undefined {
  if (!entry || typeof entry !== 'object') return undefined;
  const { username, password, auth } = entry as { username?: unknown; password?: unknown; auth?: unknown };
  if (typeof username === 'string' && typeof password === 'string' && username !== '') return { username, password };
  if (typeof auth !== 'string' || auth === '') return undefined;
  const decoded = Buffer.from(auth, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) } : undefined;
}

/** Registry -> credentials; the first document naming a registry wins (the kubelet tries them in order). */
export function parseDockerConfigs(documents: readonly string[]): Map<string, BasicCredentials> {
  const found = new Map<string, BasicCredentials>();
  for (const text of documents) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      continue;
    }
    const auths = (parsed as { auths?: unknown } | null)?.auths ?? parsed;
    if (!auths || typeof auths !== 'object') continue;
    for (const [key, entry] of Object.entries(auths as Record<string, unknown>)) {
      const host = configKeyHost(key);
      const credentials = credentialsOf(entry);
      if (host && credentials && !found.has(host)) found.set(host, credentials);
    }
  }
  return found;
}

export function dockerConfigLookup(documents: readonly string[]): CredentialsLookup {
  const table = parseDockerConfigs(documents);
  return async (registry) => table.get(registry.toLowerCase());
}

/** The first lookup that has credentials for the registry answers. */
export function firstOf(...lookups: (CredentialsLookup | undefined)[]): CredentialsLookup {
  return async (registry) => {
    for (const lookup of lookups) {
      const found = await lookup?.(registry);
      if (found) return found;
    }
    return undefined;
  };
}

/**
 * A Docker config document with these registries' logins (`auth`: base64 of `user:password`) put
 * in, over what the base document (a pull secret's `.dockerconfigjson`) said of the same hosts; the
 * base's other registries kept as they were. A base that is not a config's JSON counts as none.
 * Pure: what a build pod's registry login Secret holds (containers-auth.json(5): buildah reads the
 * `auths` map of Docker's config.json).
 */
export function withRegistryAuths(base: string | undefined, auths: Readonly<Record<string, string>>): string {
  let parsed: unknown;
  try {
    parsed = base === undefined ? {} : JSON.parse(base);
  } catch {
    parsed = {};
  }
  const document = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  const given = document['auths'];
  const existing = given && typeof given === 'object' && !Array.isArray(given) ? (given as Record<string, unknown>) : {};
  const kept = Object.fromEntries(Object.entries(existing).filter(([key]) => !(configKeyHost(key) in auths)));
  return JSON.stringify({ ...document, auths: { ...kept, ...Object.fromEntries(Object.entries(auths).map(([host, auth]) => [host, { auth }])) } });
}
