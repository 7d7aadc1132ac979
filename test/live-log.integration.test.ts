/**
 * A running step's log is kept in the log store as it grows, not only read at the end: PollStep
 * follows it while it watches the pod, and past the watch each poll reads on from where the last
 * one stopped. So the store holds a line while the step that printed it still runs; every line of a
 * step that prints far more than the kubelet keeps in one file (the embedded cluster here rotates
 * at 4 KiB, as a kubelet at containerLogMaxSize), or says exactly which it could not read; and no
 * secret, even one whose lines come in different writes.
 *
 * Nothing here sleeps on the poll schedule: the Wait states take milliseconds (`waitMs`), and each
 * step waits for the test's word (a file the test creates) where the order of events is the point.
 * On the process runtime: a step sees this machine's files, which is how it waits for the test's word.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { CoreV1Api, Log, type V1Pod } from '@kubernetes/client-node';
import { followContainerLog, rotationGapNote, SECRET_MASK, sinceTimeOf, STEP_CONTAINER, stepPodName, type LogPosition } from '../lib/kube/index.js';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster, type FaultInjector, type FaultRequest } from '../lib/emulators/kubernetes/index.js';
import { startLocalExecution, type ExecutionEvent, type ExecutionSummary } from '../lib/emulators/stepfunctions/executor.js';
import { printedStatusReporter } from '../lib/emulators/lambda/printed-status.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { runBuild } from '../lib/cli/commands/run.js';
import type { WorkflowSettings } from '../lib/workflow/settings.js';
import type { PollState } from '../lib/workflow/state-data.js';
import { stepLogName } from '../lib/workflow/step-log-store.js';
import { waitFor } from './fixtures/wait-for.js';

const KUBELET_ROTATES_AT = 4 * 1024;
/** Watched for the first second of running, then polled without a watch. */
const SHORT_WATCH: Partial<WorkflowSettings> = { runningWatchUntilSeconds: 2 };
const WAITING = { timeoutMs: 20_000 };

/** What the API does to the next request; switched per test. */
let faults: FaultInjector = () => undefined;
/** Every request for a pod's log, in order, and what it asked for. */
const logReads: { pod: string; follow: boolean; sinceTime: string | undefined }[] = [];
let cluster: EmbeddedCluster;
let api: CoreV1Api;
let root: string;
const logsDir = () => path.join(root, 'logs');

function observe(request: FaultRequest): void {
  const pod = /\/pods\/([^/]+)\/log$/.exec(request.path)?.[1];
  if (pod) logReads.push({ pod, follow: request.query.get('follow') === 'true', sinceTime: request.query.get('sinceTime') ?? undefined });
}

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS, logLimitBytes: KUBELET_ROTATES_AT, faults: (request) => (observe(request), faults(request)) });
  api = cluster.kubeConfig().makeApiClient(CoreV1Api);
  root = await mkdtemp(path.join(tmpdir(), 'live-log-'));
  await mkdir(path.join(root, 'signals'));
  await writeFile(path.join(root, 'kubeconfig'), cluster.kubeconfigYaml());
  await api.createNamespacedSecret({
    namespace: 'default',
    body: { metadata: { name: 'ci-key' }, stringData: { key: 'first-line-of-the-key-AAAA\nsecond-line-of-the-key-BBBB' } },
  });
});
afterAll(async () => {
  await cluster.stop();
  await rm(root, { recursive: true, force: true });
});

/** One step's commands as a pipeline's steps (block scalars: the commands hold brackets and colons). */
const step = (name: string, commands: string[]) => `  - name: ${name}\n    image: alpine:3.20\n    commands:\n${commands.map((command) => `      - '${command}'\n`).join('')}`;
/** What the step's log shows of a command before its output (step-script.ts). */
const traced = (command: string) => `+ ${command}\n`;

const signal = (name: string) => path.join(root, 'signals', name);
/** The test's word to a step waiting in `awaitSignal`. */
const give = (name: string) => writeFile(signal(name), '');
/**
 * A command that waits for the test's word; a step not given it goes on after about 10 s, and its
 * log says so (a test that would otherwise hang fails on what it stored).
 */
