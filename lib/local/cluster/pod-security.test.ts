import { describe, expect, it } from '@jest/globals';
import { stepPodManifest } from '../../kube/index.js';
import type { Step } from '../../pipeline/types.js';
import type { Pod } from './objects.js';
import { enforcedLevel, podSecurityRefusal, podSecurityViolations } from './pod-security.js';

const step: Step = { name: 'test', image: 'node:22-alpine', commands: ['npm test'], env: {}, pull: 'if-not-present', timeoutSeconds: 600, secrets: [] };
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
  ])('words a violation as the apiserver does: %s', (_what, change, level, words) => {
    const pod = bare();
    change(pod);
    expect(podSecurityViolations(pod, level)).toContain(words);
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
