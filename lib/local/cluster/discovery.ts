/** Discovery documents: what kubectl reads before anything else to map "po" to /api/v1/.../pods. */
import { RESOURCES, POD_LOG_SUBRESOURCE } from './resources.js';

export const SERVER_VERSION = {
  major: '1',
  minor: '33',
  gitVersion: 'v1.33.0-embedded',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.24.0',
  compiler: 'gc',
  platform: 'linux/amd64',
} as const;

export function apiVersions(serverAddress: string) {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/** No API groups are served; an empty list tells kubectl so without it probing further. */
export function apiGroupList() {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: [] };
}

export function coreResourceList() {
  const resources = Object.values(RESOURCES).flatMap((r) => {
    const entry = {
      name: r.name,
      singularName: r.singularName,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.verbs,
      ...(r.shortNames ? { shortNames: r.shortNames } : {}),
      ...(r.categories ? { categories: r.categories } : {}),
    };
    if (r.name !== 'pods') return [entry];
    return [entry, { name: `pods/${POD_LOG_SUBRESOURCE}`, singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] }];
  });
  return { kind: 'APIResourceList', groupVersion: 'v1', resources };
}
