/** Create-time validation, with the apiserver's field paths and wording (tests and users match on them). */
import type { FieldProblem } from './api-errors.js';
import type { Container, Pod, Secret } from './objects.js';
import { QUANTITY_FORMAT_MESSAGE, parseQuantity } from './quantity.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const quote = (value: unknown) => JSON.stringify(value);

function invalidValue(field: string, value: unknown, why: string): FieldProblem {
  return { field, reason: 'FieldValueInvalid', message: `Invalid value: ${quote(value)}: ${why}` };
}

function required(field: string, detail?: string): FieldProblem {
  return { field, reason: 'FieldValueRequired', message: detail ? `Required value: ${detail}` : 'Required value' };
}

function notSupported(field: string, value: unknown, supported: string[]): FieldProblem {
  return {
    field,
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${quote(value)}: supported values: ${supported.map((s) => quote(s)).join(', ')}`,
  };
}

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

function checkContainer(container: Partial<Container>, index: number, seen: Set<string>): FieldProblem[] {
  const at = `spec.containers[${index}]`;
  const problems: FieldProblem[] = [];
  if (typeof container.name !== 'string' || container.name === '') {
    problems.push(required(`${at}.name`));
  } else {
    problems.push(...checkDnsLabel(`${at}.name`, container.name));
    if (seen.has(container.name)) problems.push({ field: `${at}.name`, reason: 'FieldValueDuplicate', message: `Duplicate value: ${quote(container.name)}` });
    seen.add(container.name);
  }
  if (typeof container.image !== 'string' || container.image.trim() === '') problems.push(required(`${at}.image`));
  const policy = container.imagePullPolicy;
  if (policy !== undefined && !['Always', 'IfNotPresent', 'Never'].includes(policy)) {
    problems.push(notSupported(`${at}.imagePullPolicy`, policy, ['Always', 'IfNotPresent', 'Never']));
  }
  for (const group of ['requests', 'limits'] as const) {
    for (const [resource, quantity] of Object.entries(container.resources?.[group] ?? {})) {
      if (typeof quantity !== 'string' || parseQuantity(quantity) === undefined) {
        problems.push(invalidValue(`${at}.resources.${group}[${resource}]`, quantity, QUANTITY_FORMAT_MESSAGE));
      }
    }
  }
  (container.env ?? []).forEach((env, i) => {
    if (typeof env?.name !== 'string' || env.name === '') problems.push(required(`${at}.env[${i}].name`));
    const ref = env?.valueFrom?.secretKeyRef;
    if (ref !== undefined && (typeof ref.key !== 'string' || ref.key === '')) {
      problems.push(required(`${at}.env[${i}].valueFrom.secretKeyRef.key`));
    }
  });
  return problems;
}

export function validatePod(pod: Pod): FieldProblem[] {
  const problems = checkObjectName(pod.metadata.name, 'subdomain');
  const spec = pod.spec as Partial<Pod['spec']> | undefined;
  const containers = spec?.containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    problems.push(required('spec.containers'));
  } else {
    const seen = new Set<string>();
    containers.forEach((c, i) => problems.push(...checkContainer(c ?? {}, i, seen)));
  }
  const restart = spec?.restartPolicy;
  if (restart !== undefined && !['Always', 'OnFailure', 'Never'].includes(restart)) {
    problems.push(notSupported('spec.restartPolicy', restart, ['Always', 'Never', 'OnFailure']));
  }
  const deadline = spec?.activeDeadlineSeconds;
  if (deadline !== undefined && !(Number.isInteger(deadline) && deadline >= 1)) {
    problems.push(invalidValue('spec.activeDeadlineSeconds', deadline, 'must be between 1 and 2147483647, inclusive'));
  }
  return problems;
}

export function validateSecret(secret: Secret): FieldProblem[] {
  const problems = checkObjectName(secret.metadata.name, 'subdomain');
  for (const key of Object.keys({ ...secret.data, ...secret.stringData })) {
    if (!/^[-._a-zA-Z0-9]+$/.test(key)) {
      problems.push(invalidValue(`data[${key}]`, key, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"));
    }
  }
  return problems;
}
