/**
 * Whole builds through the real state machine definition (aws-local-stepfunctions), each Task bound
 * to the deployed handler code, against the embedded cluster over HTTP.
 * On the process runtime: a step runs in this machine's shell, and a missing image is refused in
 * the catalog's words (`not in the local image catalog`).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api, type CoreV1Event } from '@kubernetes/client-node';
import { stepPodName } from '../lib/kube/index.js';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalExecution, type ExecutionEvent, type ExecutionSummary, type LocalExecutionOptions } from '../lib/emulators/stepfunctions/executor.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import type { TaskRuntime } from '../lib/workflow/task-deps.js';
import { runBuild } from '../lib/cli/commands/run.js';
import { ConsoleOutput } from '../lib/local/console-output.js';
import type { PollState, StepResult } from '../lib/workflow/state-data.js';
import type { BuildRef, StatusRequest } from '../lib/contract/index.js';
import type { StatusReporter } from '../lib/workflow/tasks/report-status.js';
import { buildTrace, type EndedBuild } from '../lib/workflow/build-trace.js';
import { conclusionFor, endingOf } from '../lib/forge/check-run.js';
import { ATTR_CICD_PIPELINE_RESULT } from '@opentelemetry/semantic-conventions/incubating';
import { identityServiceAccountManifest } from '../lib/kube/index.js';
import { costWords, DEFAULT_PRICES, orchestrationDollars } from '../lib/workflow/cost-model.js';
import { deployedFunction } from '../lib/emulators/lambda/deployed-functions.js';
import { instanceTypeFor, kubernetesArch } from '../lib/emulators/kubernetes/node-labels.js';

const NAMESPACE = 'default';
let cluster: EmbeddedCluster;
let api: CoreV1Api;
let scratch: string;
let kubeconfig: string;
let runtime: TaskRuntime;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'scenarios-'));
  cluster = await startEmbeddedCluster({
    workspace: scratch,
    // Back-off long enough for a poll to see the transient error before the pull recovers.
    timings: { ...FAST_TIMINGS, backoffInitialMs: 300, backoffMaxMs: 300 },
    images: [
      {
        image: 'registry.example.com/team/flaky:1.0',
        failFirstPulls: { count: 2 },
      },
    ],
  });
  kubeconfig = path.join(scratch, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  api = kubeConfigFromFile(kubeconfig).makeApiClient(CoreV1Api);
  runtime = localTaskRuntime({ kubeconfig, namespace: NAMESPACE, logsDir: path.join(scratch, 'logs') });
});

afterAll(async () => {
  await cluster.stop();
  await rm(scratch, { recursive: true, force: true });
});

let buildCount = 0;
async function build(
  pipeline: string,
  onEvent?: (event: ExecutionEvent, abort: () => void) => void,
  ref: Omit<BuildRef, 'id'> = {},
  using: TaskRuntime = runtime,
  { overrides, statuses }: Pick<LocalExecutionOptions, 'overrides' | 'statuses'> = {},
) {
  const id = `scenario-${++buildCount}-${Date.now().toString(36)}`;
  const events: ExecutionEvent[] = [];
  const abort = () => execution.abort();
  const execution = startLocalExecution(
    { build: { id, trigger: 'test', ...ref }, pipeline: { file: 'pipeline.yml', text: pipeline }, withoutSource: 'these builds test their steps, not a checkout' },
    {
      runtime: using,
      overrides: { waitMs: 100, retryMs: 10, ...overrides },
      ...(statuses ? { statuses } : {}),
      onEvent: (event) => {
        events.push(event);
        onEvent?.(event, abort);
      },
    },
  );
  const summary: ExecutionSummary = await execution.result;
  return { id, summary, events, refused: execution.refused };
}

/** Every PollStep result of one step (Map iteration), in order. */
function polls(events: ExecutionEvent[], index: number): PollState[] {
  return events
    .filter((e) => e.type === 'StateExited' && e.state?.name === 'PollStep' && e.index === index)
    .map((e) => (e.state?.output as { poll: PollState }).poll);
}