const awaitSignal = (name: string) => `for i in $(seq 500); do [ -e ${signal(name)} ] && break; sleep 0.02; done; [ -e ${signal(name)} ] || echo gave up waiting for ${name}`;

function build(id: string, steps: string, options: { onEvent?: (event: ExecutionEvent) => void; settings?: Partial<WorkflowSettings> } = {}): Promise<ExecutionSummary> {
  const { onEvent, settings } = options;
  return startLocalExecution(
    { build: { id, trigger: 'test' }, pipeline: { file: 'p.yml', text: `version: 1\ncheckout: false\nsteps:\n${steps}` }, withoutSource: 'the steps print' },
    {
      runtime: localTaskRuntime({ kubeconfig: path.join(root, 'kubeconfig'), namespace: 'default', logsDir: logsDir(), ...(settings ? { settings } : {}) }),
      statuses: printedStatusReporter(() => {}),
      overrides: { waitMs: 20, retryMs: 10 },
      ...(onEvent ? { onEvent } : {}),
    },
  ).result;
}

const stored = (id: string, name: string) => readFile(path.join(logsDir(), stepLogName(id, name)), 'utf8').catch(() => '');
const podPhase = async (id: string, name: string) => (await api.readNamespacedPod({ namespace: 'default', name: stepPodName(id, name) }).catch(() => undefined))?.status?.phase;
const plainReads = (id: string, name: string) => logReads.filter((read) => read.pod === stepPodName(id, name) && !read.follow);

/** The history's order: whether FinishStep has begun yet. */
function finishWatch(): { onEvent: (event: ExecutionEvent) => void; readonly begun: boolean } {
  let begun = false;
  return {
    onEvent: (event) => {
      if (event.type === 'StateEntered' && event.state?.name === 'FinishStep') begun = true;
    },
    get begun() {
      return begun;
    },
  };
}

interface FollowedLog {
  /** What has come so far, timestamps and all. */
  readonly raw: string;
  /** Every line once the log has ended, with the kubelet's timestamp. */
  lines(): Promise<{ stamp: string; text: string }[]>;
}

/** A follow of the whole log from the start, as a user's `kubectl logs -f --timestamps` sees it: it goes on across rotations. */
async function followWhole(id: string, name: string): Promise<FollowedLog> {
  let raw = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      raw += chunk.toString('utf8');
      callback();
    },
  });
  const ended = new Promise<void>((resolve) => sink.on('finish', resolve));
  await new Log(cluster.kubeConfig()).log('default', stepPodName(id, name), STEP_CONTAINER, sink, { follow: true, timestamps: true });
  return {
    get raw() {
      return raw;
    },
    async lines() {
      await ended;
      return raw
        .split(/(?<=\n)/)
        .filter((line) => line !== '')
        .map((line) => ({ stamp: line.slice(0, line.indexOf(' ')), text: line.slice(line.indexOf(' ') + 1) }));
    },
  };
}

