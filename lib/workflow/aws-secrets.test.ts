/**
 * A step's AWS secrets, read by LaunchStep with its identity: what each entry reads as, the
 * SecretUnavailable Cause of each way it cannot be read (AWS's words, never a value), and, on the
 * in-memory cluster, a pod whose env reads them from the step's own Secret (no value in its spec)
 * and a log that FinishStep keeps with them masked. The SDK's requests against moto's server are
 * test/aws-secrets-builds.integration.test.ts's.
 */
import type { AwsCredentials, IdentityCredentialsRequest } from '../contract/aws-credentials.js';
import { fakeStepCluster, logKey, objectKey } from '../kube/fake-cluster.js';
import { STEP_READINESS_GATE, stepAwsSecretName } from '../kube/index.js';
import { parseImageReference, type AwsSecretEnv, type Step } from '../pipeline/index.js';
import { jsonKey, readStepAwsSecrets, SecretBinaryOnly, type AwsSecretReader } from './aws-secrets.js';
import type { StepInput } from './state-data.js';
import type { TaskDeps } from './task-deps.js';
import { finishStep } from './tasks/finish-step.js';
import { launchStep } from './tasks/launch-step.js';

/** An AWS error as the SDK throws it: its name is the service's error code. */
const awsError = (name: string, message: string) => Object.assign(new Error(message), { name });

/** What AWS holds, by secret id and parameter name; a missing one is ResourceNotFoundException / ParameterNotFound, in AWS's words. */
function fakeAws(secrets: Record<string, string | Error>, parameters: Record<string, string> = {}): AwsSecretReader {
  return {
    secretString: async (id) => {
      const value = secrets[id];
      if (value instanceof Error) throw value;
      if (value === undefined) throw awsError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
      return value;
    },
    parameter: async (name) => {
      if (parameters[name] === undefined) throw awsError('ParameterNotFound', '');
      return parameters[name];
    },
  };
}

const AWS = fakeAws(
  {
    'prod/db': '{"password":"pa55-Zq8v","port":5432,"user":"app"}',
    'prod/token': 'tok-Hk29sLq0',
    'prod/denied': awsError('AccessDeniedException', 'User: arn:aws:sts::123456789012:assumed-role/deploy/s is not authorized to perform: secretsmanager:GetSecretValue on resource: prod/denied'),
    'prod/binary': new SecretBinaryOnly('the secret holds binary data (SecretBinary) and no string: an environment variable cannot carry it'),
  },
  { '/team/key': 'ssm-Vb71q' },
);

const asked: IdentityCredentialsRequest[] = [];
const tokens: string[] = [];
// As the Lambda's provider: the pod-bound token exchanged once, and the credentials kept while fresh.
const identityCredentials = (request: IdentityCredentialsRequest) => {
  asked.push(request);
  let got: Promise<AwsCredentials> | undefined;
  return () => (got ??= request.podToken().then((token) => (tokens.push(token), { accessKeyId: 'AKIA', secretAccessKey: 's' })));
};

function read(entries: AwsSecretEnv[], options: { identity?: string | undefined; credentials?: boolean } = {}) {
  const identity = 'identity' in options ? options.identity : 'deploy';
  return readStepAwsSecrets({
    step: { name: 'ship', awsSecrets: entries, ...(identity !== undefined ? { identity } : {}) },
    namespace: 'ci',
    pod: { name: 'b-1-ship-abc', uid: 'u-1' },
    podToken: async () => 'token-of-b-1-ship-abc',
    identityCredentials: options.credentials === false ? undefined : identityCredentials,
    readerFor: () => AWS,
  });
}

