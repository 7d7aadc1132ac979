/** Create-time validation of pods and secrets, with the apiserver's field paths and wording (tests and users match on them). */
import type { FieldProblem } from './api-errors.js';
import { duplicate, forbidden, invalidValue, notSupported, required } from './field-errors.js';
import { checkDnsLabel, checkObjectName } from './name-validation.js';
import type { Container, NodeSelectorRequirement, Pod, Secret } from './objects.js';
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
  // A container's own restartPolicy makes an init container a sidecar (KEP-753); nothing else.
  const restart = container.restartPolicy;
  if (restart !== undefined && at.startsWith('spec.containers')) {
    problems.push(forbidden(`${at}.restartPolicy`, 'may not be set for non-init containers'));
  } else if (restart !== undefined && restart !== 'Always') {
    problems.push(notSupported(`${at}.restartPolicy`, restart, ['Always']));
  }
  return problems;
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
  if (spec !== undefined) problems.push(...checkNodeAffinity(pod));
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
