/**
 * AWS secrets through the real definition on the embedded cluster, against moto's server
 * (Secrets Manager, SSM and STS written apart from ours): a step with `identity: deploy` gets a
 * Secrets Manager secret whole and one key of another's JSON, and an SSM SecureString decrypted,
 * each read with the identity's credentials, got as `run --identity` gets them (lib/local/pod-identity.ts):
 * a token bound to the step's gated pod, from the API server's TokenRequest, exchanged by the
 * cluster's EKS Auth stand-in for STS AssumeRole of the role with Pod Identity's session tags,
 * found through the standard endpoint variables. The pod is gated until the Secret exists, as the
 * watch's resourceVersions order it; what the step prints of the values is masked, and no value is
 * in the history, the summary or the stored log. A secret that does not exist ends the build
 * SecretUnavailable with moto's own words, its gated pod deleted unscheduled. A build
 * step pushing to ECR logs in with ECR's token, got from moto's ECR backend (GetAuthorizationToken)
 * with the same identity's credentials, into a Secret of the embedded API server.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api, Watch, type V1Pod, type V1Secret } from '@kubernetes/client-node';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { DOCKER_CONFIG_KEY, identityServiceAccountManifest, isGated, kubeStepCluster, SECRET_MASK, STEP_READINESS_GATE, stepAwsSecretName } from '../lib/kube/index.js';
import { Labels } from '../lib/kube/types.js';
import { decodeEcrAuth } from '../lib/registry/index.js';
import { stepRegistryLogin } from '../lib/workflow/registry-login.js';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalExecution, type ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { localIdentityCredentials, localPodIdentity } from '../lib/local/pod-identity.js';
import { stsIdentityCredentials } from '../lib/workflow/identity-credentials.js';
import type { IdentityCredentialsRequest } from '../lib/contract/aws-credentials.js';
import { MOTO_CREDENTIALS, MOTO_REGION, motoServerInstalled, startMotoServer, type MotoServer } from './fixtures/moto-server.js';
import { describeRequiring } from './fixtures/requirements.js';

const NAMESPACE = 'default';
const ROLE = 'arn:aws:iam::123456789012:role/step-runner-deploy';
const DB_PASSWORD = 'pa55-Zq8vX3pL9w';
const API_TOKEN = 'tok-Hk29sLq0VbN';
const SSM_KEY = 'ssm-Vb71qTz40Ke';
const VALUES = [DB_PASSWORD, API_TOKEN, SSM_KEY];

const pipeline = (secrets: string) => `version: 1
checkout: false
identity: deploy
steps:
  - name: show
    image: alpine:3.20
    commands:
      - echo "db=$DB_PASSWORD token=$API_TOKEN key=$SSM_KEY"
      # What the values are, in a form the mask does not hide, to check they arrived whole.
      - printf '%s|%s|%s' "$DB_PASSWORD" "$API_TOKEN" "$SSM_KEY" | od -An -tx1 | tr -d ' \\n'; echo
    secrets:
${secrets}`;

describeRequiring('AWS secrets, read with the step\'s identity, against moto', motoServerInstalled, () => {
  let moto: MotoServer;
  let cluster: EmbeddedCluster;
  let scratch: string;
  let kubeconfig: string;
  const savedEnv = { ...process.env };
  const asked: IdentityCredentialsRequest[] = [];

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'aws-secrets-'));
    moto = await startMotoServer();
    // The cluster plays EKS Pod Identity for the identity, assuming its role at moto's STS with moto's credentials, as `run --identity` does.
    const podIdentity = localPodIdentity([{ name: 'deploy', roleArn: ROLE }], NAMESPACE, stsIdentityCredentials({ base: async () => MOTO_CREDENTIALS, region: MOTO_REGION }));
    cluster = await startEmbeddedCluster({ workspace: path.join(scratch, 'cluster'), timings: FAST_TIMINGS, podIdentity });
    kubeconfig = path.join(scratch, 'kubeconfig');
    await writeFile(kubeconfig, cluster.kubeconfigYaml());
    // As `kubectl apply -f deploy/identities.yaml` does for a deployment (`run --identity` makes it locally).
    await kubeConfigFromFile(kubeconfig).makeApiClient(CoreV1Api).createNamespacedServiceAccount({ namespace: NAMESPACE, body: identityServiceAccountManifest('deploy', NAMESPACE) });
    const aws = { endpoint: moto.endpoint, region: MOTO_REGION, credentials: MOTO_CREDENTIALS };
    const secretsManager = new SecretsManagerClient(aws);
    await secretsManager.send(new CreateSecretCommand({ Name: 'prod/db', SecretString: JSON.stringify({ user: 'app', password: DB_PASSWORD }) }));
    await secretsManager.send(new CreateSecretCommand({ Name: 'prod/api-token', SecretString: API_TOKEN }));
    const ssm = new SSMClient(aws);
    await ssm.send(new PutParameterCommand({ Name: '/team/key', Value: SSM_KEY, Type: 'SecureString' }));
    secretsManager.destroy();
    ssm.destroy();
    // The runner finds moto as a user's shell would point any AWS SDK at it: the standard variables.
    Object.assign(process.env, { AWS_ENDPOINT_URL_SECRETS_MANAGER: moto.endpoint, AWS_ENDPOINT_URL_SSM: moto.endpoint, AWS_ENDPOINT_URL_STS: moto.endpoint, AWS_ENDPOINT_URL_ECR: moto.endpoint, AWS_REGION: MOTO_REGION });
  }, 60_000);

  afterAll(async () => {
    process.env = savedEnv;
    await Promise.all([moto?.stop(), cluster?.stop()]);
    await rm(scratch, { recursive: true, force: true });
  });

  /**
   * The identity's credentials as `run --identity` reads a step's AWS secrets: the pod-bound token
   * exchanged by the embedded cluster's EKS Auth (STS AssumeRole of the role with Pod Identity's
   * session tags, made with the user's own credentials, moto's, found through AWS_ENDPOINT_URL_STS).
   */
  function identityCredentials(request: IdentityCredentialsRequest) {
    asked.push(request);
    return localIdentityCredentials(cluster.assumeRoleForPodIdentity!)(request);
  }

  /** Every version of the namespace's pods and Secrets the API server sends a watch, in its resourceVersion order. */
  async function recordChanges() {
    const seen: { version: number; kind: 'pod' | 'secret'; type: string; object: V1Pod & V1Secret }[] = [];
    const watches = await Promise.all(
      (['pods', 'secrets'] as const).map((resource) =>
        new Watch(cluster.kubeConfig()).watch(`/api/v1/namespaces/${NAMESPACE}/${resource}`, {}, (type, object: V1Pod & V1Secret) => {
          seen.push({ version: Number(object.metadata?.resourceVersion), kind: resource === 'pods' ? 'pod' : 'secret', type, object });
        }, () => undefined),
      ),
    );
    return { changes: () => [...seen].sort((a, b) => a.version - b.version), stop: () => watches.forEach((watch) => watch.abort()) };
  }

  async function build(id: string, secrets: string) {
    const logsDir = path.join(scratch, `logs-${id}`);
    const local = localTaskRuntime({ kubeconfig, namespace: NAMESPACE, logsDir, settings: { identities: [{ name: 'deploy', roleArn: ROLE }] } });
    const runtime = { ...local, deps: { ...local.deps, identityCredentials } };
    const events: ExecutionEvent[] = [];
    const summary = await startLocalExecution(
      { build: { id, trigger: 'local run' }, pipeline: { file: 'p.yml', text: pipeline(secrets) }, withoutSource: 'this build reads AWS secrets, not a checkout' },
      { runtime, overrides: { waitMs: 50, retryMs: 10 }, onEvent: (event) => void events.push(event) },
    ).result;
    const files = await readdir(logsDir, { recursive: true, withFileTypes: true }).catch(() => []);
    const logs = (await Promise.all(files.filter((f) => f.isFile()).map((f) => readFile(path.join(f.parentPath, f.name), 'utf8')))).join('\n');
    return { summary, events, logs };
  }

  it('gives the step a secret whole, one key of a JSON secret and an SSM SecureString, masked, and as the step\'s identity, its pod gated until they are in its Secret', async () => {
    asked.length = 0;
    const watch = await recordChanges();
    const { summary, events, logs } = await build(
      'aws-secrets-1',
      `      - { env: DB_PASSWORD, aws-secret: prod/db, key: password }
      - { env: API_TOKEN, aws-secret: prod/api-token }
      - { env: SSM_KEY, ssm-parameter: /team/key }
`,
    );

    expect(summary).toMatchObject({ status: 'SUCCEEDED' });
    expect(logs).toContain(`db=${SECRET_MASK} token=${SECRET_MASK} key=${SECRET_MASK}`);
    expect(logs).toContain(Buffer.from(`${DB_PASSWORD}|${API_TOKEN}|${SSM_KEY}`).toString('hex'));
    expect(asked).toEqual([expect.objectContaining({ identity: 'deploy', serviceAccount: 'step-runner-id-deploy', namespace: NAMESPACE })]);
    // By resourceVersion: the pod made gated and unscheduled, then the Secret, then the gate removed, then the pod bound to the node.
    const changes = watch.changes();
    watch.stop();
    const pod = changes.filter((c) => c.kind === 'pod' && c.object.metadata?.labels?.[Labels.build] === 'aws-secrets-1');
    const made = pod.find((c) => c.type === 'ADDED')!;
    const secret = changes.find((c) => c.kind === 'secret' && c.type === 'ADDED' && c.object.metadata?.name === stepAwsSecretName('aws-secrets-1', 'show'))!;
    const ungated = pod.find((c) => !isGated(c.object))!;
    const scheduled = pod.find((c) => c.object.spec?.nodeName)!;
    expect({ gatedWhenMade: isGated(made.object), noNodeUntilUngated: pod.filter((c) => c.version < ungated.version).every((c) => !c.object.spec?.nodeName) }).toEqual({ gatedWhenMade: true, noNodeUntilUngated: true });
    expect([made.version < secret.version, secret.version < ungated.version, ungated.version <= scheduled.version]).toEqual([true, true, true]);
    for (const [where, text] of [['history', JSON.stringify(events)], ['summary', JSON.stringify(summary)], ['stored log', logs]] as const) {
      for (const value of VALUES) expect({ where, leaks: text.includes(value) }).toEqual({ where, leaks: false });
    }
  }, 30_000);

  it('ends the build SecretUnavailable, in moto\'s words, its gated pod deleted unscheduled, for a secret that does not exist', async () => {
    const watch = await recordChanges();
    const { summary, events } = await build('aws-secrets-2', '      - { env: API_TOKEN, aws-secret: prod/api-token }\n      - { env: DB_PASSWORD, aws-secret: prod/gone }\n');

    expect(summary).toMatchObject({ status: 'FAILED', error: 'SecretUnavailable' });
    expect(summary.cause).toContain('Step "show" could not read its DB_PASSWORD from the Secrets Manager secret prod/gone with the identity "deploy": ResourceNotFoundException: ');
    expect(summary.cause).toMatch(/can't find the specified secret/);
    expect(JSON.stringify(events)).not.toContain('PodCreated');
    expect(JSON.stringify(events)).not.toContain(API_TOKEN);
    const changes = watch.changes();
    watch.stop();
    const pod = changes.filter((c) => c.kind === 'pod' && c.object.metadata?.labels?.[Labels.build] === 'aws-secrets-2');
    expect({ types: [...new Set(pod.map((c) => c.type))], scheduled: pod.some((c) => c.object.spec?.nodeName), gated: pod.every((c) => isGated(c.object)) }).toEqual({ types: ['ADDED', 'DELETED'], scheduled: false, gated: true });
  }, 30_000);

  it("logs a build step in to ECR with the token ECR gives the identity (moto's GetAuthorizationToken), in a Secret the API server keeps", async () => {
    asked.length = 0;
    const api = kubeConfigFromFile(kubeconfig).makeApiClient(CoreV1Api);
    // The step's pod, as LaunchStep makes it gated, that its token is bound to.
    const gated = await api.createNamespacedPod({
      namespace: NAMESPACE,
      body: { metadata: { name: 'ecr-login-1-image' }, spec: { serviceAccountName: 'step-runner-id-deploy', schedulingGates: [{ name: STEP_READINESS_GATE }], containers: [{ name: 'c', image: 'alpine:3.20' }] } },
    });
    const pod = { name: 'ecr-login-1-image', uid: gated.metadata!.uid! };
    const lines: string[] = [];
    const host = '123456789012.dkr.ecr.us-east-1.amazonaws.com';
    const secret = await stepRegistryLogin({
      step: { name: 'image', identity: 'deploy', build: { context: '.', dockerfile: 'Dockerfile', buildArgs: {}, tags: [`${host}/team/app:1`], push: true, labels: {} } },
      buildId: 'ecr-login-1',
      namespace: NAMESPACE,
      pod,
      podToken: () => kubeStepCluster(async () => api).podIdentityToken(NAMESPACE, 'step-runner-id-deploy', pod),
      pullSecrets: [],
      identityCredentials,
      cluster: kubeStepCluster(async () => api),
      log: { info: (line: string) => void lines.push(line) },
    });

    expect(asked).toEqual([expect.objectContaining({ identity: 'deploy', serviceAccount: 'step-runner-id-deploy' })]);
    const stored = await api.readNamespacedSecret({ name: secret!, namespace: NAMESPACE });
    const config = JSON.parse(Buffer.from(stored.data![DOCKER_CONFIG_KEY]!, 'base64').toString()) as { auths: Record<string, { auth: string }> };
    // moto's ECR answers "AWS:<account>-auth-token" for the caller's account, base64, as ECR's user and password.
    expect({ type: stored.type, hosts: Object.keys(config.auths), login: decodeEcrAuth(config.auths[host]!.auth)?.username }).toEqual({ type: 'kubernetes.io/dockerconfigjson', hosts: [host], login: 'AWS' });
    expect(lines.join('\n')).not.toContain(config.auths[host]!.auth);
  }, 30_000);
});