describe('reading a step\'s AWS secrets', () => {
  it.each<[string, AwsSecretEnv, string]>([
    ['a whole secret string', { env: 'T', awsSecret: 'prod/token' }, 'tok-Hk29sLq0'],
    ['a whole JSON secret, as it is', { env: 'T', awsSecret: 'prod/db' }, '{"password":"pa55-Zq8v","port":5432,"user":"app"}'],
    ['one text key of its JSON', { env: 'T', awsSecret: 'prod/db', key: 'password' }, 'pa55-Zq8v'],
    ['a number key, as JSON writes it', { env: 'T', awsSecret: 'prod/db', key: 'port' }, '5432'],
    ['an SSM parameter', { env: 'T', ssmParameter: '/team/key' }, 'ssm-Vb71q'],
  ])('reads %s', async (_name, entry, value) => {
    expect(await read([entry])).toEqual({ T: value });
  });

  it('asks for the credentials of the step\'s identity, as its pod would have them', async () => {
    asked.length = 0;
    await read([{ env: 'T', awsSecret: 'prod/token' }]);
    expect(asked).toEqual([{ identity: 'deploy', serviceAccount: 'step-runner-id-deploy', namespace: 'ci', podName: 'b-1-ship-abc', podUid: 'u-1', podToken: expect.any(Function) }]);
  });

  it.each<[string, AwsSecretEnv[], { identity?: string | undefined; credentials?: boolean }, string]>([
    ['a secret that does not exist', [{ env: 'T', awsSecret: 'prod/gone' }], {}, 'Step "ship" could not read its T from the Secrets Manager secret prod/gone with the identity "deploy": ResourceNotFoundException: Secrets Manager can\'t find the specified secret.'],
    ['a secret the identity may not read', [{ env: 'T', awsSecret: 'prod/denied' }], {}, 'with the identity "deploy": AccessDeniedException: User: arn:aws:sts::123456789012:assumed-role/deploy/s is not authorized to perform: secretsmanager:GetSecretValue on resource: prod/denied'],
    ['a JSON key the secret lacks, naming the keys it has', [{ env: 'T', awsSecret: 'prod/db', key: 'pasword' }], {}, 'from the Secrets Manager secret prod/db (key "pasword") with the identity "deploy": the secret\'s JSON has no key "pasword" (its keys: "password", "port", "user").'],
    ['a key of a secret that is no JSON', [{ env: 'T', awsSecret: 'prod/token', key: 'k' }], {}, 'the secret\'s value is not JSON, so it has no key "k" (leave key out for the whole string).'],
    ['a binary secret', [{ env: 'T', awsSecret: 'prod/binary' }], {}, 'the secret holds binary data (SecretBinary) and no string'],
    ['an SSM parameter that does not exist, whose error has no message', [{ env: 'T', ssmParameter: '/team/gone' }], {}, 'from the SSM parameter /team/gone with the identity "deploy": ParameterNotFound: (AWS gave no message)'],
    ['the second of two, once the first is read', [{ env: 'A', awsSecret: 'prod/token' }, { env: 'B', ssmParameter: '/x' }], {}, 'could not read its B from the SSM parameter /x'],
    ['a step with no identity', [{ env: 'T', awsSecret: 'prod/token' }], { identity: undefined }, 'the step has no identity to read it with (identity: NAME).'],
    ['a runner with no Pod Identity credentials', [{ env: 'T', awsSecret: 'prod/token' }], { credentials: false }, 'this runner cannot get credentials for the identity "deploy"'],
  ])('fails SecretUnavailable for %s, in AWS\'s words', async (_name, entries, options, cause) => {
    const error = await read(entries, options).then(() => undefined, (e: unknown) => e as Error);
    expect(error?.name).toBe('SecretUnavailable');
    expect(error?.message).toContain(cause);
    for (const value of ['pa55-Zq8v', 'tok-Hk29sLq0', 'ssm-Vb71q']) expect(error?.message).not.toContain(value);
  });

  it.each([
    ['an array', '[1,2]', 'is not a JSON object'],
    ['null', 'null', 'is not a JSON object'],
  ])('finds no key in %s', (_name, text, words) => {
    expect(() => jsonKey(text, 'k')).toThrow(words);
  });
});

