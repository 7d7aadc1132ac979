/**
 * The step pod operations of lib/kube against the embedded cluster, over HTTP, exactly as they run
 * against EKS: launch, poll, logs, adoption, refusal, loss, cleanup.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { FAST_TIMINGS, startEmbeddedCluster, type Fault } from '../lib/emulators/kubernetes/index.js';
import { classifyStep } from '../lib/kube/classify.js';
import {
  deleteBuildPods,
  deleteStepPod,
  launchStepPod,
  Labels,
  observeStep,
  readStepLog,
  readWholeStepLog,
  STEP_CONTAINER,
  stepPodManifest,
  type Observation,
} from '../lib/kube/index.js';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import type { Step } from '../lib/pipeline/types.js';
import { KubernetesUnavailable, PodConfigError } from '../lib/kube/index.js';
import { parseImageReference } from '../lib/pipeline/index.js';

const NAMESPACE = 'default';

let cluster: Awaited<ReturnType<typeof startEmbeddedCluster>>;
let api: CoreV1Api;

beforeAll(async () => {
  cluster = await startEmbeddedCluster({
    port: 0,
    timings: FAST_TIMINGS,
  });
  api = connect(cluster);
});

/** Connects the way `run --kubeconfig FILE` does, through the kubeconfig file a user would get. */
function connect(embedded: { kubeconfigYaml(): string }): CoreV1Api {
  const file = join(mkdtempSync(join(tmpdir(), 'kube-step-pods-')), 'kubeconfig');
  writeFileSync(file, embedded.kubeconfigYaml());
  return kubeConfigFromFile(file).makeApiClient(CoreV1Api);
}

afterAll(async () => {
  await cluster?.stop();
});

function step(overrides: Partial<Step> = {}): Step {
  return {
    name: 'greet',
    image: 'alpine:3.20', imageRef: parseImageReference('alpine:3.20'),
    commands: ['echo hello', 'echo world'],
    env: {},
    pull: 'if-not-present',
    timeoutSeconds: 120,
    secrets: [],
    ...overrides,
  };
}

