/**
 * Pod Security admission, as the apiserver enforces it on a namespace labelled
 * `pod-security.kubernetes.io/enforce`: a pod that violates the level is refused with 403 and the
 * checks it failed, in the apiserver's words, so a local run against a restricted namespace fails
 * as it would on EKS. The checks a step pod can meet (privileged, host namespaces and paths, added
 * capabilities for `baseline`; escalation, dropped capabilities, non-root, seccomp and volume types
 * for `restricted`); others of the standard (AppArmor, SELinux, sysctls, host ports) are not made.
 */
import type { Container, KubeObject, Pod } from './objects.js';

export const PodSecurityLabels = {
  enforce: 'pod-security.kubernetes.io/enforce',
  enforceVersion: 'pod-security.kubernetes.io/enforce-version',
} as const;

export type PodSecurityLevel = 'privileged' | 'baseline' | 'restricted';

const LEVELS: readonly string[] = ['privileged', 'baseline', 'restricted'];

/** The capabilities `baseline` lets a container add (the container runtime's defaults). */
const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT',
]);
const RESTRICTED_VOLUME_TYPES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);

interface SecurityContext {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type?: string };
}

/** The namespace's enforced level and its version label, or undefined when nothing is enforced. */
export function enforcedLevel(namespace: KubeObject | undefined): { level: PodSecurityLevel; version: string } | undefined {
  const labels = namespace?.metadata.labels ?? {};
  const level = labels[PodSecurityLabels.enforce];
  if (level === undefined || !LEVELS.includes(level) || level === 'privileged') return undefined;
  return { level: level as PodSecurityLevel, version: labels[PodSecurityLabels.enforceVersion] || 'latest' };
}

/**
 * The checks `pod` fails at `level`, each as the apiserver words it, e.g.
 * `runAsNonRoot != true (pod or container "step" must set securityContext.runAsNonRoot=true)`.
 */
export function podSecurityViolations(pod: Pod, level: PodSecurityLevel): string[] {
  if (level === 'privileged') return [];
  const containers = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  const own = (c: Container) => (c.securityContext ?? {}) as SecurityContext;
  const podContext = (pod.spec.securityContext ?? {}) as SecurityContext & { runAsUser?: number };
  const problems: string[] = [];
  const spec = pod.spec as Pod['spec'] & { hostNetwork?: boolean; hostPID?: boolean; hostIPC?: boolean };

  const hostNamespaces = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter((key) => spec[key] === true);
  if (hostNamespaces.length > 0) problems.push(`host namespaces (${hostNamespaces.map((k) => `${k}=true`).join(', ')})`);
  const privileged = containers.filter((c) => own(c).privileged === true);
  if (privileged.length > 0) problems.push(`privileged (${named(privileged)} must not set securityContext.privileged=true)`);
  const added = containers.filter((c) => (own(c).capabilities?.add ?? []).some((cap) => !BASELINE_CAPABILITIES.has(cap)));
  if (added.length > 0) problems.push(`non-default capabilities (${named(added)} must not include ${quotedList(added.flatMap((c) => own(c).capabilities?.add ?? []).filter((cap) => !BASELINE_CAPABILITIES.has(cap)))} in securityContext.capabilities.add)`);
  const hostPaths = (pod.spec.volumes ?? []).filter((v) => 'hostPath' in v);
  if (hostPaths.length > 0) problems.push(`hostPath volumes (${volumesNamed(hostPaths.map((v) => v.name))})`);
  if (level === 'baseline') return problems;

  const escalating = containers.filter((c) => own(c).allowPrivilegeEscalation !== false);
  if (escalating.length > 0) problems.push(`allowPrivilegeEscalation != false (${named(escalating)} must set securityContext.allowPrivilegeEscalation=false)`);
  const capable = containers.filter((c) => !(own(c).capabilities?.drop ?? []).includes('ALL'));
  if (capable.length > 0) problems.push(`unrestricted capabilities (${named(capable)} must set securityContext.capabilities.drop=["ALL"])`);
  const restrictedVolumes = (pod.spec.volumes ?? []).filter((v) => !Object.keys(v).some((key) => RESTRICTED_VOLUME_TYPES.has(key)));
  if (restrictedVolumes.length > 0) {
    const types = restrictedVolumes.map((v) => Object.keys(v).find((key) => key !== 'name') ?? 'unknown');
    problems.push(`restricted volume types (${volumesNamed(restrictedVolumes.map((v) => v.name))} ${restrictedVolumes.length === 1 ? 'uses' : 'use'} restricted volume type${types.length === 1 ? '' : 's'} ${quotedList(types)})`);
  }
  const rootAllowed = containers.filter((c) => (own(c).runAsNonRoot ?? podContext.runAsNonRoot) !== true);
  if (rootAllowed.length > 0) {
    const who = podContext.runAsNonRoot === false ? 'pod' : `pod or ${named(rootAllowed)}`;
    problems.push(`runAsNonRoot != true (${who} must ${podContext.runAsNonRoot === false ? 'not set securityContext.runAsNonRoot=false' : 'set securityContext.runAsNonRoot=true'})`);
  }
  if (podContext.runAsUser === 0) problems.push('runAsUser=0 (pod must not set runAsUser=0)');
  const rootUsers = containers.filter((c) => own(c).runAsUser === 0);
  if (rootUsers.length > 0) problems.push(`runAsUser=0 (${named(rootUsers)} must not set runAsUser=0)`);
  const unconfined = containers.filter((c) => !allowedSeccomp(own(c).seccompProfile?.type ?? podContext.seccompProfile?.type));
  if (unconfined.length > 0) problems.push(`seccompProfile (pod or ${named(unconfined)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`);
  return problems;
}

/** Why the apiserver refuses a pod at this level: the end of its 403 `pods "NAME" is forbidden: ...`. */
export function podSecurityRefusal(enforced: { level: PodSecurityLevel; version: string }, violations: string[]): string {
  return `violates PodSecurity "${enforced.level}:${enforced.version}": ${violations.join(', ')}`;
}

function allowedSeccomp(type: string | undefined): boolean {
  return type === 'RuntimeDefault' || type === 'Localhost';
}

function named(containers: Container[]): string {
  return containers.length === 1 ? `container "${containers[0]!.name}"` : `containers ${quotedList(containers.map((c) => c.name))}`;
}

function volumesNamed(names: string[]): string {
  return names.length === 1 ? `volume "${names[0]}"` : `volumes ${quotedList(names)}`;
}

function quotedList(items: string[]): string {
  return [...new Set(items)].map((item) => `"${item}"`).join(', ');
}
