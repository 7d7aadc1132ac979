/** A pod's container as the Docker Engine API creates it, field by field, from real pod objects. */
import type { Container, Pod } from '../../objects.js';
import type { ContainerConfigInput } from './container-config.js';
import { UnsupportedContainerConfigError, containerCreateOptions } from './container-config.js';

const OWNER = { hostname: 'laptop', pid: 4242 };
const SANDBOX = 'f00d'.repeat(16);

function pod(container: Partial<Container> = {}, spec: Partial<Pod['spec']> = {}, labels: Record<string, string> = {}): Pod {
  return {
    metadata: { name: 'build-7-step', namespace: 'ci', uid: '0b1c-uid', labels },
    spec: { containers: [{ name: 'step', image: 'alpine:3.20', ...container }], ...spec },
  };
}

function input(p: Pod, extra: Partial<ContainerConfigInput> = {}): ContainerConfigInput {
  return {
    pod: p,
    container: p.spec.containers[0]!,
    image: { imageID: 'docker://sha256:abc', size: 1, config: { user: '' } },
    argv: ['/bin/sh', '-c', 'echo hi'],
    env: {},
    mounts: [],
    ...extra,
  };
}

const options = (i: ContainerConfigInput) => containerCreateOptions(i, SANDBOX, OWNER);

