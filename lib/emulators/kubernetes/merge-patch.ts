/**
 * PATCH bodies as the apiserver applies them to the fields this cluster lets clients patch (a
 * node's spec.unschedulable, which `kubectl cordon|uncordon|drain` patch): JSON merge patch
 * (RFC 7386), and strategic merge patch read as one. That is the same for maps and scalars; a
 * strategic patch's lists would merge by key where this replaces them, and its `$` directives are
 * dropped, so patching lists of keyed items is not served faithfully.
 */
import { ApiError } from './api-errors.js';

export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
const SUPPORTED = [MERGE_PATCH, STRATEGIC_MERGE_PATCH];

function isMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The patch's content type, or the apiserver's 415 for one it does not take. */
export function patchType(contentType: string | undefined): string {
  const type = (contentType ?? '').split(';')[0]?.trim() ?? '';
  if (SUPPORTED.includes(type)) return type;
  throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${SUPPORTED.join(', ')}`);
}

/** `target` with `patch` merged in: null removes a field, maps merge, everything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isMap(target) ? structuredClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue;
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}
