import { describe, expect, it } from '@jest/globals';
import { stepPodManifest } from '../../kube/index.js';
import type { Step } from '../../pipeline/types.js';
import type { Pod } from './objects.js';
import { enforcedLevel, podSecurityRefusal, podSecurityViolations } from './pod-security.js';
import { parseImageReference } from '../../pipeline/index.js';

const step: Step = { name: 'test', image: 'node:22-alpine', imageRef: parseImageReference('node:22-alpine'), commands: ['npm test'], env: {}, pull: 'if-not-present', timeoutSeconds: 600, secrets: [] };
const runnerPod = (runAsUser?: number) =>
  stepPodManifest({ buildId: 'b-1', step, namespace: 'ci', workspace: { ephemeral: true }, checkout: { ...step, name: 'clone' }, ...(runAsUser ? { runAsUser } : {}) }) as unknown as Pod;
const bare = (): Pod => ({ metadata: { name: 'p' }, spec: { containers: [{ name: 'step', image: 'alpine' }, { name: 'db', image: 'postgres' }] } });

describe('Pod Security admission', () => {
  it('admits the runner\'s step pods at baseline, and at restricted once the deployment names a user', () => {
    expect(podSecurityViolations(runnerPod(), 'baseline')).toEqual([]);
    expect(podSecurityViolations(runnerPod(1000), 'restricted')).toEqual([]);
  });

  it('refuses them at restricted without a user, naming both containers as the apiserver does', () => {
    expect(podSecurityViolations(runnerPod(), 'restricted')).toEqual([
      'runAsNonRoot != true (pod or containers "clone", "step" must set securityContext.runAsNonRoot=true)',
    ]);
  });

  it.each<[string, (pod: Pod) => void, 'baseline' | 'restricted', string]>([
    ['privileged', (p) => (p.spec.containers[0]!.securityContext = { privileged: true }), 'baseline', 'privileged (container "step" must not set securityContext.privileged=true)'],
    ['hostPath', (p) => (p.spec.volumes = [{ name: 'sock', hostPath: { path: '/var/run/docker.sock' } }]), 'baseline', 'hostPath volumes (volume "sock")'],
    ['added capability', (p) => (p.spec.containers[1]!.securityContext = { capabilities: { add: ['SYS_ADMIN'] } }), 'baseline', 'non-default capabilities (container "db" must not include "SYS_ADMIN" in securityContext.capabilities.add)'],
    ['escalation', () => {}, 'restricted', 'allowPrivilegeEscalation != false (containers "step", "db" must set securityContext.allowPrivilegeEscalation=false)'],
    ['capabilities', () => {}, 'restricted', 'unrestricted capabilities (containers "step", "db" must set securityContext.capabilities.drop=["ALL"])'],
    ['seccomp', () => {}, 'restricted', 'seccompProfile (pod or containers "step", "db" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'],
    ['root user', (p) => (p.spec.securityContext = { runAsNonRoot: true, runAsUser: 0 }), 'restricted', 'runAsUser=0 (pod must not set runAsUser=0)'],
    ['root user twice', (p) => { p.spec.securityContext = { runAsUser: 0 }; p.spec.containers[1]!.securityContext = { runAsUser: 0 }; }, 'restricted', 'runAsUser=0 (pod and container "db" must not set runAsUser=0)'],
    ['root allowed', (p) => (p.spec.securityContext = { runAsNonRoot: false }), 'restricted', 'runAsNonRoot != true (pod must not set securityContext.runAsNonRoot=false)'],
    ['added capability, restricted', (p) => (p.spec.containers[1]!.securityContext = { capabilities: { drop: ['ALL'], add: ['NET_RAW', 'CHOWN'] } }), 'restricted', 'unrestricted capabilities (container "step" must set securityContext.capabilities.drop=["ALL"]; container "db" must not include "CHOWN", "NET_RAW" in securityContext.capabilities.add)'],
    ['host ports', (p) => (p.spec.containers[1]!.ports = [{ containerPort: 5432, hostPort: 8080 }, { containerPort: 80, hostPort: 80 }]), 'baseline', 'hostPort (container "db" uses hostPorts 80, 8080)'],
    ['sysctls', (p) => (p.spec.securityContext = { sysctls: [{ name: 'net.ipv4.tcp_rmem', value: '1' }, { name: 'kernel.msgmax', value: '1' }, { name: 'net.core.somaxconn', value: '1' }] }), 'baseline', 'forbidden sysctls (kernel.msgmax, net.core.somaxconn)'],
    ['AppArmor', (p) => { p.spec.securityContext = { appArmorProfile: { type: 'Unconfined' } }; p.spec.containers[0]!.securityContext = { appArmorProfile: { type: 'Unconfined' } }; }, 'baseline', 'forbidden AppArmor profile (pod and container "step" must not set AppArmor profile type to "Unconfined")'],
    ['AppArmor annotation', (p) => (p.metadata.annotations = { 'container.apparmor.security.beta.kubernetes.io/db': 'unconfined' }), 'baseline', 'forbidden AppArmor profile (annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/db="unconfined"")'],
    ['SELinux', (p) => (p.spec.containers[0]!.securityContext = { seLinuxOptions: { type: 'spc_t', role: 'system_r' } }), 'baseline', 'seLinuxOptions (container "step" set forbidden securityContext.seLinuxOptions: type "spc_t"; role may not be set)'],
    ['/proc mount', (p) => (p.spec.containers[0]!.securityContext = { procMount: 'Unmasked' }), 'baseline', 'procMount (container "step" must not set securityContext.procMount to "Unmasked")'],
    ['seccomp Unconfined', (p) => (p.spec.securityContext = { seccompProfile: { type: 'Unconfined' } }), 'baseline', 'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")'],
    ['seccomp Unconfined, restricted', (p) => (p.spec.containers[1]!.securityContext = { seccompProfile: { type: 'Unconfined' } }), 'restricted', 'seccompProfile (container "db" must not set securityContext.seccompProfile.type to "Unconfined")'],
    ['hostProcess', (p) => (p.spec.containers[1]!.securityContext = { windowsOptions: { hostProcess: true } }), 'baseline', 'hostProcess (container "db" must not set securityContext.windowsOptions.hostProcess=true)'],
    ['volume type', (p) => (p.spec.volumes = [{ name: 'sock', hostPath: { path: '/var/run/docker.sock' } }, { name: 'data', image: { reference: 'data:1' } }, { name: 'share', nfs: { server: 'x', path: '/' } }]), 'restricted', 'restricted volume types (volumes "sock", "share" use restricted volume types "hostPath", "nfs")'],
  ])('words a violation as the apiserver does: %s', (_what, change, level, words) => {
    const pod = bare();
    change(pod);
    expect(podSecurityViolations(pod, level)).toContain(words);
  });

  it('at restricted, lists the checks in the apiserver\'s order, its capability, volume and seccomp checks in place of baseline\'s', () => {
    const pod = bare();
    pod.spec.hostNetwork = true;
    pod.spec.securityContext = { sysctls: [{ name: 'kernel.msgmax', value: '1' }], seccompProfile: { type: 'Unconfined' } };
    pod.spec.containers[0]!.securityContext = { privileged: true, capabilities: { add: ['SYS_ADMIN'] } };
    pod.spec.volumes = [{ name: 'sock', hostPath: { path: '/var/run/docker.sock' } }];
    expect(podSecurityViolations(pod, 'restricted')).toEqual([
      'host namespaces (hostNetwork=true)',
      'privileged (container "step" must not set securityContext.privileged=true)',
      'forbidden sysctls (kernel.msgmax)',
      'allowPrivilegeEscalation != false (containers "step", "db" must set securityContext.allowPrivilegeEscalation=false)',
      'unrestricted capabilities (containers "step", "db" must set securityContext.capabilities.drop=["ALL"]; container "step" must not include "SYS_ADMIN" in securityContext.capabilities.add)',
      'restricted volume types (volume "sock" uses restricted volume type "hostPath")',
      'runAsNonRoot != true (pod or containers "step", "db" must set securityContext.runAsNonRoot=true)',
      'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")',
    ]);
    expect(podSecurityViolations(pod, 'baseline')).toEqual([
      'non-default capabilities (container "step" must not include "SYS_ADMIN" in securityContext.capabilities.add)',
      'host namespaces (hostNetwork=true)',
      'hostPath volumes (volume "sock")',
      'privileged (container "step" must not set securityContext.privileged=true)',
      'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")',
      'forbidden sysctls (kernel.msgmax)',
    ]);
  });

  it('leaves escalation, capabilities and seccomp to Windows pods at restricted, as the apiserver does', () => {
    const pod = bare();
    pod.spec.os = { name: 'windows' };
    expect(podSecurityViolations(pod, 'restricted')).toEqual(['runAsNonRoot != true (pod or containers "step", "db" must set securityContext.runAsNonRoot=true)']);
  });

  it('is enforced only by a namespace labelled with a level, at the version it names', () => {
    const ns = (labels: Record<string, string>) => ({ metadata: { name: 'ci', labels } });
    expect(enforcedLevel(ns({}))).toBeUndefined();
    expect(enforcedLevel(ns({ 'pod-security.kubernetes.io/enforce': 'privileged' }))).toBeUndefined();
    expect(enforcedLevel(ns({ 'pod-security.kubernetes.io/enforce': 'restricted' }))).toEqual({ level: 'restricted', version: 'latest' });
    const pinned = enforcedLevel(ns({ 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.30' }));
    expect(podSecurityRefusal(pinned!, ['x'])).toBe('violates PodSecurity "baseline:v1.30": x');
  });
});
