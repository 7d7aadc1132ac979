/**
 * EKS Pod Identity on the embedded cluster, against moto's STS: a step with `identity: deploy`
 * finds AWS_CONTAINER_CREDENTIALS_FULL_URI and AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE as EKS sets
 * them, and the agent behind the URI answers the credentials of STS AssumeRole of the identity's
 * role, made with this machine's credentials (moto's), through AWS_ENDPOINT_URL_STS; moto says whose
 * they are (GetCallerIdentity: the assumed role). A step without an identity gets none of it.
 * Builds go through the real definition, on both runtimes; on the process runtime the step's own
 * AWS CLI finds the credentials (botocore's container provider: its address allow-list, the token
 * file), and the agent's refusals are read where a pod would call it.
 */
import { execFile } from 'node:child_process';
import { get as httpGet } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api } from '@kubernetes/client-node';
import { FAST_TIMINGS, startEmbeddedCluster, type ClusterRuntime, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalExecution } from '../lib/emulators/stepfunctions/executor.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { localPodIdentity } from '../lib/local/pod-identity.js';
import { ensureIdentityAccounts } from '../lib/cli/identity-accounts.js';
import { runBuild } from '../lib/cli/commands/run.js';
import { stsIdentityCredentials } from '../lib/workflow/identity-credentials.js';
import { stepLogName } from '../lib/workflow/step-log-store.js';
import { dockerSocket } from './fixtures/docker/engine-api.js';
import { startTestImages, testImagesBuildable, type TestImages } from './fixtures/docker/test-images.js';
import { motoServerInstalled, startMotoServer, type MotoServer } from './fixtures/moto-server.js';
import { describeRequiring } from './fixtures/requirements.js';
import { waitFor } from './fixtures/wait-for.js';

const run = promisify(execFile);
const NAMESPACE = 'default';
const ACCOUNT = '123456789012';
const identities = [
  { name: 'deploy', roleArn: `arn:aws:iam::${ACCOUNT}:role/deploy` },
  { name: 'other', roleArn: `arn:aws:iam::${ACCOUNT}:role/other` },
];
/** What the agent's base credentials and the host's AWS CLI read; put back after the file. */
const AWS_ENV = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_ENDPOINT_URL_STS', 'AWS_PROFILE', 'AWS_CONFIG_FILE', 'AWS_SHARED_CREDENTIALS_FILE', 'AWS_EC2_METADATA_DISABLED'];
const saved = Object.fromEntries(AWS_ENV.map((name) => [name, process.env[name]]));
afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** Whose credentials these are, as moto's STS says (the host's AWS CLI, GetCallerIdentity). */
async function callerArn(endpoint: string, credentials: { AccessKeyId: string; SecretAccessKey: string; Token: string }): Promise<string> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, AWS_ACCESS_KEY_ID: credentials.AccessKeyId, AWS_SECRET_ACCESS_KEY: credentials.SecretAccessKey, AWS_SESSION_TOKEN: credentials.Token, AWS_DEFAULT_REGION: 'us-east-1', AWS_ENDPOINT_URL_STS: endpoint };
  return (await run('aws', ['sts', 'get-caller-identity', '--query', 'Arn', '--output', 'text'], { env })).stdout.trim();
}

