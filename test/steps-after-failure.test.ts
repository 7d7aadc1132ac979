/**
 * Steps with `when: {status: [failure]}` on the embedded cluster, through the real definition:
 * they run once the build has failed, one at a time, with the failure's Error and Cause in their
 * environment, after the steps still running were stopped; whatever they do, the build ends FAILED
 * with the first failure. In a build that succeeds they are skipped.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api } from '@kubernetes/client-node';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/local/cluster/index.js';
import { finishedStep, NOT_AFTER_A_FAILURE, startLocalExecution, type ExecutionEvent } from '../lib/local/executor.js';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import { localSource } from '../lib/local/local-source.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { logger } from '../lib/workflow/lambda-task.js';
import { Labels } from '../lib/kube/types.js';

const run = promisify(execFile);
let root: string;
let repo: string;
let cluster: EmbeddedCluster;
let api: CoreV1Api;
let kubeconfig: string;

beforeAll(async () => {
  logger.setLogLevel('SILENT');
  root = await mkdtemp(path.join(tmpdir(), 'after-failure-'));
  repo = path.join(root, 'app');
  await run('git', ['init', '-q', '-b', 'main', repo]);
  await writeFile(path.join(repo, 'README'), 'hello\n');
  await run('git', ['-C', repo, 'add', 'README']);
  await run('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', 'commit', '-q', '-m', 'first'], { cwd: repo });
  cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS });
  kubeconfig = path.join(root, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  api = kubeConfigFromFile(kubeconfig).makeApiClient(CoreV1Api);
});

afterAll(async () => {
  await cluster?.stop();
  await rm(root, { recursive: true, force: true });
});

async function build(id: string, pipeline: string) {
  const found = await localSource(path.join(repo, '.step-runner.yml'));
  const events: ExecutionEvent[] = [];
  try {
    const execution = startLocalExecution(
      { build: { id, trigger: 'test', ...found.build }, pipeline: { file: 'ci.yml', text: pipeline }, ...(found.source ? { source: found.source } : {}) },
      {
        runtime: localTaskRuntime({ kubeconfig, namespace: 'default', logsDir: path.join(root, 'logs'), settings: { imageCheck: false } }),
        waitMs: 50,
        retryMs: 10,
        onEvent: (event) => events.push(event),
      },
    );
    return { summary: await execution.result, events };
  } finally {
    await found.dispose();
  }
}

const step = (name: string, commands: string[], extra = '') =>
  `  - name: ${name}\n    image: alpine:3.20\n    commands:\n${commands.map((c) => `      - ${JSON.stringify(c)}\n`).join('')}${extra}`;
const onFailure = '    when: {status: [failure]}\n';

describe('steps that run after a failure', () => {
  it('run once a step has failed, with its Error and Cause, and leave the outcome as it was', async () => {
    const pipeline =
      'version: 1\nsteps:\n' +
      step('test', ['echo testing > result.txt', 'exit 3']) +
      step('report', ['cat result.txt', 'echo "status=$CI_BUILD_STATUS error=$CI_FAILURE_ERROR"', 'echo "cause=$CI_FAILURE_CAUSE"'], onFailure) +
      step('deploy', ['echo never']) +
      step('notify', ['echo "notifying"', 'exit 1'], onFailure) +
      step('cleanup', ['echo "still runs"'], onFailure);
    const { summary, events } = await build('after-fail', pipeline);
    expect(summary).toMatchObject({ status: 'FAILED', error: 'StepFailed' });
    expect(summary.cause).toContain('exit code 3');
    expect(summary.steps.map((s) => [s.name, s.status])).toEqual([
      ['clone', 'succeeded'],
      ['test', 'failed'],
      ['deploy', 'not-run'],
      ['report', 'succeeded'],
      ['notify', 'failed'],
      ['cleanup', 'succeeded'],
    ]);
    // The report read the workspace the failed step wrote, and the failure it followed.
    const report = finishedStep(events, 3)!;
    const log = await readFile(report.log!, 'utf8');
    expect(log).toContain('testing');
    expect(log).toContain('status=failure error=StepFailed');
    expect(log).toContain(`cause=${summary.cause}`);
    // Nothing is left once the build has ended.
    expect((await api.listNamespacedPod({ namespace: 'default', labelSelector: `${Labels.build}=after-fail` })).items).toEqual([]);
    expect((await api.listNamespacedPersistentVolumeClaim({ namespace: 'default', labelSelector: `${Labels.build}=after-fail` })).items.filter((c) => !c.metadata?.deletionTimestamp)).toEqual([]);
  }, 60_000);

  it('start only once the steps still running beside the failed one are stopped', async () => {
    const pipeline =
      'version: 1\nsteps:\n' +
      step('slow', ['sleep 30'], '    needs: []\n') +
      step('broken', ['exit 2'], '    needs: []\n') +
      step('report', ['echo report'], onFailure);
    const { summary, events } = await build('after-fail-par', pipeline);
    expect(summary).toMatchObject({ status: 'FAILED', error: 'StepFailed' });
    expect(summary.steps.map((s) => [s.name, s.status])).toEqual([
      ['clone', 'succeeded'],
      ['slow', 'aborted'],
      ['broken', 'failed'],
      ['report', 'succeeded'],
    ]);
    const stopped = events.find((e) => e.type === 'StateExited' && e.state?.name === 'StopSteps')!;
    const launched = events.find((e) => e.type === 'StateExited' && e.state?.name === 'LaunchAfterFailure')!;
    expect((stopped.state!.output as { stopped: { deletedPods: number } }).stopped.deletedPods).toBeGreaterThanOrEqual(1);
    expect(launched.timestamp).toBeGreaterThanOrEqual(stopped.timestamp);
  }, 60_000);

  it('are skipped in a build that succeeds', async () => {
    const { summary } = await build('after-ok', 'version: 1\nsteps:\n' + step('test', ['echo ok']) + step('report', ['echo report'], onFailure));
    expect(summary).toMatchObject({ status: 'SUCCEEDED' });
    expect(summary.steps.map((s) => [s.name, s.status, s.reason])).toEqual([
      ['clone', 'succeeded', undefined],
      ['test', 'succeeded', undefined],
      ['report', 'skipped', NOT_AFTER_A_FAILURE],
    ]);
  }, 60_000);
});