describe('a running step\'s log', () => {
  it('is in the store while the step still runs: before its pod ends, before FinishStep', async () => {
    const wait = awaitSignal('live-line');
    const finish = finishWatch();
    const running = build('live-line', step('talk', ['echo hello from a running step', wait]), { onEvent: finish.onEvent });
    // The step goes on only once its line is in the store.
    const seen = await waitFor(async () => (await stored('live-line', 'talk')).includes('hello from a running step\n') && { phase: await podPhase('live-line', 'talk'), finishing: finish.begun }, {
      ...WAITING,
      what: 'the line in the store',
    });
    await give('live-line');
    expect((await running).status).toBe('SUCCEEDED');
    expect(seen).toEqual({ phase: 'Running', finishing: false });
    expect(await stored('live-line', 'talk')).toBe(`${traced('echo hello from a running step')}hello from a running step\n${traced(wait)}`);
  }, 30_000);

  it('is kept whole when the step prints far more than the kubelet keeps in one file, right up to its exit', async () => {
    // 3000 numbered lines, about 200 KiB in the node's files (fifty rotations), at once, while the
    // poll that watches the pod follows the log; the step exits straight after the last one.
    const wait = awaitSignal('chatty');
    const burst = 'i=0; while [ $i -lt 3000 ]; do echo "line $i of the chatty step"; i=$((i+1)); done';
    const running = build('rotated', step('chatty', ['echo start', wait, burst]));
    await waitFor(async () => (await stored('rotated', 'chatty')).includes('start\n'), { ...WAITING, what: 'the follow under way' });
    await give('chatty');
    expect((await running).status).toBe('SUCCEEDED');
    const text = await stored('rotated', 'chatty');
    const lines = text.split('\n').filter((line) => line.startsWith('line '));
    expect(lines).toHaveLength(3000);
    expect(lines.every((line, i) => line === `line ${i} of the chatty step`)).toBe(true);
    expect(text).not.toContain('[step-runner:');
  }, 30_000);

  it('masks a multi-line secret whose lines reach the store in different writes', async () => {
    const wait = awaitSignal('secret-split');
    const running = build(
      'secret-split',
      `${step('leak', ['echo "$KEY" | sed -n 1p', wait, 'echo "$KEY" | sed -n 2p'])}    secrets:\n      - { env: KEY, secret: ci-key, key: key }\n`,
    );
    // The second line is printed only once the first is in the store, masked.
    await waitFor(async () => (await stored('secret-split', 'leak')).includes(`${SECRET_MASK}\n`), { ...WAITING, what: 'the first line kept' });
    await give('secret-split');
    expect((await running).status).toBe('SUCCEEDED');
    const text = await stored('secret-split', 'leak');
    expect(text).not.toContain('first-line-of-the-key');
    expect(text).not.toContain('second-line-of-the-key');
    expect(text.split('\n').filter((line) => line === SECRET_MASK)).toHaveLength(2);
    expect(text).not.toMatch(/^gave up waiting/m);
  }, 30_000);

  it('past the running watch\'s limit, is read by each poll from where the last one stopped, while the step runs', async () => {
    const polls: PollState[] = [];
    const finish = finishWatch();
    const onEvent = (event: ExecutionEvent) => {
      finish.onEvent(event);
      if (event.type === 'TaskSucceeded' && event.state?.name === 'PollStep') polls.push(event.state.output as PollState);
    };
    const [watchOver, kept, halfRead] = [awaitSignal('past-limit-watch'), awaitSignal('past-limit-kept'), awaitSignal('past-limit-half')];
    const halfPrinted = signal('past-limit-half-printed');
    const halfLine = `printf half-; touch ${halfPrinted}; ${halfRead}; echo written`;
    const running = build('past-limit', step('slow', [watchOver, 'echo after the watch', kept, halfLine]), { onEvent, settings: SHORT_WATCH });
    // A read without follow: the watch is over.
    await waitFor(() => plainReads('past-limit', 'slow').length > 0, { ...WAITING, what: 'a poll past the watch' });
    await give('past-limit-watch');
    const seen = await waitFor(async () => (await stored('past-limit', 'slow')).includes('after the watch\n') && { phase: await podPhase('past-limit', 'slow'), finishing: finish.begun }, {
      ...WAITING,
      what: 'the line in the store',
    });
    await give('past-limit-kept');
    // Two more polls read the log while its last line is half-written.
    await waitFor(() => existsSync(halfPrinted), { ...WAITING, what: 'half a line printed' });
    const readsBefore = plainReads('past-limit', 'slow').length;
    await waitFor(() => plainReads('past-limit', 'slow').length >= readsBefore + 2, { ...WAITING, what: 'two polls after it' });
    await give('past-limit-half');
    expect((await running).status).toBe('SUCCEEDED');
    expect(seen).toEqual({ phase: 'Running', finishing: false });
    // Kept by polls without a watch; the half line kept once, whole.
    expect(await stored('past-limit', 'slow')).toBe(
      `${traced(watchOver)}${traced('echo after the watch')}after the watch\n${traced(kept)}${traced(halfLine)}half-written\n`,
    );
    // Every read of the log (a poll's after one that saw the step running, then FinishStep's) began
    // at the second of the position the poll before it returned ($.poll.log.position).
    const from = [...polls.slice(0, -1).filter((poll) => poll.phase === 'running'), polls.at(-1)!].map((poll) => sinceTimeOf(poll.log?.position));
    const reads = logReads.filter((read) => read.pod === stepPodName('past-limit', 'slow'));
    expect(reads.map((read) => read.sinceTime)).toEqual(from);
    // And it moved on as lines were kept: none at first, then (at least) after the first command's
    // trace, after "after the watch", and after the half line's command.
    expect(new Set(polls.map((poll) => JSON.stringify(poll.log?.position))).size).toBeGreaterThanOrEqual(4);
    expect(reads.filter((read) => !read.follow).length).toBeGreaterThanOrEqual(4);
  }, 30_000);

  it('past the running watch\'s limit, survives a poll whose read of it fails, and is whole at the end', async () => {
    // The first two plain reads fail (500): those polls go on without them, and the next reads on.
    let failed = 0;
    faults = (request) => {
      const plainRead = request.path.endsWith(`/pods/${stepPodName('log-fault', 'slow')}/log`) && request.query.get('follow') !== 'true';
      return plainRead && failed < 2 && ++failed ? { kind: 'status', code: 500 } : undefined;
    };
    const taskFailures: string[] = [];
    const [watchOver, kept] = [awaitSignal('log-fault-watch'), awaitSignal('log-fault-kept')];
    try {
      const running = build('log-fault', step('slow', [watchOver, 'echo after the watch', kept, 'echo later']), {
        onEvent: (event) => {
          if (event.type === 'StateFailed' || event.type === 'StateRetried') taskFailures.push(`${event.type} ${event.state?.name}`);
        },
        settings: SHORT_WATCH,
      });
      await waitFor(() => failed === 2, { ...WAITING, what: 'two failed reads' });
      await give('log-fault-watch');
      await waitFor(async () => (await stored('log-fault', 'slow')).includes('after the watch\n'), { ...WAITING, what: 'the line in the store' });
      await give('log-fault-kept');
      expect((await running).status).toBe('SUCCEEDED');
    } finally {
      faults = () => undefined;
    }
    expect(taskFailures).toEqual([]);
    expect(await stored('log-fault', 'slow')).toBe(`${traced(watchOver)}${traced('echo after the watch')}after the watch\n${traced(kept)}${traced('echo later')}later\n`);
  }, 30_000);

  it('past the running watch\'s limit, says exactly which lines the kubelet rotated away between two polls', async () => {
    // The step prints fifty files' worth at once while the polls cannot read (their reads fail):
    // the next read finds the newest file only, as a kubelet serves it.
    const id = 'rotated-away';
    let closed = false;
    faults = (request) => (closed && request.path.endsWith(`/pods/${stepPodName(id, 'chatty')}/log`) && request.query.get('follow') !== 'true' ? { kind: 'status', code: 500 } : undefined);
    const [watchOver, burstGo, afterKept] = [awaitSignal('rotate-watch'), awaitSignal('rotate-burst'), awaitSignal('rotate-kept')];
    const burst = 'i=0; while [ $i -lt 3000 ]; do echo "line $i of the burst"; i=$((i+1)); done';
    let whole: FollowedLog;
    try {
      const running = build(id, step('chatty', [watchOver, 'echo before the burst', burstGo, burst, 'echo after the burst', afterKept]), { settings: SHORT_WATCH });
      await waitFor(() => plainReads(id, 'chatty').length > 0, { ...WAITING, what: 'a poll past the watch' });
      // The test's own follow sees every line: what the copy is checked against.
      whole = await followWhole(id, 'chatty');
      await give('rotate-watch');
      // Kept up to the step's wait for the burst (its trace line included), so that all the lines
      // the rotation can take are the burst's.
      await waitFor(async () => (await stored(id, 'chatty')).includes(`before the burst\n${traced(burstGo)}`), { ...WAITING, what: 'the lines before the burst kept' });
      closed = true;
      await give('rotate-burst');
      await waitFor(() => whole.raw.includes(' after the burst\n'), { ...WAITING, what: 'the burst written' });
      closed = false;
      await waitFor(async () => (await stored(id, 'chatty')).includes('after the burst\n'), { ...WAITING, what: 'the line after the burst kept' });
      await give('rotate-kept');
      expect((await running).status).toBe('SUCCEEDED');
    } finally {
      faults = () => undefined;
    }
    const truth = await whole.lines();
    const kept = (await stored(id, 'chatty')).split(/(?<=\n)/);
    const notes = kept.filter((line) => line.startsWith('[step-runner:'));
    expect(notes).toHaveLength(1);
    // The copy is the log with one run of lines, all of the burst, in place of the note, which
    // names the times of the lines on either side of that run.
    const at = kept.indexOf(notes[0]!);
    const [before, after] = [kept.slice(0, at), kept.slice(at + 1)];
    expect(truth.slice(0, before.length).map((line) => line.text)).toEqual(before);
    expect(truth.slice(truth.length - after.length).map((line) => line.text)).toEqual(after);
    const lost = truth.slice(before.length, truth.length - after.length);
    expect(lost.length).toBeGreaterThan(0);
    expect(lost.filter((line) => line.text !== traced(burst) && !/^line \d+ of the burst\n$/.test(line.text))).toEqual([]);
    expect(notes[0]).toBe(rotationGapNote(truth[before.length - 1]!.stamp, truth[truth.length - after.length]!.stamp));
  }, 30_000);

  it('is printed by `run` line by line as it comes, once, before the step\'s result', async () => {
    const file = path.join(root, 'talk.yml');
    const wait = awaitSignal('run-first');
    await writeFile(file, `version: 1\ncheckout: false\nsteps:\n${step('talk', ['echo first line', wait, 'echo second line'])}`);
    const printed: string[] = [];
    const record = (line: string) => {
      printed.push(line);
      // The step prints its second line only once `run` has printed its first.
      if (/│ first line$/.test(line)) void give('run-first');
    };
    const code = await runBuild({ file, kubeconfig: path.join(root, 'kubeconfig') }, { out: record, err: record });
    expect(code).toBe(0);
    const when = (pattern: RegExp) => printed.filter((line) => pattern.test(line));
    expect(when(/│ first line$/)).toHaveLength(1);
    expect(when(/│ second line$/)).toHaveLength(1);
    expect(when(/│ gave up waiting/)).toEqual([]);
    expect(printed.indexOf(when(/│ second line$/)[0]!)).toBeLessThan(printed.indexOf(when(/FinishStep: succeeded/)[0]!));
  }, 30_000);
});

