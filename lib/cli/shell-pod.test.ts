import type { V1Pod } from '@kubernetes/client-node';
import { Pod } from 'kubernetes-models/v1/Pod';
import { Annotations, CacheContainers, Labels, serviceContainerName, STEP_CONTAINER, stepPodManifest } from '../kube/index.js';
import { parseImageReference } from '../pipeline/index.js';
import type { Step } from '../pipeline/types.js';
import type { StepInput } from '../workflow/state-data.js';
import { failsForGood, HOLD_COMMAND, noShellBecause, ownWorkspace, SHELL_OF_ANNOTATION, shellPodCopy, shellPodName } from './shell-pod.js';

const checkout: Step = {
  name: 'clone',
  image: 'alpine/git:2.45.2',
  imageRef: parseImageReference('alpine/git:2.45.2'),
  commands: ['git clone'],
  env: {},
  pull: 'if-not-present',
  timeoutSeconds: 600,
  secrets: [],
};

const step: Step = {
  name: 'test',
  image: 'node:22-alpine',
  imageRef: parseImageReference('node:22-alpine'),
  commands: ['npm test'],
  env: { NODE_ENV: 'test' },
  pull: 'if-not-present',
  timeoutSeconds: 600,
  secrets: [{ env: 'TOKEN', secret: 'deploy', key: 'token' }],
  services: [{ name: 'db', image: 'postgres:16', imageRef: parseImageReference('postgres:16'), env: {}, ports: [5432], secrets: [], pull: 'if-not-present' }],
};

const cache = { image: 'curlimages/curl:8.11.1', secret: 'cache-urls', entries: [{ key: 'npm', paths: ['node_modules'], restore: [{ label: 'main', secretKey: 'r0' }], save: { secretKey: 's0' } }] };

/** The failed pod as the kubelet leaves it: on a node, the step's container terminated. */
function failed(manifest: V1Pod): V1Pod {
  return {
    ...manifest,
    metadata: { ...manifest.metadata, uid: 'u-1', resourceVersion: '7' },
    spec: { ...manifest.spec!, nodeName: 'node-1' },
    status: { phase: 'Failed', containerStatuses: [{ name: STEP_CONTAINER, image: step.image!, imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 3 } } }] },
  };
}

const onClaim = failed(stepPodManifest({ buildId: 'b-1', step, namespace: 'ci', workspace: { claimName: 'ws-b-1', node: 'node-1' }, cache, attempt: 1, retry: { left: 1, on: ['StepInterrupted'] } }));
const ownEmptyDir = failed(stepPodManifest({ buildId: 'b-1', step, namespace: 'ci', workspace: { ephemeral: true }, checkout, cache }));

describe('the copy of a failed pod the shell runs in', () => {
  test('a valid Pod by the Kubernetes schema, on the failed pod’s node, without its deadline', () => {
    const copy = shellPodCopy(onClaim);
    expect(() => new Pod(copy as ConstructorParameters<typeof Pod>[0]).validate()).not.toThrow();
    expect({ node: copy.spec?.nodeName, deadline: copy.spec?.activeDeadlineSeconds, status: copy.status, uid: copy.metadata?.uid }).toEqual({
      node: 'node-1',
      deadline: undefined,
      status: undefined,
      uid: undefined,
    });
  });

  test('the build’s pod to its cleanup, no step’s to WaitForNeeds or LaunchStep', () => {
    const { labels, annotations, name } = shellPodCopy(onClaim).metadata!;
    expect(name).toBe(`${onClaim.metadata!.name}-shell`);
    expect(labels?.[Labels.build]).toBe(onClaim.metadata!.labels![Labels.build]);
    expect(labels?.[Labels.managedBy]).toBeDefined();
    expect(labels?.[Labels.step]).toBeUndefined();
    expect(annotations?.[Annotations.build]).toBe('b-1');
    expect([Annotations.step, Annotations.attempt, Annotations.attemptsLeft, Annotations.retryOn].map((key) => annotations?.[key])).toEqual([undefined, undefined, undefined, undefined]);
    expect(annotations?.[SHELL_OF_ANNOTATION]).toBe('test');
  });

  test('the step’s container as it was (image, env, mounts), its command holding it open', () => {
    const original = onClaim.spec!.containers[0]!;
    const held = shellPodCopy(onClaim).spec!.containers[0]!;
    expect(held).toEqual({ ...original, command: HOLD_COMMAND });
  });

  const db = serviceContainerName(step.services![0]!);
  test.each([
    ['a claim: the services only, what the one-shot containers did is in the claim', onClaim, [db]],
    ['its own emptyDir: the checkout and the restore again, and the services', ownEmptyDir, ['clone', CacheContainers.restore, db]],
  ])('init containers, with %s (never the cache’s save)', (_, pod, names) => {
    expect(pod.spec!.initContainers!.map((c) => c.name)).toContain(CacheContainers.save);
    expect(shellPodCopy(pod).spec!.initContainers!.map((c) => c.name)).toEqual(names);
  });

  test.each([
    [onClaim, false],
    [ownEmptyDir, true],
  ])('whose workspace goes with the pod (%#)', (pod, own) => {
    expect(ownWorkspace(pod)).toBe(own);
  });

  test('a name that stays a valid hostname', () => {
    expect(shellPodName('a'.repeat(63))).toBe(`${'a'.repeat(57)}-shell`);
    expect(shellPodName(`${'a'.repeat(56)}-b`)).toBe(`${'a'.repeat(56)}-shell`);
  });
});

describe('which failed pod gets a shell', () => {
  test.each([
    ['gone', undefined, 'its pod is gone'],
    ['never on a node', { ...onClaim, spec: { ...onClaim.spec!, nodeName: undefined } }, 'its pod never got a node'],
    ['its image never pulled', { ...onClaim, status: { phase: 'Pending', containerStatuses: [{ name: STEP_CONTAINER, image: '', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff' } } }] } }, 'its commands never started'],
    ['its commands ran and failed', onClaim, undefined],
  ])('%s', (_, pod, why) => {
    expect(noShellBecause(pod as V1Pod | undefined)).toBe(why);
  });

  const input = (error: string, attempt: number, retry?: Step['retry']): StepInput =>
    ({
      build: { id: 'b-1' },
      namespace: 'ci',
      settings: { checkoutStep: 'clone' },
      step: { ...step, ...(retry ? { retry } : {}) },
      index: 1,
      attempt,
      poll: { phase: 'failed', podName: 'p', error },
    }) as unknown as StepInput;

  test.each([
    ['a failed command', input('StepFailed', 0), true],
    ['an interruption its retry covers, on the first attempt', input('StepInterrupted', 0), false],
    ['an interruption on the last attempt', input('StepInterrupted', 2), true],
    ['a failed command with retry on it', input('StepFailed', 0, { max: 1, on: ['StepFailed'] }), false],
  ])('for good: %s', (_, given, forGood) => {
    expect(failsForGood(given)).toBe(forGood);
  });
});
