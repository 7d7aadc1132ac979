/**
 * A running step's log is kept in the log store as it grows, not only read at the end: PollStep
 * follows it while it watches the pod. So the store holds a line within moments of the step
 * printing it, every line of a step that prints more than the kubelet keeps (the embedded cluster
 * here keeps 4 KiB per container, as a kubelet rotates at containerLogMaxSize), and no secret,
 * even one whose lines come in different writes.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { SECRET_MASK, stepPodName } from '../lib/kube/index.js';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster, type FaultInjector } from '../lib/local/cluster/index.js';
import { startLocalExecution, type ExecutionEvent, type ExecutionSummary } from '../lib/local/executor.js';
import { printedStatusReporter } from '../lib/local/printed-status.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { runBuild } from '../lib/local/commands/run.js';
import type { WorkflowSettings } from '../lib/workflow/settings.js';
import { stepLogName } from '../lib/workflow/step-log-store.js';
import { logger } from '../lib/workflow/lambda-task.js';

const KUBELET_KEEPS = 4 * 1024;
/** What the API does to the next request; switched per test. */
let faults: FaultInjector = () => undefined;
let cluster: EmbeddedCluster;
let root: string;
const logsDir = () => path.join(root, 'logs');

beforeAll(async () => {
  logger.setLogLevel('SILENT');
  cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS, logLimitBytes: KUBELET_KEEPS, faults: (request) => faults(request) });
  root = await mkdtemp(path.join(tmpdir(), 'live-log-'));
  await writeFile(path.join(root, 'kubeconfig'), cluster.kubeconfigYaml());
  await cluster.kubeConfig().makeApiClient(CoreV1Api).createNamespacedSecret({
    namespace: 'default',
    body: { metadata: { name: 'ci-key' }, stringData: { key: 'first-line-of-the-key-AAAA\nsecond-line-of-the-key-BBBB' } },
  });
});
afterAll(async () => {
  await cluster.stop();
  await rm(root, { recursive: true, force: true });
});

function build(id: string, steps: string, onEvent?: (event: ExecutionEvent) => void, settings?: Partial<WorkflowSettings>): Promise<ExecutionSummary> {
  return startLocalExecution(
    { build: { id, trigger: 'test' }, pipeline: { file: 'p.yml', text: `version: 1\ncheckout: false\nsteps:\n${steps}` }, withoutSource: 'the steps print' },
    {
      runtime: localTaskRuntime({ kubeconfig: path.join(root, 'kubeconfig'), namespace: 'default', logsDir: logsDir(), ...(settings ? { settings } : {}) }),
      statuses: printedStatusReporter(() => {}),
      ...(onEvent ? { onEvent } : {}),
    },
  ).result;
}

const stored = (id: string, step: string) => readFile(path.join(logsDir(), stepLogName(id, step)), 'utf8').catch(() => '');

