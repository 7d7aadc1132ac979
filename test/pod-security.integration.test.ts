/**
 * The step pod against the Kubernetes Pod Security Standards, "restricted" profile (which includes
 * "baseline"), as published at kubernetes.io/docs/concepts/security/pod-security-standards (v1.30+
 * rules). The checker below is written from that page's tables, control by control, and is pure,
 * so it is also shown to catch each violation it looks for.
 *
 * The one deliberate exception: "Running as Non-root" (runAsNonRoot: true) is not forced by
 * default, because most CI images (node, python, alpine...) run as root and would not start
 * (CreateContainerConfigError). The step pod instead drops every capability and forbids
 * escalation; the checker reports the control and the test expects exactly that one finding. A
 * deployment that names a user (STEP_RUN_AS_USER) meets that control too.
 *
 * Then the embedded cluster enforcing the levels on a labelled namespace, as the apiserver does:
 * a build refused at once with its words, and the same build admitted with a user.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { CoreV1Api } from '@kubernetes/client-node';
import type { V1Container, V1Pod, V1SecurityContext } from '@kubernetes/client-node';
import { stepPodManifest } from '../lib/kube/index.js';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/local/cluster/index.js';
import { startLocalExecution } from '../lib/local/executor.js';
import { printedStatusReporter } from '../lib/local/printed-status.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { logger } from '../lib/workflow/lambda-task.js';
import type { Step } from '../lib/pipeline/types.js';

const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE',
  'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT',
]);
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes',
]);
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
const RESTRICTED_VOLUME_TYPES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);

interface Finding {
  control: string;
  where: string;
}

/** Every "restricted" (and so "baseline") control the pod breaks. */
function podSecurityFindings(pod: V1Pod): Finding[] {
  const spec = pod.spec!;
  const findings: Finding[] = [];
  const add = (control: string, where: string) => findings.push({ control, where });
  const podContext = spec.securityContext ?? {};
  const containers: [string, V1Container][] = [
    ...(spec.containers ?? []).map((c): [string, V1Container] => [`containers[${c.name}]`, c]),
    ...(spec.initContainers ?? []).map((c): [string, V1Container] => [`initContainers[${c.name}]`, c]),
    ...((spec.ephemeralContainers ?? []) as V1Container[]).map((c): [string, V1Container] => [`ephemeralContainers[${c.name}]`, c]),
  ];

  // Baseline.
  if (podContext.windowsOptions?.hostProcess) add('HostProcess', 'spec.securityContext');
  if (spec.hostNetwork) add('Host Namespaces', 'spec.hostNetwork');
  if (spec.hostPID) add('Host Namespaces', 'spec.hostPID');
  if (spec.hostIPC) add('Host Namespaces', 'spec.hostIPC');
  for (const volume of spec.volumes ?? []) if (volume.hostPath) add('HostPath Volumes', `spec.volumes[${volume.name}]`);
  for (const sysctl of podContext.sysctls ?? []) if (!SAFE_SYSCTLS.has(sysctl.name)) add('Sysctls', sysctl.name);
  checkSelinux(podContext.seLinuxOptions, 'spec.securityContext', add);
  checkAppArmor(podContext.appArmorProfile?.type, 'spec.securityContext', add);
  for (const [where, container] of containers) {
    const sc: V1SecurityContext = container.securityContext ?? {};
    if (sc.windowsOptions?.hostProcess) add('HostProcess', where);
    if (sc.privileged) add('Privileged Containers', where);
    for (const cap of sc.capabilities?.add ?? []) if (!BASELINE_CAPABILITIES.has(cap)) add('Capabilities (baseline)', `${where}: ${cap}`);
    for (const port of container.ports ?? []) if (port.hostPort) add('Host Ports', where);
    checkSelinux(sc.seLinuxOptions, where, add);
    checkAppArmor(sc.appArmorProfile?.type, where, add);
    if (sc.procMount !== undefined && sc.procMount !== 'Default') add('/proc Mount Type', where);
    const seccomp = sc.seccompProfile?.type ?? podContext.seccompProfile?.type;
    if (seccomp === 'Unconfined') add('Seccomp (baseline)', where);
  }

  // Restricted.
  for (const volume of spec.volumes ?? []) {
    const types = Object.keys(volume).filter((key) => key !== 'name');
    if (!types.every((type) => RESTRICTED_VOLUME_TYPES.has(type))) add('Volume Types', `spec.volumes[${volume.name}]`);
  }
  if (podContext.runAsUser === 0) add('Running as Non-root user', 'spec.securityContext');
  for (const [where, container] of containers) {
    const sc: V1SecurityContext = container.securityContext ?? {};
    if (sc.allowPrivilegeEscalation !== false) add('Privilege Escalation', where);
    if (!(sc.runAsNonRoot === true || (sc.runAsNonRoot === undefined && podContext.runAsNonRoot === true))) add('Running as Non-root', where);
    if (sc.runAsUser === 0) add('Running as Non-root user', where);
    const seccomp = sc.seccompProfile?.type ?? podContext.seccompProfile?.type;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') add('Seccomp', where);
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) add('Capabilities', `${where}: must drop ALL`);
    for (const cap of sc.capabilities?.add ?? []) if (cap !== 'NET_BIND_SERVICE') add('Capabilities', `${where}: adds ${cap}`);
  }
  return findings;

  function checkSelinux(options: { type?: string; user?: string; role?: string } | undefined, where: string, report: typeof add) {
    if (!options) return;
    if (!SELINUX_TYPES.has(options.type ?? '')) report('SELinux', where);
    if (options.user || options.role) report('SELinux', where);
  }
  function checkAppArmor(type: string | undefined, where: string, report: typeof add) {
    if (type !== undefined && type !== 'RuntimeDefault' && type !== 'Localhost') report('AppArmor', where);
  }
}

