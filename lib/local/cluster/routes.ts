/** Maps a request path onto what it addresses, with the apiserver's URL layout. */
import { RESOURCES, type ResourceType } from './resources.js';

export type Route =
  | { kind: 'version' | 'api' | 'apis' | 'core' | 'openapi' | 'healthz' }
  | { kind: 'collection'; resource: ResourceType; namespace?: string }
  | { kind: 'item'; resource: ResourceType; namespace?: string; name: string }
  | { kind: 'subresource'; resource: ResourceType; namespace?: string; name: string; subresource: string };

const FIXED: Record<string, Route> = {
  '/version': { kind: 'version' },
  '/api': { kind: 'api' },
  '/apis': { kind: 'apis' },
  '/api/v1': { kind: 'core' },
  '/healthz': { kind: 'healthz' },
  '/livez': { kind: 'healthz' },
  '/readyz': { kind: 'healthz' },
};

export function parseRoute(pathname: string): Route | undefined {
  const path = pathname.replace(/\/+$/, '') || '/';
  const fixed = FIXED[path];
  if (fixed) return fixed;
  if (path === '/openapi' || path.startsWith('/openapi/')) return { kind: 'openapi' };
  if (!path.startsWith('/api/v1/')) return undefined;
  const parts = path.slice('/api/v1/'.length).split('/').map(decodeURIComponent);
  const [first, second, third, fourth, fifth, ...rest] = parts;
  if (rest.length > 0 || first === undefined) return undefined;
  const top = RESOURCES[first];

  if (first === 'namespaces' && second !== undefined && third !== undefined) {
    const resource = RESOURCES[third];
    if (!resource?.namespaced) return undefined;
    if (fourth === undefined) return { kind: 'collection', resource, namespace: second };
    if (fifth === undefined) return { kind: 'item', resource, namespace: second, name: fourth };
    return { kind: 'subresource', resource, namespace: second, name: fourth, subresource: fifth };
  }
  if (top === undefined) return undefined;
  if (second === undefined) return { kind: 'collection', resource: top };
  if (top.namespaced || third !== undefined) return undefined;
  return { kind: 'item', resource: top, name: second };
}
