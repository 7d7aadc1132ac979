/**
 * Pod Security admission, as the apiserver enforces it on a namespace labelled
 * `pod-security.kubernetes.io/enforce`: a pod that violates the level is refused with 403 and the
 * checks it failed, in the apiserver's words, so a local run against a restricted namespace fails
 * as it would on EKS. The checks are those of k8s.io/pod-security-admission at v1.33 (the version
 * this apiserver reports), in its order and wording: at `baseline` AppArmor, added capabilities,
 * host namespaces, hostPath volumes, host ports, privileged, /proc mount, SELinux, seccomp,
 * sysctls and hostProcess; `restricted` adds escalation, capabilities (drop ALL, add nothing but
 * NET_BIND_SERVICE), volume types, runAsNonRoot, runAsUser=0 and a required seccomp profile, its
 * capability, volume and seccomp checks replacing baseline's. Not made: an `enforce-version` older
 * than v1.33 is judged by v1.33's rules, and the deprecated seccomp annotations (before v1.19).
 */
import type { Container, KubeObject, Pod, Volume } from './objects.js';

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
/** Namespaced and isolated from other pods: the sysctls `baseline` allows (v1.32's list). */
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes',
  'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem',
]);
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
const RESTRICTED_VOLUME_TYPES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'];
/** The volume types the apiserver names when it refuses one, in the order it tries them; any other is "unknown". */
const NAMED_VOLUME_TYPES = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'fc',
  'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'storageos',
];
const APPARMOR_ANNOTATION = 'container.apparmor.security.beta.kubernetes.io/';

interface SecurityContext {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type?: string };
  appArmorProfile?: { type?: string };
  seLinuxOptions?: { type?: string; user?: string; role?: string };
  procMount?: string;
  windowsOptions?: { hostProcess?: boolean };
  sysctls?: { name: string }[];
}

interface Subject {
  pod: Pod;
  /** Init containers, then containers, then ephemeral containers: the order the apiserver names them in. */
  containers: Container[];
  podContext: SecurityContext;
  windows: boolean;
}

/** One check: the refusal `reason (detail)`, or undefined when the pod passes it. */
type Check = (subject: Subject) => string | undefined;

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
  const spec = pod.spec;
  const subject: Subject = {
    pod,
    containers: [...(spec.initContainers ?? []), ...spec.containers, ...((spec.ephemeralContainers as Container[] | undefined) ?? [])],
    podContext: (spec.securityContext ?? {}) as SecurityContext,
    windows: (spec.os as { name?: string } | undefined)?.name === 'windows',
  };
  const checks = level === 'baseline' ? BASELINE_CHECKS : RESTRICTED_CHECKS;
  return checks.map((check) => check(subject)).filter((problem): problem is string => problem !== undefined);
}

/** Why the apiserver refuses a pod at this level: the end of its 403 `pods "NAME" is forbidden: ...`. */
export function podSecurityRefusal(enforced: { level: PodSecurityLevel; version: string }, violations: string[]): string {
  return `violates PodSecurity "${enforced.level}:${enforced.version}": ${violations.join(', ')}`;
}

const own = (c: Container) => (c.securityContext ?? {}) as SecurityContext;
const validSeccomp = (type: string | undefined) => type === 'RuntimeDefault' || type === 'Localhost';
const validAppArmor = (type: string | undefined) => type === 'RuntimeDefault' || type === 'Localhost';

const appArmorProfile: Check = ({ pod, containers, podContext }) => {
  const values = new Set<string>();
  const setters: string[] = [];
  if (podContext.appArmorProfile && !validAppArmor(podContext.appArmorProfile.type)) {
    setters.push('pod');
    values.add(podContext.appArmorProfile.type ?? '');
  }
  const bad = containers.filter((c) => own(c).appArmorProfile !== undefined && !validAppArmor(own(c).appArmorProfile?.type));
  for (const c of bad) values.add(own(c).appArmorProfile?.type ?? '');
  if (bad.length > 0) setters.push(named(bad));
  const annotations = Object.entries(pod.metadata.annotations ?? {})
    .filter(([key, value]) => key.startsWith(APPARMOR_ANNOTATION) && !(value === '' || value === 'runtime/default' || value.startsWith('localhost/')))
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .sort();
  if (annotations.length > 0) setters.push(plural('annotation', annotations.length));
  if (setters.length === 0) return undefined;
  const listed = [...sorted(values), ...annotations];
  return `forbidden AppArmor profile${listed.length === 1 ? '' : 's'} (${setters.join(' and ')} must not set AppArmor profile type to ${quoted(listed)})`;
};

