/** Create-time validation of pods and secrets, with the apiserver's field paths and wording (tests and users match on them). */
import type { FieldProblem } from './api-errors.js';
import { duplicate, forbidden, invalidValue, notSupported, required } from './field-errors.js';
import { isIP } from 'node:net';
import { checkDnsLabel, checkDnsSubdomain, checkObjectName } from './name-validation.js';
import type { Container, NodeSelectorRequirement, Pod, Secret } from './objects.js';
import type { Probe } from './startup-probe.js';
import { QUANTITY_FORMAT_MESSAGE, parseQuantity } from './quantity.js';
import { checkVolumeMounts, checkVolumes } from './volume-validation.js';

/** `at`: spec.containers[i] or spec.initContainers[i]; names are unique across both lists. */
function checkContainer(container: Partial<Container>, at: string, seen: Set<string>, volumes: ReadonlySet<string>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (typeof container.name !== 'string' || container.name === '') {
    problems.push(required(`${at}.name`));
  } else {
    problems.push(...checkDnsLabel(`${at}.name`, container.name));
    if (seen.has(container.name)) problems.push(duplicate(`${at}.name`, container.name));
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
  problems.push(...checkVolumeMounts(container, at, volumes));
  if (container.startupProbe !== undefined) problems.push(...checkStartupProbe(container.startupProbe as Probe, `${at}.startupProbe`));
  // A container's own restartPolicy makes an init container a sidecar (KEP-753); nothing else.
  const restart = container.restartPolicy;
  if (restart !== undefined && at.startsWith('spec.containers')) {
    problems.push(forbidden(`${at}.restartPolicy`, 'may not be set for non-init containers'));
  } else if (restart !== undefined && restart !== 'Always') {
    problems.push(notSupported(`${at}.restartPolicy`, restart, ['Always']));
  }
  return problems;
}

const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'] as const;

/**
 * validateProbe with the apiserver's wording; the embedded kubelet runs tcpSocket only
 * (startup-probe.ts), so another handler is refused rather than never run.
 */
function checkStartupProbe(probe: Probe, at: string): FieldProblem[] {
  const handlers = PROBE_HANDLERS.filter((handler) => probe[handler] !== undefined);
  if (handlers.length === 0) return [required(at, 'must specify a handler type')];
  if (handlers.length > 1) return [forbidden(`${at}.${handlers[1]}`, 'may not specify more than 1 handler type')];
  const problems: FieldProblem[] = [];
  const [handler] = handlers;
  if (handler !== 'tcpSocket') problems.push(notSupported(at, handler, ['tcpSocket']));
  const port = probe.tcpSocket?.port;
  if (handler === 'tcpSocket' && typeof port === 'number' && !(Number.isInteger(port) && port >= 1 && port <= 65535)) {
    problems.push(invalidValue(`${at}.tcpSocket.port`, port, 'must be between 1 and 65535, inclusive'));
  }
  if (probe.successThreshold !== undefined && probe.successThreshold !== 1) problems.push(invalidValue(`${at}.successThreshold`, probe.successThreshold, 'must be 1'));
  for (const field of ['periodSeconds', 'timeoutSeconds', 'failureThreshold'] as const) {
    const value = probe[field];
    if (value !== undefined && !(Number.isInteger(value) && value >= 1)) problems.push(invalidValue(`${at}.${field}`, value, 'must be greater than or equal to 1'));
  }
  return problems;
}

/** hostAliases: each an IP and hostnames that are DNS subdomains (the kubelet writes them to /etc/hosts). */
function checkHostAliases(aliases: unknown): FieldProblem[] {
  if (!Array.isArray(aliases)) return [];
  return aliases.flatMap((alias: { ip?: unknown; hostnames?: unknown }, i) => {
    const at = `spec.hostAliases[${i}]`;
    const problems: FieldProblem[] = [];
    if (typeof alias?.ip !== 'string' || isIP(alias.ip) === 0) problems.push(invalidValue(`${at}.ip`, alias?.ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    (Array.isArray(alias?.hostnames) ? alias.hostnames : []).forEach((name: unknown, j: number) => problems.push(...checkDnsSubdomain(`${at}.hostnames[${j}]`, String(name))));
    return problems;
  });
}

/** ValidateNodeSelectorRequirement: the values each operator needs. */
function checkNodeRequirement(requirement: Partial<NodeSelectorRequirement>, at: string): FieldProblem[] {
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
    case 'NotIn':
      return values.length === 0 ? [required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'")] : [];
    case 'Exists':
    case 'DoesNotExist':
      return values.length > 0 ? [forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")] : [];
    case 'Gt':
    case 'Lt':
      return values.length !== 1 ? [required(`${at}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'")] : [];
    default:
      return [invalidValue(`${at}.operator`, requirement.operator, 'not a valid selector operator')];
  }
}

function checkNodeAffinity(pod: Pod): FieldProblem[] {
  const selector = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (selector === undefined) return [];
  const at = 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms';
  const terms = selector.nodeSelectorTerms ?? [];
  if (terms.length === 0) return [required(at, 'must have at least one node selector term')];
  return terms.flatMap((term, i) =>
    (term?.matchExpressions ?? []).flatMap((requirement, j) => checkNodeRequirement(requirement ?? {}, `${at}[${i}].matchExpressions[${j}]`)),
  );
}

export function validatePod(pod: Pod): FieldProblem[] {
  const problems = checkObjectName(pod.metadata.name, 'subdomain');
  const spec = pod.spec as Partial<Pod['spec']> | undefined;
  const volumes = checkVolumes(spec?.volumes ?? []);
  problems.push(...volumes.problems);
  const seen = new Set<string>();
  const initContainers = spec?.initContainers ?? [];
  initContainers.forEach((c, i) => problems.push(...checkContainer(c ?? {}, `spec.initContainers[${i}]`, seen, volumes.names)));
  const containers = spec?.containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    problems.push(required('spec.containers'));
  } else {
    containers.forEach((c, i) => problems.push(...checkContainer(c ?? {}, `spec.containers[${i}]`, seen, volumes.names)));
  }
  // The embedded kubelet restarts only sidecars: a pod asking for restarts is refused rather than
  // run otherwise than it says (`kubectl run` asks for Always unless given --restart=Never).
  const restart = spec?.restartPolicy;
  if (restart !== undefined && restart !== 'Never') {
    problems.push(notSupported('spec.restartPolicy', restart, ['Never']));
  }
  const deadline = spec?.activeDeadlineSeconds;
  if (deadline !== undefined && !(Number.isInteger(deadline) && deadline >= 1)) {
    problems.push(invalidValue('spec.activeDeadlineSeconds', deadline, 'must be between 1 and 2147483647, inclusive'));
  }
  if (spec !== undefined) problems.push(...checkNodeAffinity(pod), ...checkHostAliases(spec.hostAliases));
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
