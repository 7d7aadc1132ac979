/**
 * Where an image's manifest lives: the registry host the kubelet would contact, the repository,
 * the tag or digest, from the reference the pipeline parsed (Docker's grammar): nothing here parses.
 */
import type { ImageReference } from '../pipeline/index.js';

export interface ManifestTarget {
  /** The image as written. */
  image: string;
  /** Registry as written in references and docker configs: `docker.io`, `ghcr.io`, `localhost:5000`. */
  registry: string;
  /** The host that serves its API: Docker Hub's is not `docker.io`. */
  apiHost: string;
  repository: string;
  /** Tag or digest: the `<reference>` of `/v2/<name>/manifests/<reference>`. */
  reference: string;
  /** The fully qualified name, e.g. `docker.io/library/alpine:3.20`. */
  familiar: string;
}

/** Docker Hub's API host, as Docker's own client rewrites `docker.io`. */
export const DOCKER_HUB_API_HOST = 'registry-1.docker.io';

export function manifestTarget(reference: ImageReference): ManifestTarget {
  const { original, domain, repository, tag, digest, familiar } = reference;
  return {
    image: original,
    registry: domain,
    apiHost: domain === 'docker.io' ? DOCKER_HUB_API_HOST : domain,
    repository,
    reference: digest ?? tag ?? 'latest',
    familiar,
  };
}

/** Docker talks plain HTTP to loopback registries only; every other registry gets HTTPS. */
export function isLoopbackHost(host: string): boolean {
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '');
  return name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/**
 * The manifest URL. A mirror (the embedded cluster's catalog registry) is asked for every
 * registry, with the upstream named in `ns` as containerd does with its mirrors.
 */
export function manifestUrl(target: ManifestTarget, mirror?: string): URL {
  const path = `/v2/${target.repository}/manifests/${target.reference}`;
  if (mirror !== undefined) {
    const url = new URL(path, mirror);
    url.searchParams.set('ns', target.registry);
    return url;
  }
  const scheme = isLoopbackHost(target.apiHost) ? 'http' : 'https';
  return new URL(`${scheme}://${target.apiHost}${path}`);
}
