import { Pod } from 'kubernetes-models/v1/Pod';
import { reservedServiceNameProblem } from '../pipeline/services.js';
import type { Service, Step, Toleration } from '../pipeline/types.js';
import { DO_NOT_DISRUPT_ANNOTATIONS, SERVICE_CAPABILITIES, stepPlacement, stepPodManifest, type PodPlacement } from './pod-manifest.js';
import { isServiceItself, PORT_GATE_SCRIPT, portGateContainerName, portGateOf, serviceContainerName } from './service-containers.js';
import { Annotations, Labels, MANAGED_BY, STEP_CONTAINER } from './types.js';
import { parseImageReference } from '../pipeline/index.js';

const step: Step = {
  name: 'unit-tests',
  image: 'node:22-alpine', imageRef: parseImageReference('node:22-alpine'),
  commands: ['npm ci', 'npm test'],
  env: { CI: 'true', NODE_ENV: 'test' },
  pull: 'if-not-present',
  timeoutSeconds: 600,
  resources: { cpu: '500m', memory: '512Mi' },
  secrets: [{ env: 'DB_PASSWORD', secret: 'ci-db', key: 'password' }],
};

/** The Kubernetes OpenAPI schema, through kubernetes-models: throws on any violation. */
function validate(manifest: unknown): void {
  new Pod(manifest as ConstructorParameters<typeof Pod>[0]).validate();
}

