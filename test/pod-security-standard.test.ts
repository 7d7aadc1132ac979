/**
 * The embedded cluster's Pod Security admission (lib/emulators/kubernetes/pod-security.ts) held to the
 * Pod Security Standards as the checker in fixtures/pod-security-standard.ts reads them: for any
 * pod, at baseline and at restricted, it refuses exactly the pods the standard refuses, and its
 * refusal names exactly the controls the pod breaks. The pods are generated from the fields the
 * standard restricts, mostly close to a pod that meets it, so that both answers are common.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { V1Container, V1Pod, V1PodSecurityContext, V1SecurityContext, V1Volume } from '@kubernetes/client-node';
import type { Pod } from '../lib/emulators/kubernetes/objects.js';
import { podSecurityViolations } from '../lib/emulators/kubernetes/pod-security.js';
import { podSecurityFindings, type PodSecurityStandardLevel } from './fixtures/pod-security-standard.js';

// The run's seed when one is configured for the whole suite, else a fixed one: a failure names it.
const SEED = fc.readConfigureGlobal().seed ?? 20261201;
const RUNS = 1000;

/** Each apiserver reason, at each level, as the control of the standard it enforces. */
function controlOf(violation: string, level: PodSecurityStandardLevel): string {
  const reason = violation.slice(0, violation.indexOf(' ('));
  const controls: Record<string, string> = {
    'host namespaces': 'Host Namespaces',
    privileged: 'Privileged Containers',
    'non-default capabilities': 'Capabilities (baseline)',
    'hostPath volumes': 'HostPath Volumes',
    hostPort: 'Host Ports',
    'forbidden AppArmor profile': 'AppArmor',
    'forbidden AppArmor profiles': 'AppArmor',
    seLinuxOptions: 'SELinux',
    procMount: '/proc Mount Type',
    seccompProfile: level === 'baseline' ? 'Seccomp (baseline)' : 'Seccomp',
    'forbidden sysctls': 'Sysctls',
    hostProcess: 'HostProcess',
    'allowPrivilegeEscalation != false': 'Privilege Escalation',
    'unrestricted capabilities': 'Capabilities',
    'restricted volume types': 'Volume Types',
    'runAsNonRoot != true': 'Running as Non-root',
    'runAsUser=0': 'Running as Non-root user',
  };
  const control = controls[reason];
  if (control === undefined) throw new Error(`no control of the standard for the apiserver's "${violation}"`);
  return control;
}

/** Per control broken, the containers that break it (none for a pod-level control). */
type Breaches = Record<string, string[]>;

/**
 * What the standard's checker finds, as the apiserver reports it: at restricted, the tighter
 * capabilities, volume types and seccomp controls stand for their baseline counterparts (whatever
 * breaks those breaks these), so each is one refusal there.
 */
function breachesFound(pod: V1Pod, level: PodSecurityStandardLevel): Breaches {
  const replaced = new Set(level === 'restricted' ? ['Capabilities (baseline)', 'HostPath Volumes', 'Seccomp (baseline)'] : []);
  const breaches: Breaches = {};
  for (const { control, where } of podSecurityFindings(pod, level)) {
    if (replaced.has(control)) continue;
    const container = /^(?:init|ephemeral)?[cC]ontainers\[([^\]]+)\]/.exec(where)?.[1];
    breaches[control] = [...(breaches[control] ?? []), ...(container ? [container] : [])];
  }
  return tidy(breaches);
}