/** Not a Pod Security Standard control, but asked of step pods: no API credentials inside. */
function mountsServiceAccountToken(pod: V1Pod): boolean {
  return pod.spec?.automountServiceAccountToken !== false;
}

const THE_EXCEPTION: Finding = { control: 'Running as Non-root', where: 'containers[step]' };

const stepArbitrary: fc.Arbitrary<Step> = fc.record({
  name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}[a-z0-9]$/),
  image: fc.constantFrom('alpine:3.20', 'node:22-alpine', 'registry.example.com/team/app@sha256:' + 'a'.repeat(64)),
  commands: fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 4 }),
  env: fc.dictionary(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,8}$/), fc.string()),
  pull: fc.constantFrom('always', 'if-not-present', 'never'),
  timeoutSeconds: fc.integer({ min: 1, max: 86_400 }),
  resources: fc.option(fc.record({ cpu: fc.constantFrom('100m', '2'), memory: fc.constantFrom('64Mi', '1Gi') }), { nil: undefined }),
  secrets: fc.array(fc.record({ env: fc.constantFrom('TOKEN', 'DB_PASSWORD'), secret: fc.constantFrom('ci-db', 'ci.token'), key: fc.constantFrom('password', 'token') }), { maxLength: 2 }),
}, { requiredKeys: ['name', 'image', 'commands', 'env', 'pull', 'timeoutSeconds', 'secrets'] });