describe('stepPodManifest', () => {
  it('is a valid Pod by the Kubernetes schema', () => {
    const manifest = stepPodManifest({ buildId: 'build-7', step, namespace: 'ci', extraLabels: { team: 'web' } });
    expect(() => validate(manifest)).not.toThrow();
  });

  it('is valid for awkward build ids and minimal steps', () => {
    const minimal: Step = { ...step, name: 'x', env: {}, secrets: [], resources: undefined, pull: 'always' };
    const manifest = stepPodManifest({ buildId: 'Org/Repo#123 (retry)', step: minimal, namespace: 'ci' });
    expect(() => validate(manifest)).not.toThrow();
    expect(manifest.spec?.containers[0]?.resources).toBeUndefined();
    expect(manifest.spec?.containers[0]?.imagePullPolicy).toBe('Always');
  });

  it('proves the schema check bites: a broken manifest is rejected', () => {
    const broken = stepPodManifest({ buildId: 'build-7', step, namespace: 'ci' }) as unknown as {
      spec: { containers: Record<string, unknown>[] };
    };
    delete broken.spec.containers[0]!.name;
    expect(() => validate(broken)).toThrow(/name/);

    const wrongType = stepPodManifest({ buildId: 'build-7', step, namespace: 'ci' }) as unknown as {
      spec: Record<string, unknown>;
    };
    wrongType.spec.activeDeadlineSeconds = 'ten minutes';
    expect(() => validate(wrongType)).toThrow();
  });

  it('names, labels and annotates the pod so it can be found, adopted and cleaned up', () => {
    const manifest = stepPodManifest({ buildId: 'Org/Repo#123', step, namespace: 'ci', extraLabels: { team: 'web' } });
    expect(manifest.metadata?.name).toMatch(/^org-repo-123-unit-tests-[0-9a-f]{8}$/);
    expect(manifest.metadata?.namespace).toBe('ci');
    expect(manifest.metadata?.labels).toEqual({
      team: 'web',
      [Labels.managedBy]: MANAGED_BY,
      [Labels.build]: 'Org-Repo-123',
      [Labels.step]: 'unit-tests',
    });
    expect(manifest.metadata?.annotations).toEqual({
      'karpenter.sh/do-not-disrupt': 'true',
      'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false',
      [Annotations.build]: 'Org/Repo#123',
      [Annotations.step]: 'unit-tests',
    });
  });

  // Karpenter (EKS Auto Mode too) evicts a pod without an owner when it consolidates its node,
  // unless karpenter.sh/do-not-disrupt is "true"; cluster-autoscaler leaves a node whose pod says
  // safe-to-evict "false" (pod-manifest.ts, DO_NOT_DISRUPT_ANNOTATIONS, cites both).
  const checkout: Step = { ...step, name: 'clone', commands: ['git fetch'], secrets: [] };
  const withServices: Step = { ...step, services: [{ name: 'db', image: 'postgres:16', imageRef: parseImageReference('postgres:16'), env: {}, secrets: [], ports: [5432], pull: 'if-not-present' }] };
  it.each([
    ['a plain step', { buildId: 'b1', step, namespace: 'ci' }],
    ['a retry of a re-run', { buildId: 'b1', step, namespace: 'ci', attempt: 2, redrive: 1 }],
    ['a step on the claim, pinned to its node', { buildId: 'b1', step, namespace: 'ci', workspace: { claimName: 'ws-b1', node: 'n1' } }],
    ['an ephemeral workspace that checks out in the pod', { buildId: 'b1', step, namespace: 'ci', workspace: { ephemeral: true as const }, checkout }],
    ['a step with services', { buildId: 'b1', step: withServices, namespace: 'ci' }],
    ['a step kept for the steps that need it', { buildId: 'b1', step, namespace: 'ci', keepForSeconds: 3600 }],
  ])('keeps node autoscalers from evicting every step pod to remove its node: %s', (_, input) => {
    const manifest = stepPodManifest(input);
    expect(() => validate(manifest)).not.toThrow();
    expect(manifest.metadata?.annotations).toMatchObject({ 'karpenter.sh/do-not-disrupt': 'true', 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false' });
    // The deployment's stepDoNotDisrupt 'off': neither, and nothing else lost.
    const disruptible = stepPodManifest({ ...input, disruptible: true });
    const annotations = disruptible.metadata?.annotations ?? {};
    expect(Object.keys(DO_NOT_DISRUPT_ANNOTATIONS).filter((key) => key in annotations)).toEqual([]);
    expect(annotations).toEqual(Object.fromEntries(Object.entries(manifest.metadata?.annotations ?? {}).filter(([key]) => !(key in DO_NOT_DISRUPT_ANNOTATIONS))));
  });

  // OpenCost and Kubecost aggregate a pod's cost by its labels (docs/cost.md): the repository,
  // the build and the step, each a value the API server accepts (validate: the OpenAPI pattern).
  it.each([
    ['owner/name', 'acme/web-app', 'acme-web-app'],
    ['a name with dots and underscores', 'acme/site.io_v2', 'acme-site.io_v2'],
    ['a name longer than a label value', `acme/${'x'.repeat(80)}`, `acme-${'x'.repeat(58)}`],
    ['no repository (a local build of a folder)', undefined, undefined],
  ])('labels the pod with its repository, build and step for cost attribution: %s', (_, repository, label) => {
    const manifest = stepPodManifest({ buildId: 'acme-web-app-42', step, namespace: 'ci', ...(repository ? { repository } : {}) });
    expect(() => validate(manifest)).not.toThrow();
    expect(manifest.metadata?.labels?.[Labels.repository]).toBe(label);
    expect(manifest.metadata?.annotations?.[Annotations.repository]).toBe(repository);
    expect(manifest.metadata?.labels).toMatchObject({ [Labels.build]: 'acme-web-app-42', [Labels.step]: 'unit-tests' });
    if (label) expect(label).toMatch(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/);
  });

  it('does not let extra labels override the runner labels', () => {
    const manifest = stepPodManifest({
      buildId: 'b1',
      step,
      namespace: 'ci',
      extraLabels: { [Labels.build]: 'someone-else' },
    });
    expect(manifest.metadata?.labels?.[Labels.build]).toBe('b1');
  });

  it('runs the step script once, never restarting, within the step timeout', () => {
    const spec = stepPodManifest({ buildId: 'b1', step, namespace: 'ci' }).spec!;
    expect(spec.restartPolicy).toBe('Never');
    expect(spec.activeDeadlineSeconds).toBe(600);
    expect(spec.terminationGracePeriodSeconds).toBeLessThanOrEqual(10);
    expect(spec.containers).toHaveLength(1);
    const container = spec.containers[0]!;
    expect(container.name).toBe(STEP_CONTAINER);
    expect(container.image).toBe('node:22-alpine');
    expect(container.imagePullPolicy).toBe('IfNotPresent');
    expect(container.command).toHaveLength(3);
    expect(container.command!.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(container.command![2]).toMatch(/\nnpm ci\n[\s\S]*\nnpm test\n/);
  });

  it('passes env plainly and secrets only as references', () => {
    const manifest = stepPodManifest({ buildId: 'b1', step, namespace: 'ci' });
    const env = manifest.spec?.containers[0]?.env;
    expect(env).toEqual([
      { name: 'CI', value: 'true' },
      { name: 'NODE_ENV', value: 'test' },
      { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'ci-db', key: 'password' } } },
    ]);
    expect(env?.find((e) => e.name === 'DB_PASSWORD')).not.toHaveProperty('value');
  });

  it('reserves exactly what the step may use', () => {
    const resources = stepPodManifest({ buildId: 'b1', step, namespace: 'ci' }).spec?.containers[0]?.resources;
    expect(resources).toEqual({
      requests: { cpu: '500m', memory: '512Mi' },
      limits: { cpu: '500m', memory: '512Mi' },
    });
    const cpuOnly = stepPodManifest({ buildId: 'b1', step: { ...step, resources: { cpu: '1' } }, namespace: 'ci' });
    expect(cpuOnly.spec?.containers[0]?.resources).toEqual({ requests: { cpu: '1' }, limits: { cpu: '1' } });
  });

  it('runs every container as the deployment\'s non-root user when it names one, the workspace owned by its group', () => {
    const manifest = stepPodManifest({ buildId: 'b1', step, namespace: 'ci', runAsUser: 1000, workspace: { ephemeral: true } });
    expect(() => validate(manifest)).not.toThrow();
    expect(manifest.spec?.securityContext).toEqual({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000 });
    expect(stepPodManifest({ buildId: 'b1', step, namespace: 'ci' }).spec?.securityContext).toBeUndefined();
  });

  it('locks the step down without forcing a non-root user', () => {
    const spec = stepPodManifest({ buildId: 'b1', step, namespace: 'ci' }).spec!;
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(spec.enableServiceLinks).toBe(false);
    const security = spec.containers[0]?.securityContext;
    expect(security).toMatchObject({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(security?.runAsNonRoot).toBeUndefined();
  });

  describe('pull secrets and placement', () => {
    const spot: Toleration = { key: 'karpenter.sh/capacity-type', operator: 'Equal', value: 'spot', effect: 'NoSchedule' };
    const ci: Toleration = { key: 'ci', operator: 'Exists', effect: 'NoSchedule' };
    const gpu: Toleration = { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
    const deployment: PodPlacement = { nodeSelector: { 'kubernetes.io/arch': 'arm64', pool: 'ci' }, tolerations: [ci] };

    it.each<[string, Pick<Step, 'nodeSelector' | 'tolerations'>, PodPlacement | undefined, PodPlacement]>([
      ['neither: nothing', {}, undefined, {}],
      ['the deployment\'s only', {}, deployment, deployment],
      ['the step\'s only', { nodeSelector: { gpu: 'true' }, tolerations: [gpu] }, undefined, { nodeSelector: { gpu: 'true' }, tolerations: [gpu] }],
      [
        'the step\'s keys over the deployment\'s, its tolerations after',
        { nodeSelector: { 'kubernetes.io/arch': 'amd64', gpu: 'true' }, tolerations: [spot, gpu] },
        deployment,
        { nodeSelector: { 'kubernetes.io/arch': 'amd64', pool: 'ci', gpu: 'true' }, tolerations: [ci, spot, gpu] },
      ],
      ['a toleration both name, once', { tolerations: [ci] }, deployment, { nodeSelector: deployment.nodeSelector!, tolerations: [ci] }],
      ['empty defaults: nothing', {}, { nodeSelector: {}, tolerations: [] }, {}],
    ])('merges %s', (_name, own, defaults, expected) => {
      expect(stepPlacement(own, defaults)).toEqual(expected);
    });

    it.each<[string, Partial<Parameters<typeof stepPodManifest>[0]>, Step, Record<string, unknown>]>([
      ['no settings: none of the fields', {}, step, {}],
      ['pull secrets, once each', { pullSecrets: ['regcred', 'ghcr', 'regcred'] }, step, { imagePullSecrets: [{ name: 'regcred' }, { name: 'ghcr' }] }],
      [
        'the step\'s node selector and tolerations over the deployment\'s',
        { placement: deployment },
        { ...step, nodeSelector: { pool: 'gpu' }, tolerations: [gpu] },
        {
          nodeSelector: { 'kubernetes.io/arch': 'arm64', pool: 'gpu' },
          tolerations: [
            { key: 'ci', operator: 'Exists', effect: 'NoSchedule' },
            { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
          ],
        },
      ],
      ['a toleration of every taint', {}, { ...step, tolerations: [{ operator: 'Exists' }] }, { tolerations: [{ operator: 'Exists' }] }],
    ])('sets %s in the pod spec, a valid Pod', (_name, input, ownStep, expected) => {
      const manifest = stepPodManifest({ buildId: 'b1', step: ownStep, namespace: 'ci', ...input });
      expect(() => validate(manifest)).not.toThrow();
      const spec = manifest.spec as unknown as Record<string, unknown>;
      for (const field of ['imagePullSecrets', 'nodeSelector', 'tolerations']) expect(spec[field]).toEqual(expected[field]);
    });

    it('gives the checkout init container\'s pod the same pull secrets and placement: it is the same pod', () => {
      const checkout: Step = { name: 'clone', image: 'alpine/git:v2.54.0', imageRef: parseImageReference('alpine/git:v2.54.0'), commands: ['git init -q .'], env: {}, pull: 'if-not-present', timeoutSeconds: 900, secrets: [] };
      const manifest = stepPodManifest({ buildId: 'b1', step, namespace: 'ci', workspace: { ephemeral: true }, checkout, pullSecrets: ['regcred'], placement: deployment });
      expect(manifest.spec?.initContainers?.map((c) => c.name)).toEqual(['clone']);
      expect(manifest.spec?.imagePullSecrets).toEqual([{ name: 'regcred' }]);
      expect(manifest.spec?.nodeSelector).toEqual(deployment.nodeSelector);
    });

    it('keeps the workspace pin beside a node selector: both must hold', () => {
      const manifest = stepPodManifest({ buildId: 'b1', step: { ...step, nodeSelector: { pool: 'ci' } }, namespace: 'ci', workspace: { claimName: 'b1-ws', node: 'node-a' } });
      expect(() => validate(manifest)).not.toThrow();
      expect(manifest.spec?.nodeSelector).toEqual({ pool: 'ci' });
      expect(manifest.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms).toHaveLength(1);
    });
  });

  describe('with an ephemeral workspace', () => {
    const checkout: Step = {
      name: 'clone',
      image: 'alpine/git:v2.54.0', imageRef: parseImageReference('alpine/git:v2.54.0'),
      commands: ['git init -q .', 'git fetch --no-tags --depth=1 origin 3f2a9c1'],
      env: { GIT_TERMINAL_PROMPT: '0' },
      pull: 'if-not-present',
      timeoutSeconds: 900,
      secrets: [{ env: 'GIT_TOKEN', secret: 'b1-git-credentials', key: 'token' }],
    };
    const manifest = stepPodManifest({ buildId: 'b1', step, namespace: 'ci', buildEnv: { CI_COMMIT_SHA: '3f2a9c1' }, workspace: { ephemeral: true }, checkout });

    it('is a valid Pod by the Kubernetes schema', () => {
      expect(() => validate(manifest)).not.toThrow();
    });

    it('gives the pod an emptyDir of its own at /workspace, and no claim nor pin', () => {
      expect(manifest.spec?.volumes).toEqual([{ name: 'workspace', emptyDir: {} }]);
      expect(manifest.spec?.affinity).toBeUndefined();
      expect(manifest.spec?.containers[0]).toMatchObject({ workingDir: '/workspace', volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }] });
    });

    it('checks out first, in an init container sharing the workspace, the build variables and the lock-down', () => {
      const [init, ...more] = manifest.spec?.initContainers ?? [];
      expect(more).toEqual([]);
      expect(init).toMatchObject({
        name: 'clone',
        image: 'alpine/git:v2.54.0',
        workingDir: '/workspace',
        volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }],
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
      });
      expect(init?.command?.[2]).toContain('git fetch --no-tags --depth=1 origin 3f2a9c1');
      expect(init?.env).toEqual([
        { name: 'CI_COMMIT_SHA', value: '3f2a9c1' },
        { name: 'GIT_TERMINAL_PROMPT', value: '0' },
        { name: 'GIT_TOKEN', valueFrom: { secretKeyRef: { name: 'b1-git-credentials', key: 'token' } } },
      ]);
      // The step's own secrets stay the step's: the clone does not see them, nor the step the token.
      expect(manifest.spec?.containers[0]?.env?.map((e) => e.name)).not.toContain('GIT_TOKEN');
    });
  });
});

describe('services', () => {
  const db: Service = {
    name: 'db',
    image: 'postgres:16-alpine', imageRef: parseImageReference('postgres:16-alpine'),
    env: { POSTGRES_PASSWORD: 'test' },
    ports: [5432],
    secrets: [{ env: 'PGPASS', secret: 'ci-db', key: 'password' }],
    pull: 'always',
  };
  const broker: Service = { name: 'broker', image: 'rabbitmq:4', imageRef: parseImageReference('rabbitmq:4'), env: {}, ports: [5672, 15672], secrets: [], pull: 'if-not-present' };
  const cache: Service = { name: 'cache', image: 'redis:7-alpine', imageRef: parseImageReference('redis:7-alpine'), env: {}, ports: [], secrets: [], pull: 'if-not-present' };
  const withServices: Step = { ...step, services: [db, broker, cache] };
  const checkout: Step = { name: 'clone', image: 'alpine/git:v2.54.0', imageRef: parseImageReference('alpine/git:v2.54.0'), commands: ['git init'], env: {}, pull: 'if-not-present', timeoutSeconds: 600, secrets: [] };
  const manifest = stepPodManifest({ buildId: 'b1', step: withServices, namespace: 'ci', workspace: { ephemeral: true }, checkout, serviceStartGraceSeconds: 90 });
  const init = manifest.spec?.initContainers ?? [];

  it('is a valid Pod by the Kubernetes schema', () => {
    expect(() => validate(manifest)).not.toThrow();
  });

  it('runs each service as a native sidecar after the checkout, then a gate for each further port, then the step', () => {
    expect(init.map((c) => [c.name, c.restartPolicy])).toEqual([
      ['clone', undefined],
      ['db', 'Always'],
      ['broker', 'Always'],
      ['cache', 'Always'],
      ['port-15672', 'Always'],
    ]);
    expect(init.map((c) => c.name)).toEqual(['clone', ...withServices.services!.map(serviceContainerName), portGateContainerName(15672)]);
    expect(manifest.spec?.containers.map((c) => c.name)).toEqual([STEP_CONTAINER]);
  });

  it('gives a service its image, pull policy, own env and secret references, ports and the workspace, in its own working directory', () => {
    const service = init.find((c) => c.name === 'db');
    expect(service).toMatchObject({
      image: 'postgres:16-alpine',
      imagePullPolicy: 'Always',
      env: [
        { name: 'POSTGRES_PASSWORD', value: 'test' },
        { name: 'PGPASS', valueFrom: { secretKeyRef: { name: 'ci-db', key: 'password' } } },
      ],
      ports: [{ containerPort: 5432, protocol: 'TCP' }],
      volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }],
    });
    // The image's entrypoint and working directory unless the service says otherwise (below).
    expect(service).not.toHaveProperty('command');
    expect(service).not.toHaveProperty('args');
    expect(service).not.toHaveProperty('workingDir');
    expect(service?.env?.map((e) => e.name)).not.toContain('CI');
  });

  // kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/#notes:
  // the container's command replaces the image's ENTRYPOINT, its args the image's CMD.
  it.each<[string, Pick<Service, 'entrypoint' | 'command'>, { command?: string[]; args?: string[] }]>([
    ['neither: the image\'s ENTRYPOINT and CMD', {}, {}],
    ['command: the args, after the image\'s ENTRYPOINT', { command: ['postgres', '-c', 'fsync=off'] }, { args: ['postgres', '-c', 'fsync=off'] }],
    ['entrypoint: the command, the image\'s CMD dropped', { entrypoint: ['/usr/local/bin/redis-server'] }, { command: ['/usr/local/bin/redis-server'] }],
    ['both', { entrypoint: ['sh', '-c'], command: ['exec httpd -DFOREGROUND'] }, { command: ['sh', '-c'], args: ['exec httpd -DFOREGROUND'] }],
    ['words reach the container as written, never expanded by the kubelet', { entrypoint: ['sh', '-c'], command: ['echo $(date) $HOME $$'] }, { command: ['sh', '-c'], args: ['echo $$(date) $$HOME $$$$'] }],
  ])('runs a service with %s', (_, given, expected) => {
    const pod = stepPodManifest({ buildId: 'b1', step: { ...step, services: [{ ...db, ...given }] }, namespace: 'ci' });
    const service = pod.spec?.initContainers?.find((c) => c.name === 'db');
    expect({ command: service?.command, args: service?.args }).toEqual({ command: undefined, args: undefined, ...expected });
    expect(() => validate(pod)).not.toThrow();
  });

  it('probes a service\'s first port every second for the grace, and a gate probes each other port', () => {
    const probe = { tcpSocket: { port: 5432 }, periodSeconds: 1, timeoutSeconds: 1, failureThreshold: 90 };
    expect(init.find((c) => c.name === 'db')?.startupProbe).toEqual(probe);
    expect(init.find((c) => c.name === 'broker')?.startupProbe).toEqual({ ...probe, tcpSocket: { port: 5672 } });
    expect(init.find((c) => c.name === 'cache')).not.toHaveProperty('startupProbe');
    expect(init.find((c) => c.name === 'port-15672')).toMatchObject({
      image: step.image,
      command: ['/bin/sh', '-c', PORT_GATE_SCRIPT],
      startupProbe: { ...probe, tcpSocket: { port: 15672 } },
    });
    expect(portGateOf(manifest, 'port-15672')).toEqual({ service: 'broker', port: 15672 });
    expect(portGateOf(manifest, 'db')).toBeUndefined();
    expect(init.filter(isServiceItself).map((c) => c.name)).toEqual(['db', 'broker', 'cache']);
  });

  it('defaults the grace to 2 minutes', () => {
    const plain = stepPodManifest({ buildId: 'b1', step: withServices, namespace: 'ci' });
    expect(plain.spec?.initContainers?.[0]?.startupProbe?.failureThreshold).toBe(120);
  });

  it('resolves each service name to localhost, as on GitLab', () => {
    expect(manifest.spec?.hostAliases).toEqual([{ ip: '127.0.0.1', hostnames: ['db', 'broker', 'cache'] }]);
    expect(stepPodManifest({ buildId: 'b1', step, namespace: 'ci' }).spec).not.toHaveProperty('hostAliases');
  });

  it('locks services down like steps, keeping what root-started images need to step down to their user', () => {
    const gate = init.find((c) => c.name === 'port-15672');
    expect(init.find((c) => c.name === 'db')?.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'], add: SERVICE_CAPABILITIES },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(gate?.securityContext?.capabilities).toEqual({ drop: ['ALL'] });
    const restricted = stepPodManifest({ buildId: 'b1', step: withServices, namespace: 'ci', runAsUser: 1000 });
    expect(restricted.spec?.initContainers?.[0]?.securityContext?.capabilities).toEqual({ drop: ['ALL'] });
  });

  it('has no container name a service could take: the pipeline refuses them', () => {
    for (const name of [STEP_CONTAINER, checkout.name, portGateContainerName(15672)]) expect(reservedServiceNameProblem(name)).toBeDefined();
  });
});

