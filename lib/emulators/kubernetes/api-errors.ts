/**
 * Errors the API answers with a `Status` object, worded as kube-apiserver words them (clients and
 * users match on reason, code and message).
 */

export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[]; retryAfterSeconds?: number };
  code: number;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusBody['details'],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toStatus(): StatusBody {
    // Field order as the apiserver writes it (details before code), for byte-for-byte familiarity.
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details !== undefined ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

export function notFound(resource: string, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${resource} "${name}" not found`, { name, kind: resource });
}

export function alreadyExists(resource: string, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${resource} "${name}" already exists`, { name, kind: resource });
}

/** An update based on a resourceVersion that is no longer the object's: optimistic concurrency. */
export function conflict(resource: string, name: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, kind: resource },
  );
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function noSuchPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function methodNotAllowed(): ApiError {
  return new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export function forbidden(resource: string, name: string, why: string): ApiError {
  return new ApiError(403, 'Forbidden', `${resource} "${name}" is forbidden: ${why}`, { name, kind: resource });
}

/** A field problem, rendered as the apiserver's field.Error (`spec.containers: Required value`). */
export interface FieldProblem {
  field: string;
  reason:
    | 'FieldValueRequired'
    | 'FieldValueInvalid'
    | 'FieldValueNotSupported'
    | 'FieldValueDuplicate'
    | 'FieldValueNotFound'
    | 'FieldValueForbidden'
    | 'FieldValueTooLong';
  /** The text after the field path, e.g. `Required value` or `Invalid value: "X": why`. */
  message: string;
}

export function invalid(kind: string, name: string, problems: FieldProblem[]): ApiError {
  const rendered = problems.map((p) => `${p.field}: ${p.message}`);
  const summary = rendered.length === 1 ? rendered[0] : `[${rendered.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${kind} "${name}" is invalid: ${summary}`, {
    name,
    kind,
    causes: problems.map((p) => ({ reason: p.reason, message: p.message, field: p.field })),
  });
}
