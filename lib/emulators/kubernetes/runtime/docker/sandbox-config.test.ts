/** The pod sandbox container: its image, hostname, /etc/hosts lines, network and labels. */
import type { Pod } from '../../objects.js';
import { extraHosts, sandboxCreateOptions, sandboxHostname, SANDBOX_MEMORY_BYTES } from './sandbox-config.js';

const pod: Pod = { metadata: { name: 'build-7-step', namespace: 'ci', uid: 'u-1', labels: { 'step-runner.dev/build': 'b-7' } }, spec: { containers: [] } };

describe('sandboxCreateOptions', () => {
  it('runs the sandbox image on the network, shareable, named and labelled as dockershim did', () => {
    const options = sandboxCreateOptions(
      { pod, hostname: 'build-7-step', hostAliases: [{ ip: '10.0.0.5', hostnames: ['db', 'db.local'] }] },
      { image: 'test/sandbox:1', network: 'step-runner', owner: { hostname: 'laptop', pid: 7, clusterId: 'c1' } },
    );
    expect(options).toEqual({
      name: 'k8s_POD_build-7-step_ci_u-1_0',
      Image: 'test/sandbox:1',
      Hostname: 'build-7-step',
      Labels: {
        'io.kubernetes.pod.name': 'build-7-step',
        'io.kubernetes.pod.namespace': 'ci',
        'io.kubernetes.pod.uid': 'u-1',
        'io.kubernetes.container.name': 'POD',
        'io.kubernetes.docker.type': 'podsandbox',
        'step-runner.dev/embedded-cluster': 'laptop:7',
        'step-runner.dev/embedded-cluster-id': 'c1',
        'step-runner.dev/build': 'b-7',
      },
      AttachStdout: false,
      AttachStderr: false,
      Tty: false,
      HostConfig: {
        NetworkMode: 'step-runner',
        IpcMode: 'shareable',
        ExtraHosts: ['db:10.0.0.5', 'db.local:10.0.0.5'],
        Memory: SANDBOX_MEMORY_BYTES,
        MemorySwap: SANDBOX_MEMORY_BYTES,
        AutoRemove: false,
        Privileged: false,
      },
    });
  });
});

describe('sandboxHostname', () => {
  it.each([
    ['short', 'step', 'step'],
    ['63 characters', 'a'.repeat(63), 'a'.repeat(63)],
    ['longer: cut at 63', 'b'.repeat(70), 'b'.repeat(63)],
    ['cut leaving a trailing dash or dot', `${'c'.repeat(61)}-.x${'d'.repeat(5)}`, 'c'.repeat(61)],
  ])('%s', (_name, name, expected) => {
    expect(sandboxHostname(name)).toBe(expected);
  });
});

describe('extraHosts', () => {
  it('is one name:ip per hostname, in order', () => {
    expect(extraHosts([{ ip: '1.2.3.4', hostnames: ['a', 'b'] }, { ip: 'fd00::1', hostnames: ['c'] }])).toEqual(['a:1.2.3.4', 'b:1.2.3.4', 'c:fd00::1']);
    expect(extraHosts([])).toEqual([]);
  });
});
