/**
 * Whole builds with the image check: a missing image in the last of five steps fails the build at
 * PrepareBuild, before any pod, on the embedded cluster (its catalog registry) and on a cluster
 * given by kubeconfig (the images' own registry, here Debian's docker-registry); an inconclusive
 * check leaves the image to the kubelet.
 * The embedded cluster is on the process runtime, whose kubeconfig names the catalog registry.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { kubeconfigYaml } from '../lib/emulators/kubernetes/kubeconfig.js';
import { ConsoleOutput } from '../lib/local/console-output.js';
import { startLocalExecution, type ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import type { TaskRuntime } from '../lib/workflow/task-deps.js';
import { distributionRegistryInstalled, startDistributionRegistry, type DistributionRegistry } from './fixtures/distribution-registry.js';
import { describeRequiring } from './fixtures/requirements.js';

const PRIVATE_IMAGE = 'registry.example.com/team/secret-tool:1';
let cluster: EmbeddedCluster;
let scratch: string;
let api: CoreV1Api;
/** The embedded cluster's own kubeconfig: it names the catalog registry. */
let embedded: TaskRuntime;
/** The same cluster as a kubeconfig of elsewhere would give it: each image's own registry is asked. */
let ownCluster: TaskRuntime;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'image-check-'));
  cluster = await startEmbeddedCluster({ workspace: scratch, timings: FAST_TIMINGS, images: [{ image: PRIVATE_IMAGE, private: true }] });
  await writeFile(path.join(scratch, 'embedded.kubeconfig'), cluster.kubeconfigYaml());
  await writeFile(path.join(scratch, 'own.kubeconfig'), kubeconfigYaml(cluster.url));
  embedded = localTaskRuntime({ kubeconfig: path.join(scratch, 'embedded.kubeconfig'), namespace: 'default', logsDir: path.join(scratch, 'logs') });
  ownCluster = localTaskRuntime({ kubeconfig: path.join(scratch, 'own.kubeconfig'), namespace: 'default', logsDir: path.join(scratch, 'logs'), ownCluster: true });
  api = kubeConfigFromFile(path.join(scratch, 'embedded.kubeconfig')).makeApiClient(CoreV1Api);
});

afterAll(async () => {
  await cluster.stop();
  await rm(scratch, { recursive: true, force: true });
});

const step = (name: string, image: string) => `  - name: ${name}\n    image: ${image}\n    commands: ["sleep 10"]\n`;
const fiveSteps = (good: string, missing: string) =>
  `version: 1\nsteps:\n${['one', 'two', 'three', 'four'].map((name) => step(name, good)).join('')}${step('five', missing)}`;

let builds = 0;
async function build(runtime: TaskRuntime, pipeline: string) {
  const id = `imgcheck-${++builds}-${Date.now().toString(36)}`;
  const events: ExecutionEvent[] = [];
  const execution = startLocalExecution(
    { build: { id, trigger: 'test' }, pipeline: { file: 'pipeline.yml', text: pipeline }, withoutSource: 'these builds test their images' },
    { runtime, overrides: { waitMs: 50, retryMs: 10 }, onEvent: (event) => events.push(event) },
  );
  return { id, events, summary: await execution.result };
}

async function podsEverCreated(buildId: string): Promise<number> {
  const events = await api.listNamespacedEvent({ namespace: 'default' });
  return events.items.filter((e) => e.involvedObject.kind === 'Pod' && e.involvedObject.name?.startsWith(buildId)).length;
}

function expectFailedBeforeAnyPod(result: Awaited<ReturnType<typeof build>>, image: string, answer = 'manifest unknown') {
  expect(result.summary).toMatchObject({ status: 'FAILED', error: 'ImagePullFailed' });
  expect(result.summary.cause).toContain(`Step "five": image "${image}" was not found; its registry answered: 404 MANIFEST_UNKNOWN: ${answer}`);
  expect(result.summary.cause).toContain('No step ran');
  expect(result.events.some((e) => e.state?.name === 'LaunchStep')).toBe(false);
  expect(result.events.some((e) => e.type === 'MapIterationStarted')).toBe(false);
}

describe('on the embedded cluster (its catalog registry)', () => {
  it('fails at PrepareBuild when the fifth step\'s image does not exist, before any pod', async () => {
    const result = await build(embedded, fiveSteps('alpine:3.20', 'alpine:3.99-typo'));
    expectFailedBeforeAnyPod(result, 'alpine:3.99-typo', 'not in the local image catalog');
    expect(result.summary.cause).toContain('--images FILE');
    expect(result.summary.cause).not.toContain('does not exist');
    expect(await podsEverCreated(result.id)).toBe(0);
    expect(cluster.registry.requests()).toBeGreaterThan(0);
  });

  it('prints each image\'s digest on its "Preparing" line', async () => {
    const output = new ConsoleOutput('test');
    const { events } = await build(embedded, `version: 1\nsteps:\n  - name: one\n    image: alpine:3.20\n    commands: ["true"]\n`);
    const lines = events.flatMap((event) => output.lines(event));
    expect(lines).toContainEqual(expect.stringMatching(/^ {6}Preparing step "one": image alpine:3\.20 \(sha256:[0-9a-f]{64}\)$/));
  });

  it('leaves an inconclusive image to the kubelet: the build goes on and the pod\'s pull decides', async () => {
    // "Unauthorized" to an anonymous token is no proof that the image is missing.
    const result = await build(embedded, `version: 1\nsteps:\n  - name: one\n    image: alpine:3.20\n    commands: ["true"]\n${step('two', PRIVATE_IMAGE)}`);
    expect(result.summary).toMatchObject({ status: 'FAILED', error: 'ImagePullFailed' });
    expect(result.summary.steps.map((s) => s.status)).toEqual(['succeeded', 'failed']);
    expect(result.summary.cause).toContain('401 Unauthorized');
  });
});

describeRequiring('on a cluster given by kubeconfig (the images\' own registry)', distributionRegistryInstalled, () => {
  let registry: DistributionRegistry;

  beforeAll(async () => {
    registry = await startDistributionRegistry();
    await registry.push('team/app', '1.0');
  }, 30_000);

  afterAll(async () => {
    await registry?.stop();
  });

  it('fails at PrepareBuild when the fifth step\'s image does not exist, before any pod', async () => {
    const missing = `${registry.host}/team/app:1.1-typo`;
    const result = await build(ownCluster, fiveSteps(`${registry.host}/team/app:1.0`, missing));
    expectFailedBeforeAnyPod(result, missing);
    expect(await podsEverCreated(result.id)).toBe(0);
  });
});