const capabilitiesBaseline: Check = ({ containers }) => {
  const added = new Set<string>();
  const bad = containers.filter((c) => {
    const extra = (own(c).capabilities?.add ?? []).filter((cap) => !BASELINE_CAPABILITIES.has(cap));
    for (const cap of extra) added.add(cap);
    return extra.length > 0;
  });
  if (bad.length === 0) return undefined;
  return `non-default capabilities (${named(bad)} must not include ${quoted(sorted(added))} in securityContext.capabilities.add)`;
};

const hostNamespaces: Check = ({ pod }) => {
  const shared = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter((key) => pod.spec[key] === true);
  return shared.length > 0 ? `host namespaces (${shared.map((key) => `${key}=true`).join(', ')})` : undefined;
};

const hostPathVolumes: Check = ({ pod }) => {
  const hostPaths = (pod.spec.volumes ?? []).filter((v) => present(v, 'hostPath'));
  return hostPaths.length > 0 ? `hostPath volumes (${plural('volume', hostPaths.length)} ${quoted(hostPaths.map((v) => v.name))})` : undefined;
};

const hostPorts: Check = ({ containers }) => {
  const ports = new Set<string>();
  const bad = containers.filter((c) => {
    const used = ((c.ports as { hostPort?: number }[] | undefined) ?? []).filter((p) => (p.hostPort ?? 0) !== 0);
    for (const p of used) ports.add(String(p.hostPort));
    return used.length > 0;
  });
  if (bad.length === 0) return undefined;
  return `hostPort (${named(bad)} ${bad.length === 1 ? 'uses' : 'use'} ${plural('hostPort', ports.size)} ${sorted(ports).join(', ')})`;
};

const privileged: Check = ({ containers }) => {
  const bad = containers.filter((c) => own(c).privileged === true);
  return bad.length > 0 ? `privileged (${named(bad)} must not set securityContext.privileged=true)` : undefined;
};

const procMount: Check = ({ containers }) => {
  const bad = containers.filter((c) => own(c).procMount !== undefined && own(c).procMount !== 'Default');
  if (bad.length === 0) return undefined;
  return `procMount (${named(bad)} must not set securityContext.procMount to ${quoted(sorted(new Set(bad.map((c) => own(c).procMount!))))})`;
};

const seLinuxOptions: Check = ({ containers, podContext }) => {
  const types = new Set<string>();
  let user = false;
  let role = false;
  const valid = (options: NonNullable<SecurityContext['seLinuxOptions']>) => {
    const type = options.type ?? '';
    if (!SELINUX_TYPES.has(type)) types.add(type);
    if (options.user) user = true;
    if (options.role) role = true;
    return SELINUX_TYPES.has(type) && !options.user && !options.role;
  };
  const setters: string[] = [];
  if (podContext.seLinuxOptions && !valid(podContext.seLinuxOptions)) setters.push('pod');
  const bad = containers.filter((c) => own(c).seLinuxOptions !== undefined && !valid(own(c).seLinuxOptions!));
  if (bad.length > 0) setters.push(named(bad));
  if (setters.length === 0) return undefined;
  const what = [
    ...(types.size > 0 ? [`${plural('type', types.size)} ${quoted(sorted(types))}`] : []),
    ...(user ? ['user may not be set'] : []),
    ...(role ? ['role may not be set'] : []),
  ];
  return `seLinuxOptions (${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${what.join('; ')})`;
};

/** The setters that name a seccomp profile other than RuntimeDefault or Localhost, and those profiles. */
function unconfined({ containers, podContext }: Subject): { setters: string[]; values: string[] } {
  const values = new Set<string>();
  const setters: string[] = [];
  if (podContext.seccompProfile && !validSeccomp(podContext.seccompProfile.type)) {
    setters.push('pod');
    values.add(podContext.seccompProfile.type ?? '');
  }
  const bad = containers.filter((c) => own(c).seccompProfile !== undefined && !validSeccomp(own(c).seccompProfile?.type));
  for (const c of bad) values.add(own(c).seccompProfile?.type ?? '');
  if (bad.length > 0) setters.push(named(bad));
  return { setters, values: sorted(values) };
}

const seccompProfileBaseline: Check = (subject) => {
  const { setters, values } = unconfined(subject);
  return setters.length > 0 ? `seccompProfile (${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${quoted(values)})` : undefined;
};

const sysctls: Check = ({ podContext }) => {
  const forbidden = (podContext.sysctls ?? []).map((s) => s.name).filter((name) => !SAFE_SYSCTLS.has(name));
  return forbidden.length > 0 ? `forbidden sysctls (${forbidden.join(', ')})` : undefined;
};

const windowsHostProcess: Check = ({ containers, podContext }) => {
  const setters = podContext.windowsOptions?.hostProcess === true ? ['pod'] : [];
  const bad = containers.filter((c) => own(c).windowsOptions?.hostProcess === true);
  if (bad.length > 0) setters.push(named(bad));
  return setters.length > 0 ? `hostProcess (${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true)` : undefined;
};

