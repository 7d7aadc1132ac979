/**
 * The seam for fault injection at the HTTP layer: a hook decides, per request, whether the server
 * answers with an error Status (as an overloaded or failing apiserver would) or drops the connection.
 */
import { ApiError } from './api-errors.js';

export type Fault =
  | { kind: 'status'; code: number; retryAfterSeconds?: number; message?: string }
  | { kind: 'drop' };

export interface FaultRequest {
  method: string;
  path: string;
  query: URLSearchParams;
}

export type FaultInjector = (request: FaultRequest) => Fault | undefined;

const REASONS: Record<number, { reason: string; message: string }> = {
  429: { reason: 'TooManyRequests', message: 'Too many requests, please try again later.' },
  500: { reason: 'InternalError', message: 'Internal error occurred: injected fault' },
  503: { reason: 'ServiceUnavailable', message: 'The server is currently unable to handle the request' },
  504: { reason: 'Timeout', message: 'The server was unable to return a response in the time allotted, but may still be processing the request' },
};

export function faultError(fault: Extract<Fault, { kind: 'status' }>): ApiError {
  const known = REASONS[fault.code] ?? { reason: 'InternalError', message: 'injected fault' };
  const headers: Record<string, string> = {};
  const details: { retryAfterSeconds?: number } = {};
  if (fault.retryAfterSeconds !== undefined) {
    headers['Retry-After'] = String(fault.retryAfterSeconds);
    details.retryAfterSeconds = fault.retryAfterSeconds;
  }
  return new ApiError(fault.code, known.reason, fault.message ?? known.message, details, headers);
}