describe('a follow of a container\'s log', () => {
  it('stopped while its request is on its way, delivers no line after it has returned', async () => {
    // As an execution's end (Ctrl-C) stops PollStep's follow (lib/emulators/stepfunctions/in-flight.ts):
    // a line delivered after the follow had returned went into PollStep's copy of the log, already
    // closed, which wrote it into the state directory after `run` had returned.
    const name = 'stopped-follow';
    const body: V1Pod = { metadata: { name }, spec: { restartPolicy: 'Never', containers: [{ name: STEP_CONTAINER, image: 'alpine:3.20', command: ['/bin/sh', '-c', `echo before the stop; ${awaitSignal(name)}`] }] } };
    await api.createNamespacedPod({ namespace: 'default', body });
    const readLog = () => api.readNamespacedPodLog({ namespace: 'default', name, container: STEP_CONTAINER }).catch(() => '');
    await waitFor(async () => (await readLog()).includes('before the stop\n'), { ...WAITING, what: 'the line in the log' });
    // Stopped the moment the API server has the request, before its answer (the log so far) is sent.
    const stop = new AbortController();
    faults = (request) => {
      if (request.path.endsWith(`/pods/${name}/log`) && request.query.get('follow') === 'true') stop.abort();
      return undefined;
    };
    let returned = false;
    let delivered: LogPosition | undefined;
    const late: string[] = [];
    let position: LogPosition | undefined;
    try {
      position = await followContainerLog(cluster.kubeConfig(), 'default', name, STEP_CONTAINER, undefined, (text, at) => (returned ? late.push(text) : (delivered = at)), stop.signal);
      returned = true;
    } finally {
      faults = () => undefined;
    }
    // What the follow still had on its way comes with no further I/O (its stream's next tick): long before these round trips end.
    await give(name);
    await waitFor(async () => (await api.readNamespacedPod({ namespace: 'default', name })).status?.phase === 'Succeeded', { ...WAITING, what: 'the pod ended' });
    await api.deleteNamespacedPod({ namespace: 'default', name });
    expect({ late, position }).toEqual({ late: [], position: delivered });
  }, 30_000);
});