/** Polls the way PollStep does, until `done` holds for an observation; returns every observation seen. */
async function pollUntil(podName: string, done: (o: Observation) => boolean, timeoutMs = 15_000): Promise<Observation[]> {
  const seen: Observation[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const observation = await observeStep(api, NAMESPACE, podName);
    seen.push(observation);
    if (done(observation)) return seen;
    if (Date.now() > deadline) {
      throw new Error(`gave up waiting on ${podName}; last observation: ${JSON.stringify(observation.pod?.status)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const phase = (o: Observation) => o.pod?.status?.phase;
const waitingReason = (o: Observation) =>
  o.pod?.status?.containerStatuses?.find((c) => c.name === STEP_CONTAINER)?.state?.waiting?.reason;

describe('step pods on the embedded cluster', () => {
  it('runs a good step to success and reads its log, commands echoed', async () => {
    const manifest = stepPodManifest({ buildId: 'build-ok', step: step(), namespace: NAMESPACE });
    const podName = manifest.metadata!.name!;
    const { adopted } = await launchStepPod(api, manifest);
    expect(adopted).toBe(false);

    const seen = await pollUntil(podName, (o) => phase(o) === 'Succeeded' || phase(o) === 'Failed');
    const last = seen.at(-1)!;
    expect(phase(last)).toBe('Succeeded');
    expect(classifyStep(last, { step: 'greet', image: 'alpine:3.20' })).toMatchObject({ phase: 'succeeded', exitCode: 0 });

    const tail = await readStepLog(api, NAMESPACE, podName);
    expect(tail).toContain('+ echo hello\nhello\n+ echo world\nworld\n');
    expect(await readStepLog(api, NAMESPACE, podName, { tailLines: 1 })).toBe('world\n');
    expect(await readWholeStepLog(api, NAMESPACE, podName)).toBe(tail);
    expect(last.events.length).toBeGreaterThan(0);
    expect(last.events.every((e) => e.involvedObject.name === podName)).toBe(true);
  });

  it("reaches the shell as written: the kubelet's $(VAR) expansion and $$ escape change nothing of a step's commands or env", async () => {
    const commands = ['echo "pid=$$"', 'echo "$(CI) $$(CI) ${LITERAL}"'];
    const manifest = stepPodManifest({ buildId: 'build-dollars', step: step({ commands, env: { LITERAL: 'a$$b$(CI)' } }), namespace: NAMESPACE, buildEnv: { CI: 'true' } });
    const podName = manifest.metadata!.name!;
    await launchStepPod(api, manifest);
    await pollUntil(podName, (o) => phase(o) === 'Succeeded' || phase(o) === 'Failed');
    const log = await readWholeStepLog(api, NAMESPACE, podName);
    // `$(CI)` is command substitution for the shell (no program CI: an error line, then empty).
    expect(log).toMatch(/^pid=\d+$/m);
    expect(log).toContain('+ echo "$(CI) $$(CI) ${LITERAL}"\n');
    expect(log).toMatch(/^ \d+\(CI\) a\$\$b\$\(CI\)$/m);
  });

  it('sees a missing image in the first observation after the kubelet reports it', async () => {
    const image = 'alpine:no-such-tag-0';
    const manifest = stepPodManifest({ buildId: 'build-pull', step: step({ image }), namespace: NAMESPACE });
    const podName = manifest.metadata!.name!;
    await launchStepPod(api, manifest);

    const seen = await pollUntil(
      podName,
      (o) =>
        ['ErrImagePull', 'ImagePullBackOff'].includes(waitingReason(o) ?? '') ||
        o.events.some((e) => e.reason === 'Failed' && /pull/i.test(e.message ?? '')),
    );
    const first = seen.at(-1)!;
    const status = classifyStep(first, { step: 'greet', image });
    expect(status).toMatchObject({ phase: 'failed', error: 'ImagePullFailed' });
    expect(status.phase === 'failed' && status.cause).toContain(image);
    // Nothing ran, so there is no log to read, and asking for it is not an error.
    expect(await readStepLog(api, NAMESPACE, podName)).toBe('');
  });

  it('adopts its own pod when launched twice', async () => {
    const manifest = stepPodManifest({ buildId: 'build-twice', step: step(), namespace: NAMESPACE });
    const first = await launchStepPod(api, manifest);
    const second = await launchStepPod(api, manifest);
    expect(first.adopted).toBe(false);
    expect(second.adopted).toBe(true);
    expect(second.pod.metadata?.uid).toBe(first.pod.metadata?.uid);
  });

  it('refuses a pod with the same name that belongs to another build', async () => {
    const manifest = stepPodManifest({ buildId: 'build-mine', step: step(), namespace: NAMESPACE });
    const squatter = structuredClone(manifest);
    squatter.metadata!.labels![Labels.build] = 'build-theirs';
    squatter.metadata!.annotations = { 'step-runner.dev/build-id': 'build-theirs' };
    await api.createNamespacedPod({ namespace: NAMESPACE, body: squatter });

    const error = await launchStepPod(api, manifest).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PodConfigError);
    expect((error as Error).message).toContain(`a pod named "${manifest.metadata!.name}" already exists`);
    expect((error as Error).message).toContain('build "build-theirs"');
  });

  it('observes a pod deleted mid-step as gone', async () => {
    const manifest = stepPodManifest({
      buildId: 'build-lost',
      step: step({ commands: ['sleep 30'] }),
      namespace: NAMESPACE,
    });
    const podName = manifest.metadata!.name!;
    await launchStepPod(api, manifest);
    await pollUntil(podName, (o) => phase(o) === 'Running');

    expect(await deleteStepPod(api, NAMESPACE, podName)).toBe(true);
    const seen = await pollUntil(podName, (o) => o.pod === null);
    const gone = seen.at(-1)!;
    expect(gone.pod).toBeNull();
    expect(classifyStep(gone, { step: 'greet', image: 'alpine:3.20' })).toMatchObject({ phase: 'failed', error: 'PodLost' });
    expect(await deleteStepPod(api, NAMESPACE, podName)).toBe(false);
  });

  it('deletes every pod of a build and nothing else', async () => {
    const steps = ['one', 'two', 'three'].map((name) => step({ name, commands: ['sleep 30'] }));
    for (const s of steps) await launchStepPod(api, stepPodManifest({ buildId: 'Build/42', step: s, namespace: NAMESPACE }));
    const other = stepPodManifest({ buildId: 'build-43', step: step({ commands: ['sleep 30'] }), namespace: NAMESPACE });
    await launchStepPod(api, other);

    expect(await deleteBuildPods(api, NAMESPACE, 'Build/42')).toBe(3);
    // Deleted pods linger as Terminating for a moment, as on a real node; then none is left.
    const selector = `${Labels.build}=Build-42`;
    const deadline = Date.now() + 10_000;
    let left = await api.listNamespacedPod({ namespace: NAMESPACE, labelSelector: selector });
    expect(left.items.every((p) => p.metadata?.deletionTimestamp)).toBe(true);
    while (left.items.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      left = await api.listNamespacedPod({ namespace: NAMESPACE, labelSelector: selector });
    }
    expect(left.items).toHaveLength(0);
    await expect(api.readNamespacedPod({ name: other.metadata!.name!, namespace: NAMESPACE })).resolves.toBeDefined();
    expect(await deleteBuildPods(api, NAMESPACE, 'build-43')).toBe(1);
  });
});

describe('step pods on an embedded cluster that fails now and then', () => {
  it('launches and observes through 503s, 429s and dropped connections', async () => {
    const faults: Fault[] = [
      { kind: 'status', code: 503 },
      { kind: 'drop' },
      { kind: 'status', code: 429, retryAfterSeconds: 0 },
    ];
    const flaky = await startEmbeddedCluster({
      port: 0,
      timings: FAST_TIMINGS,
      faults: ({ path }) => (path.includes('/pods') ? faults.shift() : undefined),
    });
    try {
      const flakyApi = connect(flaky);
      const retry = { baseDelayMs: 5 };
      const manifest = stepPodManifest({ buildId: 'build-flaky', step: step(), namespace: NAMESPACE });
      const { pod } = await launchStepPod(flakyApi, manifest, retry);
      expect(pod.metadata?.name).toBe(manifest.metadata?.name);
      expect(faults).toHaveLength(0);

      faults.push(...Array.from({ length: 10 }, (): Fault => ({ kind: 'status', code: 503 })));
      const error = await observeStep(flakyApi, NAMESPACE, manifest.metadata!.name!, { retry }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(KubernetesUnavailable);
      expect((error as Error).message).toContain(`read pod ${NAMESPACE}/${manifest.metadata!.name}`);
      expect((error as Error).message).toContain('503 ServiceUnavailable');
    } finally {
      await flaky.stop();
    }
  });
});
