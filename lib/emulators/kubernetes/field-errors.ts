/**
 * The apiserver's field errors (k8s.io/apimachinery/pkg/util/validation/field), rendered as it
 * renders them after the field path: `Required value`, `Invalid value: "x": why`, `Not found: "x"`.
 */
import type { FieldProblem } from './api-errors.js';

const quote = (value: unknown) => JSON.stringify(value);

export function required(field: string, detail?: string): FieldProblem {
  return { field, reason: 'FieldValueRequired', message: detail ? `Required value: ${detail}` : 'Required value' };
}

export function invalidValue(field: string, value: unknown, why: string): FieldProblem {
  return { field, reason: 'FieldValueInvalid', message: `Invalid value: ${quote(value)}: ${why}` };
}

export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldProblem {
  return {
    field,
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${quote(value)}: supported values: ${supported.map((s) => quote(s)).join(', ')}`,
  };
}

export function duplicate(field: string, value: unknown): FieldProblem {
  return { field, reason: 'FieldValueDuplicate', message: `Duplicate value: ${quote(value)}` };
}

export function notFound(field: string, value: unknown): FieldProblem {
  return { field, reason: 'FieldValueNotFound', message: `Not found: ${quote(value)}` };
}

export function forbidden(field: string, detail: string): FieldProblem {
  return { field, reason: 'FieldValueForbidden', message: `Forbidden: ${detail}` };
}