describe('a running step\'s log', () => {
  it('is in the store within a second of being printed, while the step still runs', async () => {
    let printedSeen: { at: number; running: boolean } | undefined;
    let launched = 0;
    const watching = setInterval(() => {
      void stored('live-line', 'talk').then(async (text) => {
        if (printedSeen || !text.includes('hello from a running step')) return;
        const pod = await cluster.kubeConfig().makeApiClient(CoreV1Api).readNamespacedPod({ namespace: 'default', name: stepPodName('live-line', 'talk') }).catch(() => undefined);
        printedSeen = { at: Date.now(), running: pod?.status?.phase === 'Running' };
      });
    }, 50);
    try {
      const summary = await build('live-line', '  - name: talk\n    image: alpine:3.20\n    commands: [echo hello from a running step, sleep 4]\n', (event) => {
        if (event.type === 'StateExited' && event.state?.name === 'LaunchStep') launched = event.timestamp;
      });
      expect(summary.status).toBe('SUCCEEDED');
    } finally {
      clearInterval(watching);
    }
    // Seen while the pod still ran (it sleeps 4 s after printing), soon after the pod was made.
    expect(printedSeen?.running).toBe(true);
    expect(printedSeen!.at - launched).toBeLessThan(2500);
    expect(await stored('live-line', 'talk')).toBe('+ echo hello from a running step\nhello from a running step\n+ sleep 4\n');
  }, 30_000);

  it('is kept whole when the step prints far more than the kubelet keeps', async () => {
    // 3000 numbered lines (about 80 KiB, twenty times what the node keeps), over a couple of
    // seconds, once the poll that follows the log has begun (the poll that saw the pod start).
    const script = 'sleep 1; i=0; while [ $i -lt 3000 ]; do echo "line $i of the chatty step"; i=$((i+1)); if [ $((i % 500)) -eq 0 ]; then sleep 0.3; fi; done';
    const summary = await build('rotated', `  - name: chatty\n    image: alpine:3.20\n    commands:\n      - '${script}'\n`);
    expect(summary.status).toBe('SUCCEEDED');
    const lines = (await stored('rotated', 'chatty')).split('\n').filter((line) => line.startsWith('line '));
    expect(lines).toHaveLength(3000);
    expect(lines.every((line, i) => line === `line ${i} of the chatty step`)).toBe(true);
  }, 30_000);

  it('masks a multi-line secret whose lines reach the store in different writes', async () => {
    const summary = await build(
      'secret-split',
      `  - name: leak\n    image: alpine:3.20\n    commands:\n      - echo "$KEY" | sed -n 1p\n      - sleep 1\n      - echo "$KEY" | sed -n 2p\n    secrets:\n      - { env: KEY, secret: ci-key, key: key }\n`,
    );
    expect(summary.status).toBe('SUCCEEDED');
    const text = await stored('secret-split', 'leak');
    expect(text).not.toContain('first-line-of-the-key');
    expect(text).not.toContain('second-line-of-the-key');
    expect(text.split('\n').filter((line) => line === SECRET_MASK)).toHaveLength(2);
  }, 30_000);

  it('past the running watch\'s limit, is read at each poll, while the step runs', async () => {
    // Watched for its first 2 s of running, then polled on the schedule (2 s, 4 s... apart).
    let printedSeen: { at: number; running: boolean } | undefined;
    let printedAt = 0;
    const watching = setInterval(() => {
      void stored('past-limit', 'slow').then(async (text) => {
        if (!printedAt && /half-$/m.test(text)) printedAt = Date.now();
        if (printedSeen || !text.includes('after the watch')) return;
        const pod = await cluster.kubeConfig().makeApiClient(CoreV1Api).readNamespacedPod({ namespace: 'default', name: stepPodName('past-limit', 'slow') }).catch(() => undefined);
        printedSeen = { at: Date.now(), running: pod?.status?.phase === 'Running' };
      });
    }, 50);
    let polls = 0;
    try {
      const summary = await build(
        'past-limit',
        `  - name: slow\n    image: alpine:3.20\n    commands:\n      - sleep 3\n      - echo after the watch\n      - sh -c 'printf half-; sleep 6; echo written'\n      - sleep 5\n`,
        (event) => {
          if (event.type === 'StateEntered' && event.state?.name === 'PollStep') polls++;
        },
        { runningWatchUntilSeconds: 2 },
      );
      expect(summary.status).toBe('SUCCEEDED');
    } finally {
      clearInterval(watching);
    }
    // Kept by a poll without a watch while the step slept on; a line half-written then is kept once whole.
    expect(printedSeen?.running).toBe(true);
    expect(printedAt).toBe(0);
    expect(await stored('past-limit', 'slow')).toBe('+ sleep 3\n+ echo after the watch\nafter the watch\n+ sh -c \'printf half-; sleep 6; echo written\'\nhalf-written\n+ sleep 5\n');
    // About 14 s of running: watched for 2 s, then polls doubling from 2 s, not one watch to the end.
    expect(polls).toBeGreaterThanOrEqual(4);
  }, 40_000);

  it('past the running watch\'s limit, survives a poll whose read of it fails, and is whole at the end', async () => {
    // The first two plain reads fail (500): those polls go on without them, and the next reads on.
    let failed = 0;
    faults = (request) => {
      const plainRead = request.path.endsWith(`/pods/${stepPodName('log-fault', 'slow')}/log`) && request.query.get('follow') !== 'true';
      return plainRead && failed < 2 && ++failed ? { kind: 'status', code: 500 } : undefined;
    };
    const taskFailures: string[] = [];
    try {
      const summary = await build(
        'log-fault',
        `  - name: slow\n    image: alpine:3.20\n    commands: [sleep 3, echo after the watch, sleep 4, echo later, sleep 3]\n`,
        (event) => {
          if (event.type === 'StateFailed' || event.type === 'StateRetried') taskFailures.push(`${event.type} ${event.state?.name}`);
        },
        { runningWatchUntilSeconds: 2 },
      );
      expect(summary.status).toBe('SUCCEEDED');
    } finally {
      faults = () => undefined;
    }
    expect(failed).toBe(2);
    expect(taskFailures).toEqual([]);
    expect(await stored('log-fault', 'slow')).toBe('+ sleep 3\n+ echo after the watch\nafter the watch\n+ sleep 4\n+ echo later\nlater\n+ sleep 3\n');
  }, 60_000);

  it('is printed by `run` line by line as it comes, once, before the step\'s result', async () => {
    const file = path.join(root, 'talk.yml');
    await writeFile(file, 'version: 1\ncheckout: false\nsteps:\n  - name: talk\n    image: alpine:3.20\n    commands: [echo first line, sleep 2, echo second line]\n');
    const printed: { at: number; line: string }[] = [];
    const record = (line: string) => printed.push({ at: Date.now(), line });
    const code = await runBuild({ file, kubeconfig: path.join(root, 'kubeconfig') }, { out: record, err: record });
    expect(code).toBe(0);
    const when = (pattern: RegExp) => printed.filter(({ line }) => pattern.test(line));
    expect(when(/│ first line$/)).toHaveLength(1);
    expect(when(/│ second line$/)).toHaveLength(1);
    const finished = when(/FinishStep: succeeded/)[0]!;
    // Printed while the step ran (it then slept 2 s), and the last line before the result.
    expect(finished.at - when(/│ first line$/)[0]!.at).toBeGreaterThan(1500);
    expect(printed.indexOf(when(/│ second line$/)[0]!)).toBeLessThan(printed.indexOf(finished));
  }, 30_000);
});