describeRequiring('EKS Pod Identity on the embedded cluster', motoServerInstalled, () => {
  let moto: MotoServer;
  beforeAll(async () => {
    moto = await startMotoServer();
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL_STS: moto.endpoint });
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
  }, 60_000);
  afterAll(() => moto?.stop());

  const onRuntime = (kind: 'process' | 'docker') => {
    let cluster: EmbeddedCluster;
    let scratch: string;
    let kubeconfig: string;
    let api: CoreV1Api;
    let images: TestImages | undefined;
    beforeAll(async () => {
      scratch = await mkdtemp(path.join(tmpdir(), 'pod-identity-'));
      let runtime: ClusterRuntime = { kind: 'process' };
      if (kind === 'docker') {
        images = await startTestImages();
        runtime = { kind: 'docker', socketPath: dockerSocket(), sandboxImage: images.sandbox, helperImage: images.busybox };
      }
      cluster = await startEmbeddedCluster({ workspace: scratch, timings: FAST_TIMINGS, runtime, podIdentity: localPodIdentity(identities, NAMESPACE, stsIdentityCredentials()) });
      kubeconfig = path.join(scratch, 'kubeconfig');
      await writeFile(kubeconfig, cluster.kubeconfigYaml());
      api = cluster.kubeConfig().makeApiClient(CoreV1Api);
      await ensureIdentityAccounts(api, NAMESPACE, identities);
    }, 120_000);
    afterAll(async () => {
      await cluster?.stop();
      await images?.stop();
      await rm(scratch, { recursive: true, force: true });
    });

    it('gives a step with an identity the role its credentials endpoint answers, and a step without one nothing', async () => {
      const image = kind === 'docker' ? images!.curl : 'alpine:3.20';
      const fetch = 'curl -sS -H "Authorization: $(cat "$AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")" "$AWS_CONTAINER_CREDENTIALS_FULL_URI"; echo';
      // The process runtime's step runs this machine's AWS CLI, which finds the endpoint itself.
      const cli = kind === 'process' ? [`AWS_DEFAULT_REGION=us-east-1 AWS_ENDPOINT_URL_STS=${moto.endpoint} aws sts get-caller-identity --query Arn --output text`] : [];
      const commands = (list: string[]) => list.map((c) => `      - ${JSON.stringify(c)}\n`).join('');
      const pipeline =
        `version: 1\nsteps:\n  - name: ship\n    image: ${image}\n    identity: deploy\n    commands:\n${commands(['echo "uri=$AWS_CONTAINER_CREDENTIALS_FULL_URI file=$AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"', fetch, ...cli])}` +
        `  - name: test\n    image: ${image}\n    commands:\n${commands(['env | grep "^AWS_CONTAINER" || echo "no AWS_CONTAINER variables"'])}`;
      const id = `identity-${kind}-${Date.now().toString(36)}`;
      const logsDir = path.join(scratch, 'logs');
      const runtime = localTaskRuntime({ kubeconfig, namespace: NAMESPACE, logsDir, settings: { identities } });
      const summary = await startLocalExecution(
        { build: { id, trigger: 'test' }, pipeline: { file: 'pipeline.yml', text: pipeline }, withoutSource: 'the steps read their environment, not a checkout' },
        { runtime, overrides: { waitMs: 100, retryMs: 10 } },
      ).result;
      const log = (step: string) => readFile(path.join(logsDir, stepLogName(id, step)), 'utf8');
      const ship = await log('ship');
      expect({ status: summary.status, error: summary.error, cause: summary.cause, ship }).toMatchObject({ status: 'SUCCEEDED' });

      // As the EKS user guide lists them (pod-id-how-it-works); the process runtime's pods share this machine's network, so loopback.
      const uri = kind === 'docker' ? 'http://169.254.170.23/v1/credentials' : expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v1\/credentials$/);
      const [, givenUri, givenFile] = /uri=(http\S+) file=(\/\S+)/.exec(ship) ?? [];
      expect({ givenUri, givenFile: kind === 'docker' ? givenFile : path.basename(givenFile ?? '') }).toEqual({
        givenUri: uri,
        givenFile: kind === 'docker' ? '/var/run/secrets/pods.eks.amazonaws.com/serviceaccount/eks-pod-identity-token' : 'eks-pod-identity-token',
      });
      const answer = JSON.parse(ship.split('\n').find((line) => line.startsWith('{')) ?? 'null') as Record<string, string> | null;
      expect(answer).toEqual({ AccessKeyId: expect.any(String), SecretAccessKey: expect.any(String), Token: expect.any(String), AccountId: ACCOUNT, Expiration: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
      const assumed = new RegExp(`^arn:aws:sts::${ACCOUNT}:assumed-role/deploy/eks-embedded-${id}`);
      // The process runtime's step asked STS itself; a Docker step's image has no AWS CLI, so this machine's asks with what it fetched.
      expect(kind === 'process' ? ship.trim().split('\n').at(-1) : await callerArn(moto.endpoint, answer as { AccessKeyId: string; SecretAccessKey: string; Token: string })).toMatch(assumed);

      expect((await log('test')).trim().split('\n').at(-1)).toBe('no AWS_CONTAINER variables');
    }, 120_000);

    if (kind === 'process') {
      it("answers a pod's own token only: not another account's, not once the pod is gone, not without one", async () => {
        const name = 'identity-holder';
        await api.createNamespacedPod({
          namespace: NAMESPACE,
          body: {
            metadata: { name },
            spec: { serviceAccountName: 'step-runner-id-deploy', automountServiceAccountToken: false, restartPolicy: 'Never', containers: [{ name: 'main', image: 'alpine:3.20', command: ['sleep', '60'] }] },
          },
        });
        const pod = await waitFor(
          async () => {
            const found = await api.readNamespacedPod({ name, namespace: NAMESPACE });
            return found.status?.phase === 'Running' ? found : undefined;
          },
          { timeoutMs: 30_000, what: `pod ${name} running` },
        );
        // The webhook's volume, as the guide shows it, though the pod mounts no API token.
        expect(pod.spec?.volumes?.[0]).toEqual({
          name: 'eks-pod-identity-token',
          projected: { defaultMode: 420, sources: [{ serviceAccountToken: { audience: 'pods.eks.amazonaws.com', expirationSeconds: 86400, path: 'eks-pod-identity-token' } }] },
        });
        const env = Object.fromEntries((pod.spec?.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
        const uri = env['AWS_CONTAINER_CREDENTIALS_FULL_URI']!;
        const token = await readFile(path.join(cluster.stateDir, 'pods', pod.metadata!.uid!, 'volumes', 'kubernetes.io~projected', 'eks-pod-identity-token', 'eks-pod-identity-token'), 'utf8');
        // node:http, since fetch will not send a Host header of the caller's.
        const call = (headers: Record<string, string>) =>
          new Promise<{ status: number; body: string }>((resolve, reject) => {
            const request = httpGet(uri, { headers }, (response) => {
              let body = '';
              response.on('data', (chunk: Buffer) => (body += chunk.toString()));
              response.on('end', () => resolve({ status: response.statusCode ?? 0, body: body.trim() }));
            });
            request.on('error', reject);
          });
        const [header, payload] = token.split('.');
        const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { sub: string; 'kubernetes.io': { serviceaccount: { name: string } } };
        claims.sub = 'system:serviceaccount:default:step-runner-id-other';
        claims['kubernetes.io'].serviceaccount.name = 'step-runner-id-other';
        const forged = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${token.split('.')[2]}`;

        const own = await call({ Authorization: token });
        expect(own.status).toBe(200);
        expect(await callerArn(moto.endpoint, JSON.parse(own.body))).toMatch(/assumed-role\/deploy\/eks-embedded-identity-holder$/);
        expect(await call({})).toEqual({ status: 400, body: 'Service account token cannot be empty' });
        expect(await call({ Authorization: forged })).toEqual({ status: 400, body: expect.stringMatching(/^\[[-0-9a-f]+\]: \(InvalidTokenException\): .*signature does not verify.*, fault: client$/) });
        expect(await call({ Authorization: token, Host: 'localhost' })).toEqual({ status: 403, body: expect.stringContaining('Access Denied. Called agent through invalid address') });
        await api.deleteNamespacedPod({ name, namespace: NAMESPACE, gracePeriodSeconds: 0 });
        await waitFor(async () => ((await api.listNamespacedPod({ namespace: NAMESPACE, fieldSelector: `metadata.name=${name}` })).items.length === 0 ? true : undefined), { timeoutMs: 30_000, what: `pod ${name} gone` });
        expect(await call({ Authorization: token })).toEqual({ status: 400, body: expect.stringContaining('(InvalidTokenException): The service account token is not valid: pod default/identity-holder it is bound to no longer exists') });
      }, 60_000);
    }
  };

  describe('on the process runtime', () => onRuntime('process'));
  describeRequiring('on the Docker runtime', testImagesBuildable, () => onRuntime('docker'));

  it('stops `run --identity` before any pod when this machine has no AWS credentials', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pod-identity-run-'));
    const file = path.join(dir, 'pipeline.yml');
    await writeFile(file, 'version: 1\ncheckout: false\nsteps:\n  - name: ship\n    image: alpine:3.20\n    identity: deploy\n    commands: [echo shipping]\n');
    for (const name of AWS_ENV) delete process.env[name];
    Object.assign(process.env, { AWS_CONFIG_FILE: path.join(dir, 'none'), AWS_SHARED_CREDENTIALS_FILE: path.join(dir, 'none'), AWS_EC2_METADATA_DISABLED: 'true' });
    const out: string[] = [];
    const err: string[] = [];
    try {
      const code = await runBuild({ file, identities: [identities[0]!], runtime: 'process', stateDir: dir }, { out: (line) => out.push(line), err: (line) => err.push(line) });
      expect({ code, err }).toEqual({ code: 2, err: [expect.stringMatching(/^step-runner run: the identities given \(deploy\) need AWS credentials on this machine, .* and there are none: /)] });
      expect(out).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