describe('step pods and the restricted Pod Security Standard', () => {
  it('meet every control but runAsNonRoot, for any step a pipeline can describe', () => {
    fc.assert(
      fc.property(stepArbitrary, fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,40}$/), (step, buildId) => {
        const pod = stepPodManifest({ buildId, step, namespace: 'ci' });
        expect(podSecurityFindings(pod)).toEqual([THE_EXCEPTION]);
        expect(mountsServiceAccountToken(pod)).toBe(false);
        expect(pod.spec?.volumes ?? []).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('pass entirely, for any step and either workspace, when the deployment names a non-root user', () => {
    fc.assert(
      fc.property(stepArbitrary, fc.boolean(), (step, ephemeral) => {
        const checkout = { ...step, name: 'clone', secrets: [] };
        const workspace = ephemeral ? ({ ephemeral: true } as const) : { claimName: 'b-workspace' };
        const pod = stepPodManifest({ buildId: 'b', step, namespace: 'ci', runAsUser: 1000, workspace, ...(ephemeral ? { checkout } : {}) });
        expect(podSecurityFindings(pod)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it('would pass entirely if runAsNonRoot were set: nothing else stands in the way', () => {
    const pod = stepPodManifest({ buildId: 'b', step: { name: 's', image: 'alpine:3.20', commands: ['true'], env: {}, pull: 'always', timeoutSeconds: 60, secrets: [] }, namespace: 'ci' });
    pod.spec!.containers[0]!.securityContext!.runAsNonRoot = true;
    expect(podSecurityFindings(pod)).toEqual([]);
  });

  // The checker must bite, or the tests above prove nothing.
  const base = () => {
    const pod = stepPodManifest({ buildId: 'b', step: { name: 's', image: 'alpine:3.20', commands: ['true'], env: {}, pull: 'always', timeoutSeconds: 60, secrets: [] }, namespace: 'ci' });
    pod.spec!.containers[0]!.securityContext!.runAsNonRoot = true;
    return pod;
  };
  const sc = (pod: V1Pod) => pod.spec!.containers[0]!.securityContext!;
  it.each<[string, (pod: V1Pod) => void]>([
    ['Host Namespaces', (p) => (p.spec!.hostNetwork = true)],
    ['Host Namespaces', (p) => (p.spec!.hostPID = true)],
    ['HostPath Volumes', (p) => (p.spec!.volumes = [{ name: 'docker', hostPath: { path: '/var/run/docker.sock' } }])],
    ['Privileged Containers', (p) => (sc(p).privileged = true)],
    ['Capabilities (baseline)', (p) => (sc(p).capabilities!.add = ['SYS_ADMIN'])],
    ['Capabilities', (p) => (sc(p).capabilities!.drop = [])],
    ['Privilege Escalation', (p) => delete sc(p).allowPrivilegeEscalation],
    ['Seccomp', (p) => delete sc(p).seccompProfile],
    ['Seccomp (baseline)', (p) => (sc(p).seccompProfile = { type: 'Unconfined' })],
    ['Running as Non-root user', (p) => (sc(p).runAsUser = 0)],
    ['Host Ports', (p) => (p.spec!.containers[0]!.ports = [{ containerPort: 80, hostPort: 80 }])],
    ['Sysctls', (p) => (p.spec!.securityContext = { sysctls: [{ name: 'kernel.msgmax', value: '1' }] })],
    ['/proc Mount Type', (p) => (sc(p).procMount = 'Unmasked')],
    ['AppArmor', (p) => (sc(p).appArmorProfile = { type: 'Unconfined' })],
    ['SELinux', (p) => (sc(p).seLinuxOptions = { type: 'spc_t' })],
    ['Volume Types', (p) => (p.spec!.volumes = [{ name: 'nfs', nfs: { server: 'x', path: '/' } }])],
  ])('the checker reports %s', (control, breakIt) => {
    const pod = base();
    breakIt(pod);
    expect(podSecurityFindings(pod).map((f) => f.control)).toContain(control);
  });
});

describe('a namespace at the restricted level, on the embedded cluster', () => {
  let cluster: EmbeddedCluster;
  let root: string;
  const RESTRICTED = 'locked-down';

  beforeAll(async () => {
    logger.setLogLevel('SILENT');
    cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS });
    root = await mkdtemp(path.join(tmpdir(), 'pod-security-'));
    await writeFile(path.join(root, 'kubeconfig'), cluster.kubeconfigYaml());
    await cluster.kubeConfig().makeApiClient(CoreV1Api).createNamespace({
      body: { metadata: { name: RESTRICTED, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } },
    });
  });
  afterAll(async () => {
    await cluster.stop();
    await rm(root, { recursive: true, force: true });
  });

  const build = (id: string, runAsUser?: number) => {
    const launches: string[] = [];
    const execution = startLocalExecution(
      { build: { id, trigger: 'test' }, namespace: RESTRICTED, pipeline: { file: 'p.yml', text: 'version: 1\ncheckout: false\nsteps:\n  - name: test\n    image: alpine:3.20\n    commands: [id -u]\n' } },
      {
        runtime: localTaskRuntime({ kubeconfig: path.join(root, 'kubeconfig'), namespace: RESTRICTED, logsDir: path.join(root, 'logs'), ...(runAsUser ? { settings: { runAsUser } } : {}) }),
        statuses: printedStatusReporter(() => {}),
        waitMs: 20,
        retryMs: 5,
        onEvent: (event) => {
          if (event.type === 'TaskStateEntered' || (event.type === 'StateEntered' && event.state?.name === 'LaunchStep')) launches.push(event.type);
        },
      },
    );
    return { launches, result: execution.result };
  };

  it('refuses the step pods of a deployment without a user at once, as PodConfigError with the apiserver\'s words', async () => {
    const { launches, result } = await build('psa-refused');
    const summary = await result;
    expect({ status: summary.status, error: summary.error }).toEqual({ status: 'FAILED', error: 'PodConfigError' });
    expect(summary.cause).toContain(
      `Namespace "${RESTRICTED}" refused the pod for step "test" of build "psa-refused" at admission (Pod Security, a ResourceQuota or LimitRange, or an admission webhook): 403 Forbidden: pods "psa-refused-test-`,
    );
    expect(summary.cause).toContain('violates PodSecurity "restricted:latest": runAsNonRoot != true (pod or container "step" must set securityContext.runAsNonRoot=true)');
    // Once: no retry can change a namespace's rule.
    expect(launches).toHaveLength(1);
  });

  it('admits them when the deployment names a non-root user', async () => {
    const summary = await build('psa-admitted', 1000).result;
    expect({ status: summary.status, error: summary.error, cause: summary.cause }).toEqual({ status: 'SUCCEEDED', error: null, cause: null });
  });
});
