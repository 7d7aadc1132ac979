/**
 * The step pod's scheduling gate and the token bound to it: the gated manifest (still a valid Pod
 * by the Kubernetes schema, its secretKeyRefs untouched), the gates a removal leaves, and the
 * TokenRequest body EKS Pod Identity needs (pod-bound, Pod Identity's audience, the shortest life).
 * That the embedded cluster keeps a gated pod unscheduled until the gate goes is
 * test/pending-timeout-builds.integration.test.ts's; the order LaunchStep keeps, lib/workflow/aws-secrets.test.ts's.
 */
import { Pod } from 'kubernetes-models/v1/Pod';
import type { V1Pod } from '@kubernetes/client-node';
import { parseImageReference, type Step } from '../pipeline/index.js';
import { stepPodManifest } from './pod-manifest.js';
import { gatesWithout, isGated, STEP_READINESS_GATE, withSchedulingGate } from './scheduling-gate.js';
import { POD_IDENTITY_AUDIENCE, podIdentityTokenRequest } from './pod-identity-token.js';

const step: Step = {
  name: 'ship',
  image: 'alpine:3.20',
  imageRef: parseImageReference('alpine:3.20'),
  commands: ['make'],
  env: {},
  pull: 'if-not-present',
  timeoutSeconds: 600,
  secrets: [{ env: 'DB_PASSWORD', secret: 'b-1-ship-aws', key: 'DB_PASSWORD' }],
  identity: 'deploy',
};

describe('the step pod gated until what its identity reads exists', () => {
  const manifest = stepPodManifest({ buildId: 'b-1', step, namespace: 'ci' });

  it('adds the runner\'s gate, once, to a pod that stays valid and keeps its secretKeyRefs', () => {
    const gated = withSchedulingGate(manifest);
    expect(gated.spec!.schedulingGates).toEqual([{ name: STEP_READINESS_GATE }]);
    expect(withSchedulingGate(gated)).toBe(gated);
    expect(() => new Pod(gated as never).validate()).not.toThrow();
    expect(gated.spec!.containers.find((c) => c.name === 'step')!.env).toContainEqual({ name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'b-1-ship-aws', key: 'DB_PASSWORD' } } });
    expect({ before: isGated(manifest), after: isGated(gated) }).toEqual({ before: false, after: true });
  });

  it.each<[string, string[], { name: string }[] | null]>([
    ['the runner\'s only', [STEP_READINESS_GATE], null],
    ['the runner\'s among another controller\'s, which stays', ['kueue.x-k8s.io/admission', STEP_READINESS_GATE], [{ name: 'kueue.x-k8s.io/admission' }]],
    ['none of the runner\'s', ['kueue.x-k8s.io/admission'], [{ name: 'kueue.x-k8s.io/admission' }]],
  ])('removing the gate from %s leaves what the patch writes', (_name, gates, left) => {
    const pod: V1Pod = { ...manifest, spec: { ...manifest.spec!, schedulingGates: gates.map((name) => ({ name })) } };
    expect(gatesWithout(pod)).toEqual(left);
  });
});

it('asks a token bound to the pod by name and uid, for Pod Identity\'s audience, for the shortest time the API server gives', () => {
  expect(podIdentityTokenRequest({ name: 'b-1-ship-abc', uid: '5f0c-11' })).toEqual({
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { audiences: [POD_IDENTITY_AUDIENCE], expirationSeconds: 600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'b-1-ship-abc', uid: '5f0c-11' } },
  });
  expect(POD_IDENTITY_AUDIENCE).toBe('pods.eks.amazonaws.com');
});
