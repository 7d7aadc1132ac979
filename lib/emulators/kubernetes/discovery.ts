/** Discovery documents: what kubectl reads before anything else to map "po" to /api/v1/.../pods. */
import { API_GROUPS, RESOURCES, POD_EVICTION_SUBRESOURCE, POD_EXEC_SUBRESOURCE, POD_LOG_SUBRESOURCE } from './resources.js';

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

function groupEntry(name: string) {
  const version = { groupVersion: `${name}/v1`, version: 'v1' };
  return { name, versions: [version], preferredVersion: version };
}

/** The served groups besides the core one, each at v1 only. */
export function apiGroupList() {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: API_GROUPS.map(groupEntry) };
}

export function apiGroup(name: string) {
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(name) };
}

/** The resources of one group at v1 ('' for the core group). */
export function resourceList(group: string) {
  const inGroup = Object.values(RESOURCES).filter((r) => (r.group ?? '') === group);
  const resources = inGroup.flatMap((r) => {
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
    return [
      entry,
      // Group and version named: kubectl drain evicts only when discovery says which Eviction it takes.
      { name: `pods/${POD_EVICTION_SUBRESOURCE}`, singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
      { name: `pods/${POD_EXEC_SUBRESOURCE}`, singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] },
      { name: `pods/${POD_LOG_SUBRESOURCE}`, singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
    ];
  });
  // As the apiserver answers: /api/v1 carries no apiVersion, a group's list does.
  if (!group) return { kind: 'APIResourceList', groupVersion: 'v1', resources };
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/v1`, resources };
}
