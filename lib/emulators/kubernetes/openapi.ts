/**
 * Just enough OpenAPI v3 for kubectl's create/apply: its field-validation check looks for a
 * `fieldValidation` query parameter on each kind's PATCH operation and, finding it, leaves
 * validation to the server (which this one does on create) instead of failing to download schemas.
 * No schemas are served, so `kubectl explain` has nothing to show.
 */
import { RESOURCES } from './resources.js';

const CORE_PATH = 'api/v1';
const HASH = 'embedded0';

export function openApiIndex() {
  return { paths: { [CORE_PATH]: { serverRelativeURL: `/openapi/v3/${CORE_PATH}?hash=${HASH}` } } };
}

export function openApiCoreDocument() {
  const paths: Record<string, unknown> = {};
  // Only the core group: the others served here are read-only, so nothing is created in them.
  for (const resource of Object.values(RESOURCES).filter((r) => r.group === undefined)) {
    const path = resource.namespaced ? `/api/v1/namespaces/{namespace}/${resource.name}/{name}` : `/api/v1/${resource.name}/{name}`;
    paths[path] = {
      patch: {
        operationId: `patch${resource.kind}`,
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': { group: '', version: 'v1', kind: resource.kind },
        parameters: [{ name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } }],
        responses: { '200': { description: 'OK' } },
      },
    };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.33.0-embedded' }, paths, components: { schemas: {} } };
}

/** Matches /openapi/v3 and /openapi/v3/api/v1; anything else under /openapi is a 404. */
export function openApiDocument(pathname: string): unknown {
  const path = pathname.replace(/\/+$/, '');
  if (path === '/openapi/v3') return openApiIndex();
  if (path === `/openapi/v3/${CORE_PATH}`) return openApiCoreDocument();
  return undefined;
}