describe('placement beside the build\'s other pods', () => {
  const claimName = 'b1-workspace-0a1b2c3d';
  const db: Service = { name: 'db', image: 'postgres:16-alpine', imageRef: parseImageReference('postgres:16-alpine'), env: {}, ports: [5432], secrets: [], pull: 'if-not-present' };
  const affinityTo = { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { [Labels.workspace]: claimName } }, topologyKey: 'kubernetes.io/hostname' }] };
  const pinTo = (node: string) => ({ requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } });

  it.each<[string, Parameters<typeof stepPodManifest>[0], string | undefined]>([
    ['the first pod of the build, before its volume is on a node', { buildId: 'b1', step, namespace: 'ci', workspace: { claimName } }, undefined],
    ['a later pod, once a WaitForFirstConsumer volume has a node', { buildId: 'b1', step, namespace: 'ci', workspace: { claimName, node: 'ip-10-0-1-23.ec2.internal' } }, 'ip-10-0-1-23.ec2.internal'],
    ['a step with services', { buildId: 'b1', step: { ...step, services: [db] }, namespace: 'ci', workspace: { claimName } }, undefined],
    ['a step that runs after the build failed', { buildId: 'b1', step: { ...step, name: 'notify', when: { status: ['failure'] } }, namespace: 'ci', buildEnv: { CI_BUILD_STATUS: 'failure' }, workspace: { claimName } }, undefined],
    // Its node may be gone (a StepInterrupted retry, a redrive up to 24 h on): the pod affinity keeps it beside a live pod of the build, the volume's own affinity does the rest.
    ['a retry\'s pod', { buildId: 'b1', step, namespace: 'ci', workspace: { claimName, node: 'node-a' }, attempt: 1 }, undefined],
    ['a re-run\'s pod (a redrive)', { buildId: 'b1', step, namespace: 'ci', workspace: { claimName, node: 'node-a' }, redrive: 1 }, undefined],
    ['a re-run\'s retry', { buildId: 'b1', step, namespace: 'ci', workspace: { claimName, node: 'node-a' }, redrive: 2, attempt: 1 }, undefined],
    ['a pod whose extra labels try to name another workspace', { buildId: 'b1', step, namespace: 'ci', workspace: { claimName }, extraLabels: { [Labels.workspace]: 'other' } }, undefined],
  ])('%s carries the workspace label and the affinity to its other pods, a valid Pod', (_title, input, pinned) => {
    const manifest = stepPodManifest(input);
    expect(() => validate(manifest)).not.toThrow();
    expect(manifest.metadata?.labels?.[Labels.workspace]).toBe(claimName);
    expect(manifest.spec?.affinity?.podAffinity).toEqual(affinityTo);
    expect(manifest.spec?.affinity?.nodeAffinity).toEqual(pinned ? pinTo(pinned) : undefined);
  });

  it('leaves a pod with an ephemeral workspace, or none, free: it shares no volume', () => {
    for (const workspace of [{ ephemeral: true } as const, undefined]) {
      const manifest = stepPodManifest({ buildId: 'b1', step, namespace: 'ci', ...(workspace ? { workspace } : {}) });
      expect(manifest.metadata?.labels?.[Labels.workspace]).toBeUndefined();
      expect(manifest.spec?.affinity).toBeUndefined();
    }
  });
});
