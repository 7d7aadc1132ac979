/**
 * The step pod against the Kubernetes Pod Security Standards, "restricted" profile (which includes
 * "baseline"), as the checker in fixtures/pod-security-standard.ts reads them from
 * kubernetes.io/docs/concepts/security/pod-security-standards; it is pure, so it is also shown to
 * catch each violation it looks for (and test/pod-security-standard.test.ts holds the embedded
 * cluster's admission to it).
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
import type { V1Pod } from '@kubernetes/client-node';
import { stepPodManifest } from '../lib/kube/index.js';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalExecution } from '../lib/emulators/stepfunctions/executor.js';
import { printedStatusReporter } from '../lib/emulators/lambda/printed-status.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import type { Step } from '../lib/pipeline/types.js';
import { podSecurityFindings, type Finding } from './fixtures/pod-security-standard.js';
import { parseImageReference } from '../lib/pipeline/index.js';

/** Not a Pod Security Standard control, but asked of step pods: no API credentials inside. */
function mountsServiceAccountToken(pod: V1Pod): boolean {
  return pod.spec?.automountServiceAccountToken !== false;
}

const THE_EXCEPTION: Finding = { control: 'Running as Non-root', where: 'containers[step]' };

const stepArbitrary: fc.Arbitrary<Step> = fc.record({
  name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}[a-z0-9]$/),
  imageRef: fc.constantFrom('alpine:3.20', 'node:22-alpine', 'registry.example.com/team/app@sha256:' + 'a'.repeat(64)).map((image) => parseImageReference(image)),
  commands: fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 4 }),
  env: fc.dictionary(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,8}$/), fc.string()),
  pull: fc.constantFrom('always', 'if-not-present', 'never'),
  timeoutSeconds: fc.integer({ min: 1, max: 86_400 }),
  resources: fc.option(fc.record({ cpu: fc.constantFrom('100m', '2'), memory: fc.constantFrom('64Mi', '1Gi') }), { nil: undefined }),
  secrets: fc.array(fc.record({ env: fc.constantFrom('TOKEN', 'DB_PASSWORD'), secret: fc.constantFrom('ci-db', 'ci.token'), key: fc.constantFrom('password', 'token') }), { maxLength: 2 }),
}, { requiredKeys: ['name', 'imageRef', 'commands', 'env', 'pull', 'timeoutSeconds', 'secrets'] }).map((step) => ({ ...step, image: step.imageRef.original }));

describe('step pods and the restricted Pod Security Standard', () => {
  it('meet every control but runAsNonRoot, for any step a pipeline can describe', () => {
    fc.assert(
      fc.property(stepArbitrary, fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,40}$/), (step, buildId) => {
        const pod = stepPodManifest({ buildId, step, namespace: 'ci' });
        expect(podSecurityFindings(pod, 'restricted')).toEqual([THE_EXCEPTION]);
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
        expect(podSecurityFindings(pod, 'restricted')).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it('would pass entirely if runAsNonRoot were set: nothing else stands in the way', () => {
    const pod = stepPodManifest({ buildId: 'b', step: { name: 's', image: 'alpine:3.20', imageRef: parseImageReference('alpine:3.20'), commands: ['true'], env: {}, pull: 'always', timeoutSeconds: 60, secrets: [] }, namespace: 'ci' });
    pod.spec!.containers[0]!.securityContext!.runAsNonRoot = true;
    expect(podSecurityFindings(pod, 'restricted')).toEqual([]);
  });

  // The checker must bite, or the tests above prove nothing.
  const base = () => {
    const pod = stepPodManifest({ buildId: 'b', step: { name: 's', image: 'alpine:3.20', imageRef: parseImageReference('alpine:3.20'), commands: ['true'], env: {}, pull: 'always', timeoutSeconds: 60, secrets: [] }, namespace: 'ci' });
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
    expect(podSecurityFindings(pod, 'restricted').map((f) => f.control)).toContain(control);
  });
});

describe('a namespace at the restricted level, on the embedded cluster', () => {
  let cluster: EmbeddedCluster;
  let root: string;
  const RESTRICTED = 'locked-down';

  beforeAll(async () => {
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
        overrides: { waitMs: 20, retryMs: 5 },
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
