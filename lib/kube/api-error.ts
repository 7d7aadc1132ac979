import { KubernetesUnavailable } from './errors.js';

/**
 * What a failed Kubernetes API call tells us, whatever threw it: @kubernetes/client-node 1.x
 * throws `ApiException` with `code` (HTTP status), `body` (the response text, usually a JSON
 * `Status`) and `headers` (lower-case names); node-fetch throws `FetchError` with an errno `code`
 * for dropped connections.
 */
export interface KubeFailure {
  /** HTTP status, when the server answered. */
  status?: number;
  /** The Status `reason` (NotFound, AlreadyExists, Invalid...), when the body had one. */
  reason?: string;
  /** The API server's own message, or the error's, without the client's header dump. */
  message: string;
  headers: Record<string, string>;
  /** The errno-style code of a network failure (ECONNRESET...). */
  networkCode?: string;
}

export function kubeFailure(error: unknown): KubeFailure {
  if (isApiException(error)) {
    const status = parseStatus(error.body);
    return {
      status: error.code,
      ...(status.reason ? { reason: status.reason } : {}),
      message: redactCredentials(status.message ?? `HTTP ${error.code}`),
      headers: error.headers ?? {},
    };
  }
  const networkCode = errnoCode(error);
  return {
    message: redactCredentials(error instanceof Error ? error.message : String(error)),
    headers: {},
    ...(networkCode ? { networkCode } : {}),
  };
}

/**
 * A failure's words end up in Causes, state outputs and logs. An authenticating proxy in front of
 * the API server (or a webhook token authenticator) may quote the credentials it refused: an EKS
 * token (`k8s-aws-v1.` + a presigned URL) or any bearer token never goes further than this.
 */
export function redactCredentials(text: string): string {
  return text
    .replace(/k8s-aws-v1\.[A-Za-z0-9_=-]+/g, 'k8s-aws-v1.***')
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 ***');
}

/** The HTTP status of an API error, or undefined for anything else. */
export function httpStatus(error: unknown): number | undefined {
  return isApiException(error) ? error.code : undefined;
}

interface ApiExceptionShape {
  code: number;
  body: unknown;
  headers?: Record<string, string>;
}

// Checked by shape, not instanceof: ESM and CJS copies of the client (or a test's fake) would
// otherwise not be recognised.
function isApiException(error: unknown): error is ApiExceptionShape {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'number' &&
    'body' in error
  );
}

function parseStatus(body: unknown): { reason?: string; message?: string } {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return body.trim() ? { message: body.trim().slice(0, 500) } : {};
    }
  }
  if (typeof value !== 'object' || value === null) return {};
  const { reason, message } = value as { reason?: unknown; message?: unknown };
  return {
    ...(typeof reason === 'string' && reason ? { reason } : {}),
    ...(typeof message === 'string' && message ? { message } : {}),
  };
}

function errnoCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current !== 'object') return undefined;
    const { code, errno, cause } = current as { code?: unknown; errno?: unknown; cause?: unknown };
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    if (typeof errno === 'string' && /^E[A-Z]+$/.test(errno)) return errno;
    current = cause;
  }
  return undefined;
}

/** "404 NotFound: pods \"x\" not found", for messages and Causes. */
/**
 * A 403 from admission rather than authorization: the runner may create pods, but the namespace
 * refused this one (Pod Security, a ResourceQuota that wants requests, a LimitRange, a validating
 * webhook). Waiting does not change such a rule. RBAC's refusals say "cannot VERB resource", and
 * a quota that is only used up ("exceeded quota") frees as other pods end: neither is admission's.
 */
export function isAdmissionRefusal(failure: KubeFailure): boolean {
  return failure.status === 403 && !/\bcannot [a-z]+ resource "/.test(failure.message) && !/\bexceeded quota\b/.test(failure.message);
}

export function describeKubeFailure(failure: KubeFailure): string {
  if (failure.status !== undefined) {
    return `${failure.status}${failure.reason ? ` ${failure.reason}` : ''}: ${failure.message}`;
  }
  return failure.networkCode && !failure.message.includes(failure.networkCode)
    ? `${failure.networkCode}: ${failure.message}`
    : failure.message;
}

/**
 * An API error no caller expected (403 from missing RBAC, 400 on a read...): the API cannot do what
 * the runner needs, which the console shows as KubernetesUnavailable with the server's own words.
 * Anything that is not an API error (a bug) is returned as it is.
 */
export function unexpectedKubeError(operation: string, error: unknown): unknown {
  const failure = kubeFailure(error);
  if (failure.status === undefined) return error;
  return new KubernetesUnavailable(
    `The Kubernetes API refused to ${operation}: ${describeKubeFailure(failure)}`,
    operation,
    1,
    { cause: error },
  );
}
