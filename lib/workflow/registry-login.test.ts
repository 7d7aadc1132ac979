/**
 * A build step's ECR login from its identity, on the in-memory cluster: the Secret its builder
 * reads (ECR's token as the registry's `auth`, over the first pull secret's other logins), the
 * token in no log line and no pod spec, no login for a step that needs none, and ImagePushFailed
 * naming the identity, the repositories and AWS's words when the identity may not log in. ECR's
 * own answer is held to moto's in test/aws-secrets-builds.integration.test.ts.
 */
import type { IdentityCredentialsRequest } from '../contract/aws-credentials.js';
import { fakeStepCluster, objectKey } from '../kube/fake-cluster.js';
import { DOCKER_CONFIG_KEY, stepPodManifest, stepRegistryLoginName } from '../kube/index.js';
import { DEFAULT_BUILDER_IMAGE, parseImageReference, type Step, type StepBuild } from '../pipeline/index.js';
import type { EcrLoginOptions } from '../registry/index.js';
import { ecrLoginRegistries, stepRegistryLogin } from './registry-login.js';

const EU = '123456789012.dkr.ecr.eu-west-1.amazonaws.com';
const US = '210987654321.dkr.ecr.us-east-1.amazonaws.com';
// base64("AWS:eu-password") and base64("AWS:us-password"), as GetAuthorizationToken answers.
const TOKENS: Record<string, string> = { 'eu-west-1': Buffer.from('AWS:eu-password').toString('base64'), 'us-east-1': Buffer.from('AWS:us-password').toString('base64') };

const build = (over: Partial<StepBuild> = {}): StepBuild => ({ context: '.', dockerfile: 'Dockerfile', buildArgs: {}, tags: [`${EU}/team/app:1.4`, 'ghcr.io/org/app:1.4', `${US}/mirror/app:1.4`], push: true, labels: {}, ...over });
const step = (over: Partial<Step> = {}): Step => ({
  name: 'image',
  image: DEFAULT_BUILDER_IMAGE,
  imageRef: parseImageReference(DEFAULT_BUILDER_IMAGE),
  commands: [],
  env: {},
  pull: 'if-not-present',
  timeoutSeconds: 600,
  secrets: [],
  identity: 'deploy',
  build: build(),
  ...over,
});

describe('ecrLoginRegistries', () => {
  it.each([
    ['the ECR tags of a step with an identity', step(), [EU, US]],
    ['its cache too, even when it only builds', step({ build: build({ push: false, cache: { repository: `${EU}/team/cache`, write: false } }) }), [EU]],
    ['none without an identity (its pull secrets log it in)', step({ identity: undefined }), []],
    ['none for a registry that is not ECR', step({ build: build({ tags: ['ghcr.io/org/app:1'] }) }), []],
    ['none for a run step', step({ build: undefined }), []],
  ])('%s', (_, given, hosts) => {
    expect(ecrLoginRegistries(given).map((registry) => registry.host)).toEqual(hosts);
  });
});

