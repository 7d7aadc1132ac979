/** Object and field names as the apiserver checks them: RFC 1123 labels and subdomains, its wording. */
import type { FieldProblem } from './api-errors.js';
import { invalidValue, required } from './field-errors.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

export function checkDnsLabel(field: string, value: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (value.length > 63) problems.push(invalidValue(field, value, 'must be no more than 63 characters'));
  if (!DNS1123_LABEL.test(value)) problems.push(invalidValue(field, value, LABEL_MESSAGE));
  return problems;
}

export function checkDnsSubdomain(field: string, value: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (value.length > 253) problems.push(invalidValue(field, value, 'must be no more than 253 characters'));
  if (!DNS1123_SUBDOMAIN.test(value)) problems.push(invalidValue(field, value, SUBDOMAIN_MESSAGE));
  return problems;
}

/** metadata.name: required (the caller resolves generateName first) and a valid name. */
export function checkObjectName(name: string | undefined, kind: 'label' | 'subdomain'): FieldProblem[] {
  if (name === undefined || name === '') return [required('metadata.name', 'name or generateName is required')];
  return kind === 'label' ? checkDnsLabel('metadata.name', name) : checkDnsSubdomain('metadata.name', name);
}
