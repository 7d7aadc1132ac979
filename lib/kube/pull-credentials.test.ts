/**
 * A pull refused for credentials (401/403 and their wordings) makes the ImagePullFailed Cause say
 * what to check: the pod's pull secrets by name (or that it has none), or for ECR the node role's
 * permissions. Judged on real runtime and registry wording (test/fixtures/kube/pull-messages.ts).
 */
import { pullMessages } from '../../test/fixtures/kube/pull-messages.js';
import { observe, podEvent, stepPod, waiting } from '../../test/fixtures/kube/builders.js';
import { MAX_CAUSE_LENGTH, pullCredentialsHint } from './cause.js';
import { classifyStep } from './classify.js';
import { isAuthPullFailure } from './image-pull.js';

describe('isAuthPullFailure on real runtime wording', () => {
  it.each(pullMessages.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(isAuthPullFailure(c.message, c.image)).toBe(c.auth === true);
  });

  it.each([
    ['a rate limit on the token endpoint, 401-looking', 'failed to authorize: failed to fetch oauth token: unexpected status: 429 Too Many Requests: unauthorized', undefined],
    ['an image whose name says unauthorized', 'failed to resolve reference "ghcr.io/acme/unauthorized:1": ghcr.io/acme/unauthorized:1: not found', 'ghcr.io/acme/unauthorized:1'],
    ['a digest holding 401 and 403', 'content at https://ghcr.io/v2/acme/manifests/sha256:401403aa not found: not found', undefined],
  ])('is not for %s', (_name, message, image) => {
    expect(isAuthPullFailure(message, image)).toBe(false);
  });
});

describe('pullCredentialsHint', () => {
  it.each([
    [
      'an ECR image: the node role',
      '602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/aws-efs-csi-driver:v1.0.0',
      [],
      /the node's IAM role, which needs ecr:GetAuthorizationToken, ecr:BatchGetImage and ecr:GetDownloadUrlForLayer .*account 602401143452, region us-west-2/,
    ],
    ['an ECR FIPS image', '123456789012.dkr.ecr-fips.us-east-1.amazonaws.com/app:1', ['regcred'], /node's IAM role/],
    ['pull secrets, by name', 'ghcr.io/acme/app:1', ['regcred', 'ghcr-login'], /the pod's pull secrets "regcred", "ghcr-login" in namespace "ci": .*a login for ghcr\.io/],
    ['no pull secrets', 'acme/private:2', [], /the pod has no pull secrets\. If the image is private, create a kubernetes\.io\/dockerconfigjson Secret with a login for docker\.io in namespace "ci" and name it in the pipeline's "pull-secrets"/],
  ])('%s', (_name, image, pullSecrets, expected) => {
    const hint = pullCredentialsHint(image, { pullSecrets, namespace: 'ci' });
    expect(hint).toMatch(/^What to check: /);
    expect(hint).not.toContain('\n');
    expect(hint).toMatch(expected);
  });
});

describe('the ImagePullFailed Cause of a refused pull', () => {
  const failedPull = (image: string, message: string, pullSecrets: string[] = []) => {
    const pod = stepPod({ image, state: waiting('ErrImagePull', message), startedAt: 0 });
    if (pullSecrets.length > 0) pod.spec!.imagePullSecrets = pullSecrets.map((name) => ({ name }));
    return classifyStep(observe(pod, [podEvent(pod, { reason: 'Failed', message, first: 2 })], 5), { step: 'build', image });
  };

  it('names the pod\'s pull secrets on a line of its own after the registry\'s words', () => {
    const c = pullMessages.find((m) => m.name === 'CRI-O: quay.io unauthorized')!;
    const status = failedPull(c.image, c.message, ['quay-login']);
    expect(status).toMatchObject({ phase: 'failed', error: 'ImagePullFailed' });
    const [paragraph, hint, ...more] = (status as { cause: string }).cause.split('\n');
    expect(paragraph).toContain('The registry said: reading manifest 4.2.6 in quay.io/wazuh/wazuh-kibana-odfe: unauthorized');
    expect(hint).toBe(
      'What to check: the pod\'s pull secrets "quay-login" in namespace "ci": each must exist as a kubernetes.io/dockerconfigjson Secret, and one must hold a login for docker.io that may pull this image.',
    );
    expect(more).toEqual([]);
  });

  it('says the pod has none when it names none', () => {
    const c = pullMessages.find((m) => m.name === 'containerd: 403 Forbidden on the manifest HEAD')!;
    const cause = (failedPull(c.image, c.message) as { cause: string }).cause;
    expect(cause).toContain('403 Forbidden.\nWhat to check: the pod has no pull secrets.');
    expect(cause).toContain('a login for k8s.m.daocloud.io');
  });

  it('points at the node role for ECR, once the grace period of words it does not know is over', () => {
    const c = pullMessages.find((m) => m.name.startsWith('dockershim: ECR without a login'))!;
    const pending = failedPull(c.image, c.message);
    expect(pending.phase).toBe('pending');
    const pod = stepPod({ image: c.image, state: waiting('ImagePullBackOff', c.message), startedAt: 0 });
    const status = classifyStep(observe(pod, [podEvent(pod, { reason: 'Failed', message: c.message, first: 2, last: 70, count: 4 })], 75), { step: 'build', image: c.image });
    expect(status).toMatchObject({ phase: 'failed', error: 'ImagePullFailed' });
    const cause = (status as { cause: string }).cause;
    expect(cause).toMatch(/pulling kept failing for 73 s \(grace period 60 s\)/);
    expect(cause.split('\n')[1]).toMatch(/^What to check: ECR images are pulled with the node's IAM role/);
  });

  it('adds nothing to a pull that failed for another reason', () => {
    const c = pullMessages.find((m) => m.name === 'dockershim: manifest for tag not found')!;
    const cause = (failedPull(c.image, c.message, ['regcred']) as { cause: string }).cause;
    expect(cause).not.toContain('\n');
    expect(cause).not.toContain('What to check');
  });

  it('stays within the Cause limit, giving way in the registry\'s words', () => {
    const long = `Failed to pull image "ghcr.io/acme/app:1": rpc error: code = Unknown desc = denied: ${'x'.repeat(3000)} unauthorized`;
    const cause = (failedPull('ghcr.io/acme/app:1', long, ['a', 'b']) as { cause: string }).cause;
    expect(cause.length).toBeLessThanOrEqual(MAX_CAUSE_LENGTH);
    expect(cause).toMatch(/\nWhat to check: the pod's pull secrets "a", "b"/);
  });
});