async function podsOfBuild(buildId: string) {
  const list = await api.listNamespacedPod({ namespace: NAMESPACE, labelSelector: 'app.kubernetes.io/managed-by=serverless-step-runner' });
  return list.items.filter((pod) => pod.metadata?.annotations?.['step-runner.dev/build-id'] === buildId || pod.metadata?.name?.startsWith(buildId));
}

/** Pods are deleted with a short grace period; wait until the API no longer lists them. */
async function expectNoPodsLeft(buildId: string) {
  const deadline = Date.now() + 3000;
  let left = await podsOfBuild(buildId);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = await podsOfBuild(buildId);
  }
  expect(left.map((pod) => pod.metadata?.name)).toEqual([]);
}

async function eventsAbout(podName: string): Promise<CoreV1Event[]> {
  const list = await api.listNamespacedEvent({ namespace: NAMESPACE, fieldSelector: `involvedObject.name=${podName}` });
  return list.items;
}

/**
 * The build's cost is what the bench's model (orchestrationDollars, the one cost-model.ts) gives for
 * the transitions and GB-seconds the history shows, and the pods' part is their requests for their
 * time at the embedded node's instance type, its price split as OpenCost splits it, worked out here.
 */
async function expectCostOf(summary: ExecutionSummary, events: ExecutionEvent[], results: StepResult[]) {
  const cost = summary.cost!;
  // Step Functions bills every state entered, and every retry.
  const transitions = events.filter((e) => e.type === 'StateEntered' || e.type === 'StateRetried').length;
  // One invocation per Task state entered or retried, each timed at its function's memory in serverless.yml.
  const tasks = events.filter((e) => (e.type === 'StateEntered' || e.type === 'StateRetried') && e.state?.type === 'Task');
  const invoked = events.filter((e) => e.lambda);
  expect(invoked).toHaveLength(tasks.length);
  for (const e of invoked) expect(e.lambda!.memoryMb).toBe(deployedFunction(e.lambda!.function).memorySize);
  expect(invoked.filter((e) => e.state?.name === 'PollStep').map((e) => e.lambda!.memoryMb)).toContain(192);
  const gbSeconds = invoked.reduce((sum, e) => sum + (e.lambda!.memoryMb / 1024) * (e.lambda!.billedMs / 1000), 0);
  expect(cost.usage).toMatchObject({ transitions, lambda: { invocations: invoked.length, architecture: 'arm64' } });
  expect(cost.parts.stepFunctions + cost.parts.lambda).toBeCloseTo(orchestrationDollars(transitions, invoked.length, gbSeconds), 12);
  // The pods: step one asked for 500m and 256Mi; the others asked for nothing, and cost nothing.
  const type = instanceTypeFor(kubernetesArch(process.arch));
  expect(cost.usage.pods.map(({ step: name, cpu, memoryBytes, instanceType }) => ({ name, cpu, memoryBytes, instanceType }))).toEqual([
    { name: 'one', cpu: 0.5, memoryBytes: 256 * 2 ** 20, instanceType: type },
    { name: 'two', cpu: 0, memoryBytes: 0, instanceType: type },
    { name: 'three', cpu: 0, memoryBytes: 0, instanceType: type },
  ]);
  // Its time on the node (it sleeps a second): within the step's span (its pod's creation to its
  // FinishStep), give or take the second the API's times are kept to (metav1.Time is RFC 3339 in seconds).
  const one = cost.usage.pods[0]!;
  expect(one.seconds).toBeGreaterThanOrEqual(1);
  expect(one.seconds * 1000).toBeLessThanOrEqual(summary.steps[0]!.durationMs! + 1000);
  expect(results[0]!.pod).toEqual(one);
  const node = DEFAULT_PRICES.instanceTypes[type]!;
  const ratio = 0.031611 / 0.004237;
  const perGib = node.hourly / (node.vcpu * ratio + node.memoryGib);
  expect(cost.parts.pods).toBeCloseTo((0.5 * perGib * ratio + 0.25 * perGib) * (one.seconds / 3600), 15);
  expect(cost.usd).toBeCloseTo(cost.parts.stepFunctions + cost.parts.lambda + cost.parts.s3 + cost.parts.pods, 15);
  // Each step's log (its live log's parts, then the whole of it) and its record; the bytes of its log.
  for (const [i, result] of results.entries()) {
    const parts = polls(events, i).at(-1)?.log?.parts ?? 0;
    expect(result.s3!.puts).toBeGreaterThanOrEqual((parts > 0 ? parts + 1 : 1) + 1);
    expect(result.s3!.bytes).toBe(Buffer.byteLength(await readFile(result.log!, 'utf8')));
  }
  expect(cost.usage.s3).toEqual({
    puts: results.reduce((sum, r) => sum + r.s3!.puts, 0),
    gets: results.reduce((sum, r) => sum + r.s3!.gets, 0),
    bytesWritten: results.reduce((sum, r) => sum + r.s3!.bytes, 0),
  });
}

