/** Maps a request path onto what it addresses, with the apiserver's URL layout. */
import { API_GROUPS, resourceOf, type ResourceType } from './resources.js';

export type Route =
  | { kind: 'version' | 'api' | 'apis' | 'openapi' | 'healthz' }
  /** /api/v1 (group '') or /apis/GROUP/v1: the resources of a group version. */
  | { kind: 'resourceList'; group: string }
  /** /apis/GROUP: the group and its versions. */
  | { kind: 'group'; group: string }
  | { kind: 'collection'; resource: ResourceType; namespace?: string }
  | { kind: 'item'; resource: ResourceType; namespace?: string; name: string }
  | { kind: 'subresource'; resource: ResourceType; namespace?: string; name: string; subresource: string };

const FIXED: Record<string, Route> = {
  '/version': { kind: 'version' },
  '/api': { kind: 'api' },
  '/apis': { kind: 'apis' },
  '/api/v1': { kind: 'resourceList', group: '' },
  '/healthz': { kind: 'healthz' },
  '/livez': { kind: 'healthz' },
  '/readyz': { kind: 'healthz' },
};

/** The rest of a resource path after its group version: [namespaces/NS/]RESOURCE[/NAME[/SUBRESOURCE]]. */
function resourceRoute(group: string, parts: string[]): Route | undefined {
  const [first, second, third, fourth, fifth, ...rest] = parts;
  if (rest.length > 0 || first === undefined) return undefined;
  if (first === 'namespaces' && second !== undefined && third !== undefined) {
    const resource = resourceOf(group, third);
    if (!resource?.namespaced) return undefined;
    if (fourth === undefined) return { kind: 'collection', resource, namespace: second };
    if (fifth === undefined) return { kind: 'item', resource, namespace: second, name: fourth };
    return { kind: 'subresource', resource, namespace: second, name: fourth, subresource: fifth };
  }
  const top = resourceOf(group, first);
  if (top === undefined) return undefined;
  if (second === undefined) return { kind: 'collection', resource: top };
  if (top.namespaced || third !== undefined) return undefined;
  return { kind: 'item', resource: top, name: second };
}

export function parseRoute(pathname: string): Route | undefined {
  const path = pathname.replace(/\/+$/, '') || '/';
  const fixed = FIXED[path];
  if (fixed) return fixed;
  if (path === '/openapi' || path.startsWith('/openapi/')) return { kind: 'openapi' };
  const parts = path.split('/').slice(1).map(decodeURIComponent);
  if (parts[0] === 'api' && parts[1] === 'v1') return resourceRoute('', parts.slice(2));
  if (parts[0] !== 'apis' || parts[1] === undefined || !API_GROUPS.includes(parts[1])) return undefined;
  if (parts.length === 2) return { kind: 'group', group: parts[1] };
  if (parts[2] !== 'v1') return undefined;
  if (parts.length === 3) return { kind: 'resourceList', group: parts[1] };
  return resourceRoute(parts[1], parts.slice(3));
}
