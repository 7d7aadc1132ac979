/**
 * Pull secrets, node selectors and tolerations on a real build: the pipeline's and the
 * deployment's reach every pod's spec as the API returns it (the checkout's pod included), and a
 * node selector no node matches fails the step as `Unschedulable`, with the scheduler's words,
 * once the grace period is over, as on EKS.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, type CoreV1Event, type V1Pod } from '@kubernetes/client-node';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalExecution } from '../lib/emulators/stepfunctions/executor.js';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import { localSource } from '../lib/local/source/local-source.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import type { WorkflowSettings } from '../lib/workflow/settings.js';
import { launchedPods } from './fixtures/launched-pods.js';

const run = promisify(execFile);
let root: string;
let repo: string;
let cluster: EmbeddedCluster;
let api: CoreV1Api;
let kubeconfig: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'pod-settings-'));
  repo = path.join(root, 'app');
  await run('git', ['init', '-q', '-b', 'main', repo]);
  await writeFile(path.join(repo, 'README'), 'hello\n');
  await run('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', 'commit', '-q', '--allow-empty', '-m', 'first'], { cwd: repo });
  cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS });
  kubeconfig = path.join(root, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  api = kubeConfigFromFile(kubeconfig).makeApiClient(CoreV1Api);
});

afterAll(async () => {
  await cluster?.stop();
  await rm(root, { recursive: true, force: true });
});

async function build(id: string, pipeline: string, settings: Partial<WorkflowSettings>, checkout: boolean) {
  const found = checkout ? await localSource(path.join(repo, '.step-runner.yml')) : undefined;
  // Each step's pod as the API returned it once LaunchStep had created it (before the step ends and its pod is deleted).
  const launched = launchedPods(api, 'default');
  try {
    const execution = startLocalExecution(
      {
        build: { id, trigger: 'test', ...found?.build },
        pipeline: { file: 'ci.yml', text: pipeline },
        ...(found?.source ? { source: found.source } : { withoutSource: 'this build tests where its pods go' }),
      },
      {
        runtime: localTaskRuntime({ kubeconfig, namespace: 'default', logsDir: path.join(root, 'logs'), settings }),
        overrides: { waitMs: 50, retryMs: 10 },
        onEvent: launched.onEvent,
      },
    );
    const summary = await execution.result;
    return { summary, pods: await launched.pods() };
  } finally {
    await found?.dispose();
  }
}

const placementOf = (pod: V1Pod) => ({
  pod: pod.metadata?.annotations?.['step-runner.dev/step-name'],
  imagePullSecrets: pod.spec?.imagePullSecrets,
  nodeSelector: pod.spec?.nodeSelector,
  tolerations: pod.spec?.tolerations,
});

const disruptionOf = (pod: V1Pod) =>
  Object.fromEntries(Object.entries(pod.metadata?.annotations ?? {}).filter(([key]) => key === 'karpenter.sh/do-not-disrupt' || key === 'cluster-autoscaler.kubernetes.io/safe-to-evict'));

describe('pod settings on the embedded cluster', () => {
  it('gives every pod, the checkout\'s too, the pull secrets and the step\'s placement over the deployment\'s', async () => {
    // The node says linux whatever this machine runs, as the Linux nodes of EKS do.
    const os = 'linux';
    const { summary, pods } = await build(
      `pod-settings-${Date.now().toString(36)}`,
      `version: 1
pull-secrets: [ghcr-login]
steps:
  - name: tolerant
    image: alpine:3.20
    commands: [sleep 0.2]
    node-selector:
      kubernetes.io/os: ${os}
    tolerations:
      - { key: ci, operator: Exists, effect: NoSchedule }
  - name: plain
    image: busybox:1.37
    commands: [echo done]
`,
      {
        pullSecrets: ['hub-login', 'ghcr-login'],
        nodeSelector: { 'kubernetes.io/os': os },
        tolerations: [{ key: 'spot', operator: 'Equal', value: 'yes', effect: 'NoExecute', tolerationSeconds: 60 }],
      },
      true,
    );
    expect(summary.status).toBe('SUCCEEDED');
    const secrets = [{ name: 'ghcr-login' }, { name: 'hub-login' }];
    const spot = { key: 'spot', operator: 'Equal', value: 'yes', effect: 'NoExecute', tolerationSeconds: 60 };
    expect(pods.map(placementOf)).toEqual([
      { pod: 'clone', imagePullSecrets: secrets, nodeSelector: { 'kubernetes.io/os': os }, tolerations: [spot] },
      { pod: 'tolerant', imagePullSecrets: secrets, nodeSelector: { 'kubernetes.io/os': os }, tolerations: [spot, { key: 'ci', operator: 'Exists', effect: 'NoSchedule' }] },
      { pod: 'plain', imagePullSecrets: secrets, nodeSelector: { 'kubernetes.io/os': os }, tolerations: [spot] },
    ]);
    // By default every pod, the checkout's too, asks node autoscalers to leave its node (lib/kube/pod-manifest.ts).
    expect(pods.map(disruptionOf)).toEqual(pods.map(() => ({ 'karpenter.sh/do-not-disrupt': 'true', 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false' })));
  }, 60_000);

  it('gives the checkout init container\'s pod the same, with an ephemeral workspace', async () => {
    const { summary, pods } = await build(
      `pod-settings-eph-${Date.now().toString(36)}`,
      'version: 1\npull-secrets: [ghcr-login]\nsteps:\n  - name: only\n    image: alpine:3.20\n    commands: [ls README]\n    node-selector: { kubernetes.io/os: linux }\n',
      // The deployment's stepDoNotDisrupt 'off' (STEP_DO_NOT_DISRUPT), through PrepareBuild to LaunchStep.
      { workspaceMode: 'ephemeral', doNotDisrupt: false },
      true,
    );
    expect(summary.status).toBe('SUCCEEDED');
    expect(pods).toHaveLength(1);
    expect(pods[0]?.spec?.initContainers?.map((c) => c.name)).toEqual(['clone']);
    expect(placementOf(pods[0]!)).toMatchObject({ imagePullSecrets: [{ name: 'ghcr-login' }], nodeSelector: { 'kubernetes.io/os': 'linux' } });
    expect(disruptionOf(pods[0]!)).toEqual({});
  }, 60_000);

  it('fails a step whose node selector no node matches as Unschedulable, with the scheduler\'s words, after the grace period', async () => {
    const { summary, pods } = await build(
      `pod-settings-nowhere-${Date.now().toString(36)}`,
      'version: 1\nsteps:\n  - name: gpu\n    image: alpine:3.20\n    commands: [echo never]\n    node-selector: { pool: gpu }\n',
      { unschedulableGraceSeconds: 2, pendingWatchSeconds: 0 },
      false,
    );
    expect(summary).toMatchObject({ status: 'FAILED', error: 'Unschedulable' });
    expect(summary.cause).toMatch(/^Step "gpu" \(image "alpine:3\.20"\) could not be placed on any node for \d+ s \(grace period 2 s, Unschedulable\)\. The scheduler said: /);
    expect(summary.cause).toContain("0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.");
    // Not before the grace period: the classifier's own count of how long the pod waited.
    expect(Number(/for (\d+) s/.exec(summary.cause ?? '')?.[1])).toBeGreaterThanOrEqual(2);
    expect(pods[0]?.spec?.nodeSelector).toEqual({ pool: 'gpu' });
    const events: CoreV1Event[] = (await api.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.name=${pods[0]?.metadata?.name}` })).items;
    expect(events.map((e) => e.reason)).toContain('FailedScheduling');
    expect(summary.steps).toMatchObject([{ name: 'gpu', status: 'failed', exitCode: null, error: 'Unschedulable' }]);
  }, 60_000);
});