const allowPrivilegeEscalation: Check = ({ containers, windows }) => {
  const bad = windows ? [] : containers.filter((c) => own(c).allowPrivilegeEscalation !== false);
  return bad.length > 0 ? `allowPrivilegeEscalation != false (${named(bad)} must set securityContext.allowPrivilegeEscalation=false)` : undefined;
};

const capabilitiesRestricted: Check = ({ containers, windows }) => {
  if (windows) return undefined;
  const keeping = containers.filter((c) => !(own(c).capabilities?.drop ?? []).includes('ALL'));
  const added = new Set<string>();
  const adding = containers.filter((c) => {
    const extra = (own(c).capabilities?.add ?? []).filter((cap) => cap !== 'NET_BIND_SERVICE');
    for (const cap of extra) added.add(cap);
    return extra.length > 0;
  });
  const details = [
    ...(keeping.length > 0 ? [`${named(keeping)} must set securityContext.capabilities.drop=["ALL"]`] : []),
    ...(adding.length > 0 ? [`${named(adding)} must not include ${quoted(sorted(added))} in securityContext.capabilities.add`] : []),
  ];
  return details.length > 0 ? `unrestricted capabilities (${details.join('; ')})` : undefined;
};

const restrictedVolumes: Check = ({ pod }) => {
  const bad = (pod.spec.volumes ?? []).filter((v) => !RESTRICTED_VOLUME_TYPES.some((type) => present(v, type)));
  if (bad.length === 0) return undefined;
  const types = sorted(new Set(bad.map((v) => NAMED_VOLUME_TYPES.find((type) => present(v, type)) ?? 'unknown')));
  return `restricted volume types (${plural('volume', bad.length)} ${quoted(bad.map((v) => v.name))} ${bad.length === 1 ? 'uses' : 'use'} ${plural('restricted volume type', types.length)} ${quoted(types)})`;
};

const runAsNonRoot: Check = ({ containers, podContext }) => {
  const setters = podContext.runAsNonRoot === false ? ['pod'] : [];
  const explicit = containers.filter((c) => own(c).runAsNonRoot === false);
  if (explicit.length > 0) setters.push(named(explicit));
  if (setters.length > 0) return `runAsNonRoot != true (${setters.join(' and ')} must not set securityContext.runAsNonRoot=false)`;
  const implicit = podContext.runAsNonRoot === true ? [] : containers.filter((c) => own(c).runAsNonRoot === undefined);
  return implicit.length > 0 ? `runAsNonRoot != true (pod or ${named(implicit)} must set securityContext.runAsNonRoot=true)` : undefined;
};

const runAsUser: Check = ({ containers, podContext }) => {
  const setters = podContext.runAsUser === 0 ? ['pod'] : [];
  const bad = containers.filter((c) => own(c).runAsUser === 0);
  if (bad.length > 0) setters.push(named(bad));
  return setters.length > 0 ? `runAsUser=0 (${setters.join(' and ')} must not set runAsUser=0)` : undefined;
};

const seccompProfileRestricted: Check = (subject) => {
  if (subject.windows) return undefined;
  const explicit = seccompProfileBaseline(subject);
  if (explicit) return explicit;
  const podSet = validSeccomp(subject.podContext.seccompProfile?.type);
  const implicit = podSet ? [] : subject.containers.filter((c) => own(c).seccompProfile === undefined);
  return implicit.length > 0 ? `seccompProfile (pod or ${named(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")` : undefined;
};

// The apiserver's order: baseline checks by ID, then restricted ones; at restricted, a check that
// tightens a baseline one (capabilities, volumes, seccomp) runs in its place.
const BASELINE_CHECKS: readonly Check[] = [
  appArmorProfile, capabilitiesBaseline, hostNamespaces, hostPathVolumes, hostPorts, privileged, procMount, seLinuxOptions, seccompProfileBaseline, sysctls, windowsHostProcess,
];
const REPLACED_AT_RESTRICTED = new Set<Check>([capabilitiesBaseline, hostPathVolumes, seccompProfileBaseline]);
const RESTRICTED_CHECKS: readonly Check[] = [
  ...BASELINE_CHECKS.filter((check) => !REPLACED_AT_RESTRICTED.has(check)),
  allowPrivilegeEscalation, capabilitiesRestricted, restrictedVolumes, runAsNonRoot, runAsUser, seccompProfileRestricted,
];

function present(volume: Volume, type: string): boolean {
  return volume[type] !== undefined && volume[type] !== null;
}

function named(containers: Container[]): string {
  return `${plural('container', containers.length)} ${quoted(containers.map((c) => c.name))}`;
}

function plural(word: string, count: number): string {
  return count === 1 ? word : `${word}s`;
}

function sorted(items: Set<string>): string[] {
  return [...items].sort();
}

function quoted(items: string[]): string {
  return items.map((item) => `"${item}"`).join(', ');
}