/** The controls of the apiserver's refusal, each with the containers its words name. */
function breachesRefused(pod: V1Pod, level: PodSecurityStandardLevel): Breaches {
  const breaches: Breaches = {};
  for (const violation of podSecurityViolations(pod as unknown as Pod, level)) {
    const control = controlOf(violation, level);
    const named = [...violation.matchAll(/containers? ((?:"[^"]*"(?:, )?)+)/g)].flatMap((m) => [...m[1]!.matchAll(/"([^"]*)"/g)].map((q) => q[1]!));
    breaches[control] = [...(breaches[control] ?? []), ...named];
  }
  return tidy(breaches);
}

function tidy(breaches: Breaches): Breaches {
  return Object.fromEntries(Object.entries(breaches).map(([control, containers]) => [control, [...new Set(containers)].sort()]));
}

/**
 * At restricted the apiserver names only the containers that set runAsNonRoot=false or a bad
 * seccomp profile when there are any, leaving those that set nothing for once these are fixed.
 */
const NAMES_SETTERS_FIRST = new Set(['Running as Non-root', 'Seccomp']);

// --- Pods -----------------------------------------------------------------------------------

/** What a container needs to meet restricted, which the generated changes then break or keep. */
const HARDENED: V1SecurityContext = {
  allowPrivilegeEscalation: false,
  runAsNonRoot: true,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};

/** `usual` five times in six: a field every pod sets would make nearly every pod a refused one. */
function rarely<T, U>(arbitrary: fc.Arbitrary<T>, usual: U): fc.Arbitrary<T | U> {
  return fc.oneof({ arbitrary: fc.constant(usual), weight: 5 }, { arbitrary, weight: 1 });
}

const profileType = fc.constantFrom('RuntimeDefault', 'Localhost', 'Unconfined');
const seLinux = fc.record(
  { type: fc.constantFrom('', 'container_t', 'container_engine_t', 'spc_t'), user: fc.constantFrom('', 'system_u'), role: fc.constantFrom('', 'system_r'), level: fc.constant('s0:c1,c2') },
  { requiredKeys: [] },
);

/** One change to a security context, each a field the standard restricts. */
const contextChange: fc.Arbitrary<V1SecurityContext> = fc.oneof(
  fc.record({ privileged: fc.boolean() }),
  fc.record({ allowPrivilegeEscalation: fc.option(fc.boolean(), { nil: undefined }) }),
  fc.record({ runAsNonRoot: fc.option(fc.boolean(), { nil: undefined }) }),
  fc.record({ runAsUser: fc.constantFrom(0, 1000) }),
  fc.record({
    capabilities: fc.record(
      { add: fc.subarray(['NET_BIND_SERVICE', 'CHOWN', 'KILL', 'SYS_ADMIN', 'NET_RAW']), drop: fc.subarray(['ALL', 'NET_RAW', 'CHOWN']) },
      { requiredKeys: [] },
    ),
  }),
  fc.record({ seccompProfile: fc.option(fc.record({ type: profileType }), { nil: undefined }) }),
  fc.record({ appArmorProfile: fc.record({ type: profileType }) }),
  fc.record({ seLinuxOptions: seLinux }),
  fc.record({ procMount: fc.constantFrom('Default', 'Unmasked') }),
  fc.record({ windowsOptions: fc.record({ hostProcess: fc.boolean() }) }),
);

/** Hardened or bare, then up to three changes: most pods are near the line, on either side. */
const containerContext: fc.Arbitrary<V1SecurityContext | undefined> = fc
  .tuple(fc.constantFrom('hardened', 'hardened', 'hardened', 'hardened', 'bare', 'none'), rarely(fc.array(contextChange, { minLength: 1, maxLength: 3 }), []))
  .map(([start, changes]) => (start === 'none' && changes.length === 0 ? undefined : Object.assign({}, start === 'hardened' ? HARDENED : {}, ...changes)));

const podContextChange: fc.Arbitrary<V1PodSecurityContext> = fc.oneof(
  fc.record({ runAsNonRoot: fc.boolean() }),
  fc.record({ runAsUser: fc.constantFrom(0, 1000) }),
  fc.record({ seccompProfile: fc.record({ type: profileType }) }),
  fc.record({ appArmorProfile: fc.record({ type: profileType }) }),
  fc.record({ seLinuxOptions: seLinux }),
  fc.record({ windowsOptions: fc.record({ hostProcess: fc.boolean() }) }),
  fc.record({
    sysctls: fc
      .subarray(['kernel.shm_rmid_forced', 'net.ipv4.tcp_rmem', 'net.ipv4.ip_unprivileged_port_start', 'kernel.msgmax', 'net.core.somaxconn'], { minLength: 1 })
      .map((names) => names.map((name) => ({ name, value: '1' }))),
  }),
);
const podContext: fc.Arbitrary<V1PodSecurityContext | undefined> = rarely(fc.array(podContextChange, { minLength: 1, maxLength: 3 }), [])
  .map((changes) => (changes.length === 0 ? undefined : Object.assign({}, ...changes)));

const ports = rarely(fc.array(fc.record({ containerPort: fc.constantFrom(80, 5432), hostPort: fc.constantFrom(0, 80, 8080, 443) }, { requiredKeys: ['containerPort'] }), { minLength: 1, maxLength: 2 }), []);

const VOLUME_SOURCES: Record<string, object> = {
  emptyDir: {},
  configMap: { name: 'settings' },
  secret: { secretName: 'token' },
  persistentVolumeClaim: { claimName: 'workspace' },
  projected: { sources: [] },
  downwardAPI: { items: [] },
  csi: { driver: 'secrets-store.csi.k8s.io' },
  ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'] } } },
  image: { reference: 'registry.example.com/data:1' },
  hostPath: { path: '/var/run/docker.sock' },
  nfs: { server: 'nfs.example.com', path: '/' },
  gitRepo: { repository: 'https://example.com/repo.git' },
  awsElasticBlockStore: { volumeID: 'vol-1' },
  cephfs: { monitors: ['10.0.0.1'] },
};
const SAFE_SOURCES = Object.keys(VOLUME_SOURCES).slice(0, 9);
const source = fc.oneof({ arbitrary: fc.constantFrom(...SAFE_SOURCES), weight: 4 }, { arbitrary: fc.constantFrom(...Object.keys(VOLUME_SOURCES)), weight: 1 });
const volumes: fc.Arbitrary<V1Volume[]> = fc.uniqueArray(
  fc.record({ name: fc.constantFrom('a', 'b', 'c'), source }),
  { selector: (v) => v.name, maxLength: 3 },
).map((list) => list.map(({ name, source }) => ({ name, [source]: VOLUME_SOURCES[source] }) as V1Volume));

const appArmorAnnotations = (names: string[]) =>
  rarely(
    fc.record({ container: fc.constantFrom(...names), value: fc.constantFrom('runtime/default', 'localhost/k8s-apparmor', 'unconfined', '') })
      .map(({ container, value }): Record<string, string> => ({ [`container.apparmor.security.beta.kubernetes.io/${container}`]: value })),
    undefined,
  );

const podArbitrary: fc.Arbitrary<V1Pod> = fc
  .uniqueArray(fc.constantFrom('step', 'clone', 'db', 'cache', 'proxy'), { minLength: 1, maxLength: 4 })
  .chain((names) =>
    fc.record({
      initCount: fc.integer({ min: 0, max: names.length - 1 }),
      contexts: fc.array(containerContext, { minLength: names.length, maxLength: names.length }),
      ports: fc.array(ports, { minLength: names.length, maxLength: names.length }),
      podContext,
      hostNamespaces: rarely(fc.subarray(['hostNetwork', 'hostPID', 'hostIPC'], { minLength: 1 }), [] as string[]),
      volumes,
      annotations: appArmorAnnotations(names),
    }).map(({ initCount, contexts, ports: portLists, podContext: context, hostNamespaces, volumes: podVolumes, annotations }) => {
      const containers: V1Container[] = names.map((name, i) => ({
        name,
        image: 'alpine:3.20',
        ...(contexts[i] ? { securityContext: contexts[i] } : {}),
        ...(portLists[i]!.length > 0 ? { ports: portLists[i] } : {}),
      }));
      return {
        metadata: { name: 'p', ...(annotations ? { annotations } : {}) },
        spec: {
          ...(initCount > 0 ? { initContainers: containers.slice(0, initCount) } : {}),
          containers: containers.slice(initCount),
          ...(context ? { securityContext: context } : {}),
          ...Object.fromEntries(hostNamespaces.map((key) => [key, true])),
          ...(podVolumes.length > 0 ? { volumes: podVolumes } : {}),
        },
      };
    }),
  );

// --- Properties -----------------------------------------------------------------------------

describe.each<PodSecurityStandardLevel>(['baseline', 'restricted'])('Pod Security admission at %s, against the standard', (level) => {
  it(`refuses exactly the pods the standard refuses, naming the controls they break (fast-check seed ${SEED})`, () => {
    let refused = 0;
    fc.assert(
      fc.property(podArbitrary, (pod) => {
        const found = breachesFound(pod, level);
        const given = breachesRefused(pod, level);
        expect(Object.keys(given).sort()).toEqual(Object.keys(found).sort());
        for (const [control, containers] of Object.entries(given)) {
          if (level === 'restricted' && NAMES_SETTERS_FIRST.has(control)) expect(found[control]).toEqual(expect.arrayContaining(containers));
          else expect({ control, containers }).toEqual({ control, containers: found[control] });
        }
        if (Object.keys(found).length > 0) refused += 1;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Both answers were put to the test, not only one.
    expect(refused).toBeGreaterThan(RUNS / 10);
    expect(refused).toBeLessThan(RUNS - RUNS / 10);
  });
});

describe('the standard\'s checker', () => {
  const hardened = (): V1Pod => ({ metadata: { name: 'p' }, spec: { containers: [{ name: 'step', image: 'alpine', securityContext: { ...HARDENED } }] } });

  it.each<[string, PodSecurityStandardLevel, (pod: V1Pod) => void]>([
    ['Seccomp (baseline)', 'baseline', (p) => (p.spec!.securityContext = { seccompProfile: { type: 'Unconfined' } })],
    ['Seccomp', 'restricted', (p) => (p.spec!.securityContext = { seccompProfile: { type: 'Unconfined' } })],
    ['Running as Non-root', 'restricted', (p) => (p.spec!.securityContext = { runAsNonRoot: false })],
    ['AppArmor', 'baseline', (p) => (p.metadata!.annotations = { 'container.apparmor.security.beta.kubernetes.io/step': 'unconfined' })],
    ['Capabilities', 'restricted', (p) => (p.spec!.containers[0]!.securityContext!.capabilities = { drop: ['ALL'], add: ['CHOWN'] })],
  ])('reports %s at %s for a pod-level field even when the container sets its own', (control, level, breakIt) => {
    const pod = hardened();
    expect(podSecurityFindings(pod, 'restricted')).toEqual([]);
    breakIt(pod);
    expect(podSecurityFindings(pod, level).map((f) => f.control)).toContain(control);
  });

  it('at baseline, reports none of restricted\'s controls', () => {
    const bare: V1Pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'step', image: 'alpine' }], volumes: [{ name: 'n', nfs: { server: 'x', path: '/' } }] } };
    expect(podSecurityFindings(bare, 'baseline')).toEqual([]);
    expect(podSecurityFindings(bare, 'restricted').length).toBeGreaterThan(0);
  });
});