describe('LaunchStep and FinishStep with AWS secrets', () => {
  const step: Step = {
    name: 'ship',
    image: 'alpine:3.20',
    imageRef: parseImageReference('alpine:3.20'),
    commands: ['make'],
    env: {},
    pull: 'if-not-present',
    timeoutSeconds: 600,
    secrets: [],
    awsSecrets: [{ env: 'DB_PASSWORD', awsSecret: 'prod/db', key: 'password' }, { env: 'KEY', ssmParameter: '/team/key' }],
    identity: 'deploy',
  };
  const input = (extra: Partial<StepInput> = {}): StepInput => ({ build: { id: 'b-1' }, namespace: 'ci', settings: { imagePullGraceSeconds: 60, unschedulableGraceSeconds: 120 }, step, index: 0, ...extra });
  const deps = (cluster: ReturnType<typeof fakeStepCluster>, lines: string[] = []): TaskDeps => ({
    cluster,
    logs: { partEveryMs: 0, put: async () => 'mem://log', putPart: async () => 'mem://part', liveLocation: () => 'mem://live', complete: async () => ({ location: 'mem://log', tail: '' }), putResult: async () => undefined, results: async () => [] },
    now: () => new Date('2026-03-14T10:00:00Z'),
    log: { info: (line: string) => void lines.push(line), warn: (line: string) => void lines.push(line) },
    identityCredentials,
    // As the SDK's clients: the credentials resolved before the first request.
    awsSecretReader: (credentials) => ({ secretString: async (id) => (await credentials(), AWS.secretString(id)), parameter: async (name) => (await credentials(), AWS.parameter(name)) }),
  });

  it('gives the pod the values through the step\'s Secret, names only in its spec and the task\'s log, and masks them in the kept log', async () => {
    const cluster = fakeStepCluster();
    const lines: string[] = [];
    const { podName } = await launchStep(input(), deps(cluster, lines));

    const secretName = stepAwsSecretName('b-1', 'ship');
    const env = cluster.pods.get(objectKey('ci', podName))!.spec!.containers.find((c) => c.name === 'step')!.env!;
    expect(env.filter((e) => e.valueFrom?.secretKeyRef)).toEqual([
      { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: secretName, key: 'DB_PASSWORD' } } },
      { name: 'KEY', valueFrom: { secretKeyRef: { name: secretName, key: 'KEY' } } },
    ]);
    const secret = cluster.secrets.get(objectKey('ci', secretName))!;
    expect(Object.fromEntries(Object.entries(secret.data!).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]))).toEqual({ DB_PASSWORD: 'pa55-Zq8v', KEY: 'ssm-Vb71q' });
    const spec = JSON.stringify(cluster.pods.get(objectKey('ci', podName)));
    const told = lines.join('\n');
    for (const value of ['pa55-Zq8v', 'ssm-Vb71q']) expect({ spec: spec.includes(value), log: told.includes(value) }).toEqual({ spec: false, log: false });
    expect(told).toContain('read DB_PASSWORD from the Secrets Manager secret prod/db (key "password"), KEY from the SSM parameter /team/key as the identity "deploy"');

    cluster.logs.set(logKey('ci', podName), 'db pa55-Zq8v key ssm-Vb71q\n');
    let kept = '';
    const finishing = deps(cluster);
    finishing.logs.put = async (_build, _step, log) => ((kept = log), 'mem://log');
    await finishStep(input({ poll: { podName, launchedAt: '2026-03-14T10:00:00Z', runningSince: '2026-03-14T10:00:01Z', phase: 'succeeded', reason: 'Completed', nextPollSeconds: 0, polls: 1, exitCode: 0 } }), finishing);
    expect(kept).toBe('db *** key ***\n');
  });

  it('makes the pod gated first, reads with a token bound to it, then makes the Secret, then removes the gate', async () => {
    const cluster = fakeStepCluster();
    tokens.length = 0;
    const { podName } = await launchStep(input(), deps(cluster));

    const pod = objectKey('ci', podName);
    expect(cluster.calls.filter((call) => !call.startsWith('read'))).toEqual([`launchPod ${pod}`, `podIdentityToken ${pod}`, `ensureStepAwsSecret ci/${stepAwsSecretName('b-1', 'ship')}`, `ungatePod ${pod}`]);
    const made = cluster.pods.get(pod)!;
    expect(tokens).toEqual([`fake-token:ci/step-runner-id-deploy@${podName}/${made.metadata!.uid}`]);
    expect(made.spec!.schedulingGates).toEqual([]);
  });

  it('deletes the gated pod, and makes no Secret, when a secret cannot be read', async () => {
    const cluster = fakeStepCluster();
    const missing: Step = { ...step, awsSecrets: [{ env: 'T', awsSecret: 'prod/gone' }] };
    await expect(launchStep(input({ step: missing }), deps(cluster))).rejects.toMatchObject({ name: 'SecretUnavailable' });
    expect({ pods: cluster.pods.size, secrets: cluster.secrets.size }).toEqual({ pods: 0, secrets: 0 });
    expect(cluster.calls.map((call) => call.split(' ')[0])).toEqual(['launchPod', 'podIdentityToken', 'deletePod']);
  });

  it.each([
    ['still gated (an earlier LaunchStep stopped before the gate came off): read again, then ungated', [STEP_READINESS_GATE], ['launchPod', 'podIdentityToken', 'ensureStepAwsSecret', 'ungatePod']],
    ['ungated already (an earlier LaunchStep got that far): left as it is', [], ['launchPod']],
  ])('adopts a pod %s', async (_name, gates, calls) => {
    const cluster = fakeStepCluster();
    const first = await launchStep(input(), deps(cluster));
    const made = cluster.pods.get(objectKey('ci', first.podName))!;
    cluster.put('pod', { ...made, spec: { ...made.spec!, schedulingGates: gates.map((name) => ({ name })) } });
    cluster.calls.length = 0;

    expect(await launchStep(input(), deps(cluster))).toMatchObject({ reason: 'PodAdopted' });
    expect(cluster.calls.filter((call) => !call.startsWith('read')).map((call) => call.split(' ')[0])).toEqual(calls);
  });
});