describe('containerCreateOptions', () => {
  it('gives the argv whole to Entrypoint with an empty Cmd, and joins the sandbox namespaces', () => {
    const created = options(input(pod(), { env: { A: '1', B: 'x=y' } }));
    expect(created).toMatchObject({
      name: 'k8s_step_build-7-step_ci_0b1c-uid_0',
      Image: 'alpine:3.20',
      Entrypoint: ['/bin/sh', '-c', 'echo hi'],
      Cmd: [],
      Env: ['A=1', 'B=x=y'],
      Tty: false,
      HostConfig: { NetworkMode: `container:${SANDBOX}`, IpcMode: `container:${SANDBOX}`, Privileged: false, ReadonlyRootfs: false, Binds: [] },
    });
    // No hostname of its own (the sandbox's), no working directory or user unless the pod says.
    expect(created).not.toHaveProperty('Hostname');
    expect(created).not.toHaveProperty('WorkingDir');
    expect(created).not.toHaveProperty('User');
    expect(created.Env).not.toContainEqual(expect.stringMatching(/^HOSTNAME=/));
  });

  it('labels the container with its pod, its sandbox, the build and the owning process', () => {
    expect(options(input(pod({}, {}, { 'step-runner.dev/build': 'b-42', other: 'x' }))).Labels).toEqual({
      'io.kubernetes.pod.name': 'build-7-step',
      'io.kubernetes.pod.namespace': 'ci',
      'io.kubernetes.pod.uid': '0b1c-uid',
      'io.kubernetes.container.name': 'step',
      'io.kubernetes.docker.type': 'container',
      'io.kubernetes.sandbox.id': SANDBOX,
      'step-runner.dev/embedded-cluster': 'laptop:4242',
      'step-runner.dev/build': 'b-42',
    });
  });

  it('names a later attempt apart, so it can be created before the last one is removed', () => {
    expect(containerCreateOptions(input(pod()), SANDBOX, OWNER, 2).name).toBe('k8s_step_build-7-step_ci_0b1c-uid_2');
  });

  type Case = [string, Pod, Partial<ContainerConfigInput>, Record<string, unknown>];
  const cases: Case[] = [
    ['workingDir', pod({ workingDir: '/src' }), {}, { WorkingDir: '/src' }],
    [
      'mounts as binds',
      pod(),
      { mounts: [{ containerPath: '/workspace', hostPath: '/var/lib/node/pods/u/volumes/ws', readOnly: false }, { containerPath: '/etc/secret', hostPath: '/node/s', readOnly: true }] },
      { HostConfig: expect.objectContaining({ Binds: ['/var/lib/node/pods/u/volumes/ws:/workspace', '/node/s:/etc/secret:ro'] }) },
    ],
    ['readOnlyRootFilesystem', pod({ securityContext: { readOnlyRootFilesystem: true } }), {}, { HostConfig: expect.objectContaining({ ReadonlyRootfs: true }) }],
    ['runAsUser and runAsGroup of the pod', pod({}, { securityContext: { runAsUser: 1000, runAsGroup: 3000 } }), {}, { User: '1000:3000' }],
    ['the container runAsUser over the pod one', pod({ securityContext: { runAsUser: 2000 } }, { securityContext: { runAsUser: 1000, runAsGroup: 3000 } }), {}, { User: '2000:3000' }],
    ['runAsGroup alone keeps the image user', pod({ securityContext: { runAsGroup: 5 } }), { image: { imageID: 'x', size: 1, config: { user: 'app:app' } } }, { User: 'app:5' }],
    ['runAsGroup alone over a root image', pod({ securityContext: { runAsGroup: 5 } }), {}, { User: '0:5' }],
    ['fsGroup and supplementalGroups', pod({}, { securityContext: { fsGroup: 2000, supplementalGroups: [4000, 2000] } }), {}, { HostConfig: expect.objectContaining({ GroupAdd: ['2000', '4000'] }) }],
    [
      'capabilities as Kubernetes names them',
      pod({ securityContext: { capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } } }),
      {},
      { HostConfig: expect.objectContaining({ CapDrop: ['ALL'], CapAdd: ['NET_BIND_SERVICE'] }) },
    ],
    [
      'allowPrivilegeEscalation false and RuntimeDefault seccomp',
      pod({ securityContext: { allowPrivilegeEscalation: false, seccompProfile: { type: 'RuntimeDefault' } } }),
      {},
      { HostConfig: expect.objectContaining({ SecurityOpt: ['no-new-privileges'] }) },
    ],
    ['seccomp unset is unconfined, as the kubelet runs it', pod(), {}, { HostConfig: expect.objectContaining({ SecurityOpt: ['seccomp=unconfined'] }) }],
    ['the pod seccomp profile applies', pod({}, { securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }), {}, { HostConfig: expect.not.objectContaining({ SecurityOpt: expect.anything() }) }],
    [
      'memory and cpu limits, no swap',
      pod({ resources: { limits: { memory: '64Mi', cpu: '500m' }, requests: { memory: '32Mi' } } }),
      {},
      { HostConfig: expect.objectContaining({ Memory: 64 * 2 ** 20, MemorySwap: 64 * 2 ** 20, NanoCpus: 500_000_000 }) },
    ],
    ['a fractional memory limit rounds up', pod({ resources: { limits: { memory: '1.5k' } } }), {}, { HostConfig: expect.objectContaining({ Memory: 1500 }) }],
    ['no limits, no bounds', pod({ resources: { requests: { cpu: '1' } } }), {}, { HostConfig: expect.not.objectContaining({ Memory: expect.anything(), NanoCpus: expect.anything() }) }],
  ];

  it.each(cases)('%s', (_name, p, extra, expected) => {
    expect(options(input(p, extra))).toMatchObject(expected);
  });

  it('is never privileged, whatever the pod asks', () => {
    expect(options(input(pod({ securityContext: { privileged: true } }))).HostConfig?.Privileged).toBe(false);
  });

  it.each([
    ['a Localhost seccomp profile', pod({ securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/audit.json' } } }), '"localhost/profiles/audit.json"'],
    ['an unknown seccomp type', pod({}, { securityContext: { seccompProfile: { type: 'Strict' } } }), '"Strict"'],
    ['a memory limit that is no quantity', pod({ resources: { limits: { memory: 'lots' } } }), '"lots"'],
  ])('refuses %s, naming it', (_name, p, named) => {
    expect(() => options(input(p))).toThrow(UnsupportedContainerConfigError);
    expect(() => options(input(p))).toThrow(named);
  });
});