describe('stepRegistryLogin', () => {
  const asked: IdentityCredentialsRequest[] = [];
  const regions: string[] = [];
  const identityCredentials = (request: IdentityCredentialsRequest) => (asked.push(request), async () => ({ accessKeyId: 'ASIA-deploy', secretAccessKey: 's', sessionToken: 't' }));
  const authorize = async ({ region, credentials }: EcrLoginOptions) => {
    regions.push(`${region} as ${(await credentials()).accessKeyId}`);
    return { auth: TOKENS[region]!, expiresAt: new Date('2026-03-14T22:00:00Z') };
  };
  const login = (cluster: ReturnType<typeof fakeStepCluster>, given: Step, lines: string[] = [], options: { pullSecrets?: string[]; authorize?: typeof authorize } = {}) =>
    stepRegistryLogin({
      step: given,
      buildId: 'b-1',
      namespace: 'ci',
      pod: { name: 'b-1-image-abc', uid: 'u-1' },
      podToken: async () => 'token',
      pullSecrets: options.pullSecrets ?? [],
      identityCredentials,
      cluster,
      log: { info: (line: string) => void lines.push(line) },
      authorize: options.authorize ?? authorize,
    });

  it("gives the builder ECR's token for each registry, over the first pull secret's logins, with no token in the pod spec or the log", async () => {
    const cluster = fakeStepCluster();
    cluster.put('secret', { metadata: { name: 'ghcr-login', namespace: 'ci' }, type: 'kubernetes.io/dockerconfigjson', data: { [DOCKER_CONFIG_KEY]: Buffer.from(JSON.stringify({ auths: { 'ghcr.io': { auth: 'Z2g6cGF0' } } })).toString('base64') } });
    const lines: string[] = [];
    asked.length = 0;
    regions.length = 0;
    const secret = await login(cluster, step(), lines, { pullSecrets: ['ghcr-login', 'other'] });

    expect(secret).toBe(stepRegistryLoginName('b-1', 'image'));
    expect(asked).toEqual([{ identity: 'deploy', serviceAccount: 'step-runner-id-deploy', namespace: 'ci', podName: 'b-1-image-abc', podUid: 'u-1', podToken: expect.any(Function) }]);
    expect(regions).toEqual(['eu-west-1 as ASIA-deploy', 'us-east-1 as ASIA-deploy']);
    const stored = cluster.secrets.get(objectKey('ci', secret!))!;
    expect(stored.type).toBe('kubernetes.io/dockerconfigjson');
    expect(JSON.parse(Buffer.from(stored.data![DOCKER_CONFIG_KEY]!, 'base64').toString())).toEqual({
      auths: { 'ghcr.io': { auth: 'Z2g6cGF0' }, [EU]: { auth: TOKENS['eu-west-1'] }, [US]: { auth: TOKENS['us-east-1'] } },
    });
    expect(lines).toEqual([`Step "image": logged in to ECR ${EU}, ${US} as the identity "deploy" (valid until 2026-03-14T22:00:00.000Z), over pull secret ghcr-login's logins, in secret ${secret}`]);

    // The builder reads this Secret where it would have read the first pull secret.
    const pod = stepPodManifest({ buildId: 'b-1', step: step(), namespace: 'ci', pullSecrets: ['ghcr-login', 'other'], registryLogin: secret! });
    expect(pod.spec!.volumes).toContainEqual({ name: 'step-runner-registry-auth', secret: { secretName: secret, items: [{ key: DOCKER_CONFIG_KEY, path: 'auth.json' }] } });
    expect(pod.spec!.imagePullSecrets).toEqual([{ name: 'ghcr-login' }, { name: 'other' }]);
    const told = JSON.stringify(pod) + lines.join('\n');
    for (const token of [...Object.values(TOKENS), 'eu-password', 'us-password']) expect(told).not.toContain(token);
  });

  it('makes nothing for a step that needs no login', async () => {
    const cluster = fakeStepCluster();
    expect(await login(cluster, step({ identity: undefined }))).toBeUndefined();
    expect(await login(cluster, step({ build: build({ tags: ['ghcr.io/org/app:1'] }) }))).toBeUndefined();
    expect(cluster.secrets.size).toBe(0);
  });

  it("fails ImagePushFailed naming the identity, the repositories and AWS's words when the identity may not log in, before any Secret", async () => {
    const cluster = fakeStepCluster();
    const denied = async () => {
      throw Object.assign(new Error('User: arn:aws:sts::123456789012:assumed-role/ci-deploy/eks-ci-b-1-image is not authorized to perform: ecr:GetAuthorizationToken on resource: * because no identity-based policy allows the ecr:GetAuthorizationToken action'), { name: 'AccessDeniedException' });
    };
    const failure = await login(cluster, step(), [], { authorize: denied }).catch((error: unknown) => error as Error);
    expect(failure).toMatchObject({ name: 'ImagePushFailed' });
    expect((failure as Error).message).toBe(
      `Step "image" could not log in to ECR as the identity "deploy" to push team/app in ${EU}: GetAuthorizationToken in eu-west-1: AccessDeniedException: User: arn:aws:sts::123456789012:assumed-role/ci-deploy/eks-ci-b-1-image is not authorized to perform: ecr:GetAuthorizationToken on resource: * because no identity-based policy allows the ecr:GetAuthorizationToken action. ` +
        `The identity's role needs ecr:GetAuthorizationToken, ecr:BatchCheckLayerAvailability, ecr:InitiateLayerUpload, ecr:UploadLayerPart, ecr:CompleteLayerUpload, ecr:PutImage, ecr:BatchGetImage, ecr:GetDownloadUrlForLayer on the repositories (GetAuthorizationToken on "*").`,
    );
    expect(cluster.secrets.size).toBe(0);
  });

  it('fails ImagePushFailed when the runner has no way to get the identity\'s credentials', async () => {
    await expect(
      stepRegistryLogin({ step: step(), buildId: 'b-1', namespace: 'ci', pod: { name: 'p', uid: 'u' }, podToken: async () => 'token', pullSecrets: [], identityCredentials: undefined, cluster: fakeStepCluster(), log: { info: () => undefined } }),
    ).rejects.toMatchObject({ name: 'ImagePushFailed', message: expect.stringContaining('cannot get credentials for the identity "deploy"') });
  });
});