const step = (name: string, image: string, commands: string[]) =>
  `  - name: ${name}\n    image: ${image}\n    commands:\n${commands.map((c) => `      - ${JSON.stringify(c)}`).join('\n')}\n`;
/** A step whose image PrepareBuild does not check: the kubelet's pull failure is what these tests watch. */
const unchecked = (name: string, image: string, commands: string[]) => `${step(name, image, commands)}    image-check: false\n`;

describe('a build on the embedded cluster', () => {
  describe('a step with when: {branch: [main]}', () => {
    const pipeline =
      `version: 1\nsteps:\n${step('test', 'alpine:3.20', ['echo testing'])}` +
      `${step('deploy', 'alpine:3.20', ['echo deploying'])}    when:\n      branch: [main]\n` +
      `${step('report', 'alpine:3.20', ['echo reporting'])}`;

    it('is skipped on another branch: no iteration, no pod, listed in the summary in file order', async () => {
      const lines: string[] = [];
      const output = new ConsoleOutput('when');
      const { id, summary, events } = await build(pipeline, (event) => lines.push(...output.lines(event)), { ref: 'refs/heads/feature/x', event: 'push' });
      expect(summary.status).toBe('SUCCEEDED');
      expect(summary.steps).toMatchObject([
        { name: 'test', status: 'succeeded', exitCode: 0, error: null },
        { name: 'deploy', status: 'skipped', exitCode: null, error: null, reason: 'branch feature/x is not main' },
        { name: 'report', status: 'succeeded', exitCode: 0, error: null },
      ]);
      // Iteration i is the i-th step that runs: report is iteration 1.
      expect(events.filter((e) => e.type === 'MapIterationStarted').map((e) => e.index)).toEqual([0, 1]);
      const launched = events.filter((e) => e.type === 'StateExited' && e.state?.name === 'LaunchStep');
      expect(launched.map((e) => (e.state?.output as { step: { name: string } }).step.name)).toEqual(['test', 'report']);
      expect(await eventsAbout(stepPodName(id, 'deploy'))).toEqual([]);
      expect(lines).toContain('  ⤼ step "deploy" skipped: branch feature/x is not main');
      expect(lines).toContain('    ▶ [2/2] report');
      await expectNoPodsLeft(id);
    });

    it('runs on main', async () => {
      const { summary, events } = await build(pipeline, undefined, { ref: 'refs/heads/main', event: 'push' });
      expect(summary.status).toBe('SUCCEEDED');
      expect(summary.steps.map((s) => [s.name, s.status])).toEqual([
        ['test', 'succeeded'],
        ['deploy', 'succeeded'],
        ['report', 'succeeded'],
      ]);
      expect(events.filter((e) => e.type === 'MapIterationStarted').map((e) => e.index)).toEqual([0, 1, 2]);
    });
  });

  it('runs a step with an identity as its service account, and refuses a build the rules do not allow before any pod', async () => {
    const rules = { repositories: ['acme/site'], refs: ['refs/heads/main'], events: ['push'], forks: false };
    const identities = [
      { name: 'deploy', roleArn: 'arn:aws:iam::123456789012:role/deploy', rules },
      { name: 'ghost', roleArn: 'arn:aws:iam::123456789012:role/ghost', rules },
    ];
    const using = localTaskRuntime({ kubeconfig, namespace: NAMESPACE, logsDir: path.join(scratch, 'logs'), settings: { identities } });
    // As `kubectl apply -f deploy/identities.yaml` does for a deployment: deploy's account only.
    await api.createNamespacedServiceAccount({ namespace: NAMESPACE, body: identityServiceAccountManifest('deploy', NAMESPACE) });
    const pipeline = (identity: string) => `version: 1\nsteps:\n${step('test', 'alpine:3.20', ['echo testing'])}${step('ship', 'alpine:3.20', ['echo shipping'])}    identity: ${identity}\n`;
    const main = { repository: 'acme/site', ref: 'refs/heads/main', event: 'push' };

    const pods: Promise<string | undefined>[] = [];
    const allowed = await build(pipeline('deploy'), (event) => {
      if (event.type !== 'StateExited' || event.state?.name !== 'LaunchStep') return;
      const name = (event.state.output as { poll: PollState }).poll.podName;
      pods.push(api.readNamespacedPod({ name, namespace: NAMESPACE }).then((pod) => pod.spec?.serviceAccountName));
    }, main, using);
    expect(allowed.summary.status).toBe('SUCCEEDED');
    expect(await Promise.all(pods)).toEqual(['default', 'step-runner-id-deploy']);
    expect(allowed.summary.steps.map((s) => [s.name, s.identity])).toEqual([['test', undefined], ['ship', 'deploy']]);

    // A fork's pull request into main, and a push to another branch: refused before any pod.
    for (const ref of [
      { ...main, ref: 'refs/pull/7/head', event: 'pull_request', baseRef: 'refs/heads/main', pullRequest: { number: 7, fork: true } },
      { ...main, ref: 'refs/heads/feature' },
    ]) {
      const { summary, events } = await build(pipeline('deploy'), undefined, ref, using);
      expect({ status: summary.status, error: summary.error }).toEqual({ status: 'FAILED', error: 'IdentityNotAllowed' });
      expect(summary.cause).toMatch(/^Step "ship" asks for the identity "deploy", whose rule (forks \(.*\)|refs \[refs\/heads\/main\]) does not allow this build: repository acme\/site/);
      expect(events.filter((e) => e.state?.name === 'LaunchStep')).toEqual([]);
    }

    // Declared, but its service account was never applied: the API refuses the pod, as a real one does.
    const missing = await build(pipeline('ghost'), undefined, main, using);
    expect({ status: missing.summary.status, error: missing.summary.error }).toEqual({ status: 'FAILED', error: 'PodConfigError' });
    expect(missing.summary.cause).toContain('error looking up service account default/step-runner-id-ghost: serviceaccount "step-runner-id-ghost" not found');
  });

  it('runs three steps in order, keeps their logs and leaves no pod, and says what the build cost', async () => {
    const { id, summary, events } = await build(
      `version: 1\nsteps:\n${step('one', 'alpine:3.20', ['echo first', 'sleep 1'])}    resources: { cpu: 500m, memory: 256Mi }\n${step('two', 'busybox:1.37', ['echo second'])}${step('three', 'node:22-alpine', ['echo third'])}`,
      undefined,
      { repository: 'acme/web-app' },
    );
    expect(summary.status).toBe('SUCCEEDED');
    expect(summary.steps).toMatchObject([
      { name: 'one', status: 'succeeded', exitCode: 0, error: null, image: 'alpine:3.20' },
      { name: 'two', status: 'succeeded', exitCode: 0, error: null, image: 'busybox:1.37' },
      { name: 'three', status: 'succeeded', exitCode: 0, error: null, image: 'node:22-alpine' },
    ]);
    // Each step's span, one after the other, and where its whole log is.
    for (const [i, s] of summary.steps.entries()) {
      expect(s.durationMs).toBe(Date.parse(String(s.stoppedAt)) - Date.parse(String(s.startedAt)));
      expect(s.log).toMatch(new RegExp(`${['one', 'two', 'three'][i]}\\.log$`));
      if (i > 0) expect(Date.parse(String(s.startedAt))).toBeGreaterThanOrEqual(Date.parse(String(summary.steps[i - 1]?.stoppedAt)));
    }
    const started = events.filter((e) => e.type === 'MapIterationStarted').map((e) => e.index);
    expect(started).toEqual([0, 1, 2]);
    const results = events
      .filter((e) => e.type === 'TaskSucceeded' && e.state?.name === 'FinishStep')
      .map((e) => e.state?.output as StepResult);
    expect(results.map((r) => r.logTail)).toEqual(['+ echo first\nfirst\n+ sleep 1', '+ echo second\nsecond', '+ echo third\nthird']);
    expect(await readFile(results[1]!.log!, 'utf8')).toContain('second');
    // What the step's metrics are measured from (lib/kube/pod-timings.ts), as the API's pods and watches give it: each point once, in order.
    for (const index of [0, 1, 2]) {
      const { created, scheduled, started, finished } = polls(events, index).at(-1)!.timings ?? {};
      const instants = [created, scheduled, started, finished].map((instant) => Date.parse(String(instant)));
      expect(instants.every((ms, i) => Number.isFinite(ms) && (i === 0 || ms >= instants[i - 1]!))).toBe(true);
    }
    await expectNoPodsLeft(id);
    await expectCostOf(summary, events, results);
  });

  it('stops at a missing image on the poll that first sees it, and never launches a later step', async () => {
    const { id, summary, events, refused } = await build(
      `version: 1\nsteps:\n${step('one', 'alpine:3.20', ['echo first'])}${unchecked('two', 'alpine:3.99-nope', ['echo never'])}${step('three', 'alpine:3.20', ['echo never'])}${step('four', 'alpine:3.20', ['echo never'])}`,
    );
    expect(summary.status).toBe('FAILED');
    expect(summary.error).toBe('ImagePullFailed');
    expect(summary.cause).toContain('"two"');
    expect(summary.cause).toContain('alpine:3.99-nope');
    expect(summary.cause).toContain('not in the local image catalog');
    expect(summary.steps.map((s) => s.status)).toEqual(['succeeded', 'failed', 'not-run', 'not-run']);

    // No poll ever reported the pull failure as merely pending: the first that saw it ended the step.
    const stepTwo = polls(events, 1);
    expect(stepTwo.at(-1)).toMatchObject({ phase: 'failed', error: 'ImagePullFailed' });
    expect(stepTwo.slice(0, -1).filter((p) => /ImagePull|ErrImage/.test(p.reason))).toEqual([]);

    // The kubelet did report it, and the later steps' pods were never created.
    const pulled = await eventsAbout(stepPodName(id, 'two'));
    expect(pulled.some((e) => e.reason === 'Failed' && e.message?.includes('not in the local image catalog'))).toBe(true);
    expect(await eventsAbout(stepPodName(id, 'three'))).toEqual([]);
    expect(await eventsAbout(stepPodName(id, 'four'))).toEqual([]);
    expect(events.filter((e) => e.type === 'MapIterationStarted').map((e) => e.index)).toEqual([0, 1]);
    // The definition's MaxConcurrency 1: step two started only once step one had ended.
    const ended = events.findIndex((e) => e.type === 'MapIterationSucceeded' && e.index === 0);
    expect(ended).toBeGreaterThan(-1);
    expect(events.findIndex((e) => e.type === 'MapIterationStarted' && e.index === 1)).toBeGreaterThan(ended);
    // What the local executor held back (aws-local-stepfunctions starts queued iterations after a
    // failure; Step Functions does not) is only ever a later step, refused at its first task.
    for (const refusal of refused) expect(refusal).toEqual({ index: expect.any(Number), state: 'LaunchStep' });
    expect(refused.every((r) => r.index > 1)).toBe(true);
    await expectNoPodsLeft(id);
  });

  it('fails with StepFailed, the exit code and the log tail when a command exits 3', async () => {
    const { id, summary } = await build(
      `version: 1\nsteps:\n${step('check', 'alpine:3.20', ['echo checking', 'echo "broken thing" >&2; exit 3', 'echo unreachable'])}${step('after', 'alpine:3.20', ['echo never'])}`,
    );
    expect(summary).toMatchObject({ status: 'FAILED', error: 'StepFailed' });
    expect(summary.cause).toMatch(/exit(ed)? (with )?(code )?3/i);
    expect(summary.cause).toContain('broken thing');
    expect(summary.cause).not.toContain('unreachable');
    expect(summary.steps).toMatchObject([
      { name: 'check', status: 'failed', exitCode: 3, error: 'StepFailed' },
      { name: 'after', status: 'not-run', exitCode: null, error: null, startedAt: null, stoppedAt: null, durationMs: null, log: null },
    ]);
    await expectNoPodsLeft(id);
  });

  it('waits out a transient pull error that recovers', async () => {
    const { summary, events } = await build(`version: 1\nsteps:\n${step('flaky', 'registry.example.com/team/flaky:1.0', ['echo pulled at last'])}`);
    expect(summary.status).toBe('SUCCEEDED');
    expect(polls(events, 0).some((p) => p.phase === 'pending' && /ErrImagePull|ImagePullBackOff/.test(p.reason))).toBe(true);
  });

  it('reports PodLost when the pod is deleted mid-step', async () => {
    let deleted = false;
    const { summary } = await build(`version: 1\nsteps:\n${step('long', 'alpine:3.20', ['sleep 5'])}`, (event) => {
      const poll = (event.state?.output as { poll?: PollState } | undefined)?.poll;
      if (!deleted && event.type === 'StateExited' && event.state?.name === 'PollStep' && poll?.phase === 'running') {
        deleted = true;
        void api.deleteNamespacedPod({ name: poll.podName, namespace: NAMESPACE, gracePeriodSeconds: 0 });
      }
    });
    expect(deleted).toBe(true);
    expect(summary).toMatchObject({ status: 'FAILED', error: 'PodLost' });
    expect(summary.cause).toContain('"long"');
  });

  it('deletes the running pod when the execution is aborted (Ctrl-C)', async () => {
    let aborted = false;
    const { id, summary } = await build(`version: 1\nsteps:\n${step('long', 'alpine:3.20', ['sleep 30'])}`, (event, abort) => {
      const poll = (event.state?.output as { poll?: PollState } | undefined)?.poll;
      if (!aborted && event.type === 'StateExited' && event.state?.name === 'PollStep' && poll?.phase === 'running') {
        aborted = true;
        abort();
      }
    });
    expect(aborted).toBe(true);
    expect(summary.status).toBe('ABORTED');
    await expectNoPodsLeft(id);
  });

  it("ends a build past the execution's time limit as Step Functions does: TIMED_OUT, its pod deleted, its check run timed out, its trace sent", async () => {
    const reports: StatusRequest[] = [];
    const statuses: StatusReporter = { report: async (request) => (reports.push(request), { posted: false, reason: 'recorded by the test' }) };
    const traces: EndedBuild[] = [];
    const traced: TaskRuntime = { ...runtime, deps: { ...runtime.deps, exportTrace: async (ended) => (traces.push(ended), true) } };
    const lines: string[] = [];
    const output = new ConsoleOutput('test');
    // In place of the definition's 8 days: three times what the step took to be running at a load of 10 (under a second).
    const { id, summary } = await build(`version: 1\nsteps:\n${step('long', 'alpine:3.20', ['sleep 600'])}`, (event) => lines.push(...output.lines(event)), {}, traced, {
      overrides: { executionTimeoutSeconds: 3 },
      statuses,
    });

    expect(summary).toMatchObject({ status: 'TIMED_OUT', error: 'States.Timeout' });
    expect(lines.join('\n')).toMatch(/Execution TIMED_OUT after \d+\.\ds/);
    await expectNoPodsLeft(id);
    // The ended-execution rule's status, as GitHub then shows it: a check run concluded timed_out, saying how long it ran.
    const stopped = reports.at(-1)!;
    expect(stopped).toMatchObject({ outcome: 'stopped', failure: { Error: 'ExecutionTimedOut' } });
    expect(stopped.failure!.Cause).toMatch(/^The execution ran \d+s, past the state machine's time limit, and Step Functions ended it; its pods were deleted/);
    expect(conclusionFor(endingOf('stopped', stopped.failure))).toBe('timed_out');
    // One trace, its run and the step still running ended by the timeout.
    expect(traces).toHaveLength(1);
    const root = buildTrace(traces[0]!);
    expect(root).toMatchObject({ error: 'ExecutionTimedOut', attributes: { [ATTR_CICD_PIPELINE_RESULT]: 'timeout' } });
    expect(root.children.map((span) => [span.name, span.error, span.end])).toEqual([['long', 'ExecutionTimedOut', root.end]]);
    // Its cost counts the step it stopped, its pod priced until the end as FinishStep would have, and the check run says the same.
    expect(summary.cost!.usage.pods.map((pod) => [pod.step, pod.instanceType])).toEqual([['long', instanceTypeFor(kubernetesArch(process.arch))]]);
    expect(summary.cost!.usage.pods[0]!.seconds).toBeGreaterThan(0);
    expect(stopped.cost?.usd).toBe(summary.cost!.usd);
  });

  it('prints what the console would show: iterations, polls, the Error and the Cause', async () => {
    const console = new ConsoleOutput('test');
    const lines: string[] = [];
    await build(
      `version: 1\nsteps:\n${step('slow', 'alpine:3.20', ['sleep 1', 'echo done'])}${unchecked('pull', 'alpine:3.99-nope', ['true'])}`,
      (event) => lines.push(...console.lines(event)),
    );
    const text = lines.join('\n');
    expect(text).toContain('▶ [1/2] slow');
    // One poll held a watch through the whole run (lib/cli/console-output.test.ts folds repeats).
    expect(text).toMatch(/· PollStep #\d+: running \(Running\)\n {6}· PollStep #\d+: succeeded \(Completed\)/);
    expect(text).toContain('│ done');
    expect(text).toContain('✗ [2/2] pull: ImagePullFailed');
    expect(text).toMatch(/Execution FAILED in \d+\.\ds\n {2}Error: ImagePullFailed\n {2}Cause: Step "pull"/);
  });
});

describe('step-runner run', () => {
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
  };

  it('rejects an invalid pipeline with exit 2 before anything is created', async () => {
    const file = path.join(scratch, 'bad.yml');
    await writeFile(file, `version: 1\nsteps:\n  - name: Build\n    image: alpine:3.20\n    commands: [true]\n`);
    const before = (await api.listNamespacedEvent({ namespace: NAMESPACE })).items.length;
    const { out, err, io: streams } = io();
    const code = await runBuild({ file, kubeconfig, json: true }, streams);
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(/InvalidPipeline: .*bad\.yml line 3.*"Build"/);
    expect(JSON.parse(out.at(-1)!)).toMatchObject({ status: 'FAILED', error: 'InvalidPipeline', steps: [] });
    expect((await api.listNamespacedEvent({ namespace: NAMESPACE })).items.length).toBe(before);
  });

  it('prints the summary object as the last line of stdout with --json', async () => {
    const file = path.join(scratch, 'missing.yml');
    await writeFile(file, `version: 1\nsteps:\n${unchecked('pull', 'alpine:0.0-missing', ['true'])}`);
    const { out, err, io: streams } = io();
    const code = await runBuild({ file, kubeconfig, json: true }, streams);
    expect(code).toBe(1);
    const summary = JSON.parse(out.at(-1)!) as ExecutionSummary;
    expect(summary).toMatchObject({ status: 'FAILED', error: 'ImagePullFailed', steps: [{ name: 'pull', status: 'failed' }] });
    // What it cost, said after its end (on stderr with --json), as the summary's cost has it.
    expect(err.at(-1)).toBe(`Cost: ${costWords(summary.cost!)}; how it is counted: docs/cost.md`);
    expect(summary.events[0]).toMatchObject({ type: 'ExecutionStarted', state: null });
    expect(summary.events.at(-1)).toMatchObject({ type: 'ExecutionFailed' });
  });
});
