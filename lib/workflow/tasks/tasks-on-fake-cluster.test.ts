/**
 * The workflow's tasks against the in-memory StepCluster (lib/kube/fake-cluster.ts): what they ask
 * of the cluster and what they make of its answers, without the embedded API server. The adapter's
 * own requests (retries, the API's refusals, adoption over HTTP) are tested against the embedded
 * cluster (test/*.integration.test.ts).
 */
import type { V1ContainerStatus, V1ObjectMeta } from '@kubernetes/client-node';
import { Annotations, BUILD_DEADLINE_ANNOTATION, labelValue, Labels, MANAGED_BY, stepPodName, succeededStepAnnotation, type StepCluster } from '../../kube/index.js';
import { fakeStepCluster, logKey, objectKey, type FakeStepCluster } from '../../kube/fake-cluster.js';
import type { Step } from '../../pipeline/types.js';
import { parseImageReference } from '../../pipeline/index.js';
import type { BuildSettings, PollState, StepInput } from '../state-data.js';
import type { CacheStore } from '../cache-store.js';
import type { StepLogStore, StepRecord } from '../step-log-store.js';
import type { TaskDeps } from '../task-deps.js';
import { cleanupBuild } from './cleanup-build.js';
import { cleanupEndedExecution } from './cleanup-ended-execution.js';
import type { EndedBuild } from '../build-trace.js';
import { finishStep } from './finish-step.js';
import { launchStep } from './launch-step.js';
import { waitForNeeds } from './wait-for-needs.js';
import { gzipSync } from 'node:zlib';
import { reportBundleKey } from '../step-reports.js';

const NS = 'ci';
const T0 = Date.parse('2026-03-14T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);

/** The logs as a test reads them: each kept log by `build/step`. */
function memoryLogs(): StepLogStore & { kept: Map<string, string>; records: StepRecord[] } {
  const kept = new Map<string, string>();
  const records: StepRecord[] = [];
  return {
    kept,
    records,
    partEveryMs: 0,
    put: async (build, step, log) => (kept.set(`${build}/${step}`, log), `mem://${build}/${step}`),
    putPart: async (build, step) => `mem://${build}/${step}.parts`,
    liveLocation: (build, step) => `mem://${build}/${step}.parts`,
    complete: async (build, step) => ({ location: `mem://${build}/${step}`, tail: kept.get(`${build}/${step}`) ?? '' }),
    putResult: async (_build, record) => void records.push(record),
    results: async () => records,
  };
}

function taskDeps(cluster: StepCluster, now: () => Date = () => at(0)): TaskDeps & { logs: ReturnType<typeof memoryLogs> } {
  return { cluster, logs: memoryLogs(), now, log: { info: () => undefined, warn: () => undefined } };
}

const step = (name: string, extra: Partial<Step> = {}): Step => ({ name, image: 'alpine:3.20', imageRef: parseImageReference('alpine:3.20'), commands: ['make'], env: {}, pull: 'if-not-present', timeoutSeconds: 600, secrets: [], ...extra });
const settings: BuildSettings = { imagePullGraceSeconds: 60, unschedulableGraceSeconds: 120 };
const input = (of: Step, extra: Partial<StepInput> = {}): StepInput => ({ build: { id: 'b-42' }, namespace: NS, settings, step: of, index: 0, ...extra });

/** An object the runner made for `build`, as its cleanup and sweeps find them: its labels and its exact build. */
const runnerMeta = (name: string, build: string): V1ObjectMeta => ({
  name,
  namespace: NS,
  labels: { [Labels.managedBy]: MANAGED_BY, [Labels.build]: labelValue(build) },
  annotations: { [Annotations.build]: build },
});

/** Sets a pod's phase, as the kubelet would report it. */
function phase(cluster: FakeStepCluster, name: string, to: 'Running' | 'Succeeded' | 'Failed'): void {
  const pod = cluster.pods.get(objectKey(NS, name))!;
  cluster.pods.set(objectKey(NS, name), { ...pod, status: { ...pod.status, phase: to } });
}

describe('LaunchStep', () => {
  it('creates the step\'s pod, and a retried LaunchStep adopts it, keeping its creation time so the step\'s deadline does not restart', async () => {
    const cluster = fakeStepCluster({ now: () => at(0) });
    const first = await launchStep(input(step('build')), taskDeps(cluster, () => at(0)));
    const again = await launchStep(input(step('build')), taskDeps(cluster, () => at(90)));

    expect(first).toMatchObject({ podName: stepPodName('b-42', 'build'), reason: 'PodCreated', launchedAt: at(0).toISOString() });
    expect(again).toMatchObject({ podName: first.podName, reason: 'PodAdopted', launchedAt: at(0).toISOString() });
    expect([...cluster.pods.keys()]).toEqual([objectKey(NS, first.podName)]);
  });

  it('refuses, as PodConfigError, a pod of the same name that belongs to another build', async () => {
    const cluster = fakeStepCluster();
    cluster.put('pod', { metadata: { ...runnerMeta(stepPodName('b-42', 'build'), 'b-7'), labels: { ...runnerMeta('', 'b-7').labels, [Labels.step]: 'build' } } });

    await expect(launchStep(input(step('build')), taskDeps(cluster))).rejects.toMatchObject({
      name: 'PodConfigError',
      message: expect.stringContaining(`a pod named "${stepPodName('b-42', 'build')}" already exists in namespace "${NS}" and belongs to step "build" of build "b-7"`),
    });
  });
});

describe('LaunchStep of a step whose cache cannot be planned', () => {
  it('launches it without its cache, and the step\'s own log says why before its commands', async () => {
    const cluster = fakeStepCluster();
    // The clone's key hashes were never stored: the step's exact key cannot be named.
    const store = { signingCredentials: async () => ({ temporary: false }), buildKeys: async () => ({}) } as unknown as CacheStore;
    const cached = step('test', { cache: [{ key: { files: ['package-lock.json'] }, paths: ['node_modules'], fallbackKeys: [], policy: 'pull-push', filesLine: 4 }] });
    const withCache = { ...settings, workspace: { claimName: 'b-42-workspace' }, cache: { image: 'curlimages/curl:8.11.1', prefix: 'cache/', file: 'ci.yml', keyFiles: [] } };
    const { podName } = await launchStep({ ...input(cached), settings: withCache }, { ...taskDeps(cluster), cache: store });

    const pod = cluster.pods.get(objectKey(NS, podName))!;
    expect(pod.spec?.initContainers ?? []).toEqual([]);
    const script = pod.spec!.containers[0]!.command!.at(-1)!;
    expect(script.split('\n').slice(0, 2)).toEqual([
      'set -e',
      "printf '%s\\n' 'cache: this step runs without its cache: the clone reported no hash for the cache key files package-lock.json (line 4)'",
    ]);
  });
});

describe('WaitForNeeds, looking without a watch', () => {
  const deploy = step('deploy', { needs: ['unit'] });

  it('waits while the needed step runs, and past its pod\'s success until its FinishStep has stored what it leaves; then lets the step start', async () => {
    const cluster = fakeStepCluster();
    const unit = step('unit', { needed: true });
    const { podName } = await launchStep(input(unit), taskDeps(cluster));
    phase(cluster, podName, 'Running');
    const running = await waitForNeeds(input(deploy), taskDeps(cluster));
    phase(cluster, podName, 'Succeeded');
    const succeeded = await waitForNeeds(input(deploy, { needs: running }), taskDeps(cluster));
    await finishStep(input(unit, { poll: { podName, launchedAt: at(0).toISOString(), runningSince: at(1).toISOString(), phase: 'succeeded', reason: 'Completed', nextPollSeconds: 0, polls: 2, exitCode: 0 } }), taskDeps(cluster));
    const met = await waitForNeeds(input(deploy, { needs: succeeded }), taskDeps(cluster));

    expect(running).toMatchObject({ met: false, waitingFor: ['unit'], launched: ['unit'] });
    expect(succeeded).toMatchObject({ met: false, waitingFor: ['unit'] });
    expect(cluster.calls.filter((call) => call.startsWith('markStepFinished'))).toEqual([`markStepFinished ${NS}/${podName}`]);
    expect(met).toMatchObject({ met: true, done: ['unit'], nextPollSeconds: 0 });
  });

  it('answers at once that the needs will never be met when the needed step\'s pod failed; another build\'s success does not count', async () => {
    const cluster = fakeStepCluster();
    const { podName } = await launchStep(input(step('unit', { needed: true })), taskDeps(cluster));
    phase(cluster, podName, 'Failed');
    const other = await launchStep({ ...input(step('unit')), build: { id: 'b-7' } }, taskDeps(cluster));
    phase(cluster, other.podName, 'Succeeded');

    expect(await waitForNeeds(input(deploy), taskDeps(cluster))).toMatchObject({ met: false, unmet: { step: 'unit', reason: 'it needs "unit", which failed' } });
  });
});

describe('FinishStep', () => {
  const poll = (podName: string, phase: PollState['phase']): PollState => ({ podName, launchedAt: at(0).toISOString(), runningSince: at(2).toISOString(), phase, reason: 'Completed', nextPollSeconds: 0, polls: 3, ...(phase === 'failed' ? { error: 'StepFailed', exitCode: 1 } : { exitCode: 0 }) });

  it('keeps the log with the step\'s secrets masked, then deletes the pod', async () => {
    const cluster = fakeStepCluster();
    cluster.put('secret', { metadata: { name: 'deploy-key', namespace: NS }, stringData: { token: 's3cr3t-value' } });
    const withSecret = step('build', { secrets: [{ env: 'TOKEN', secret: 'deploy-key', key: 'token' }] });
    const { podName } = await launchStep(input(withSecret), taskDeps(cluster));
    cluster.logs.set(logKey(NS, podName), 'pushing with s3cr3t-value\ndone\n');
    const deps = taskDeps(cluster);

    const result = await finishStep(input(withSecret, { poll: poll(podName, 'succeeded') }), deps);

    expect(result).toMatchObject({ status: 'succeeded', log: 'mem://b-42/build' });
    expect(deps.logs.kept.get('b-42/build')).toBe('pushing with ***\ndone\n');
    expect(cluster.pods.has(objectKey(NS, podName))).toBe(false);
  });

  it("reads a failed step's test reports into its result and its record, their messages masked, and ends its log, not its tail, with what they said", async () => {
    const cluster = fakeStepCluster();
    cluster.put('secret', { metadata: { name: 'deploy-key', namespace: NS }, stringData: { token: 's3cr3t-value' } });
    const tested = step('test', { secrets: [{ env: 'TOKEN', secret: 'deploy-key', key: 'token' }], reports: { junit: ['reports/*.xml', 'go/**/junit.xml'] } });
    const { podName } = await launchStep(input(tested), taskDeps(cluster));
    cluster.logs.set(logKey(NS, podName), 'FAIL src/login.test.js\n');
    const xml = '<testsuite name="login"><testcase classname="login" name="logs in"><failure>Error: bad token s3cr3t-value\n    at Object.&lt;anonymous&gt; (/workspace/src/login.test.js:7:3)</failure></testcase><testcase classname="login" name="logs out"/></testsuite>';
    const bundle = gzipSync(`step-runner-reports 1\nunmatched 0 go/**/junit.xml\nfile ${Buffer.byteLength(xml)} reports/junit.xml\n${xml}`);
    const objects = new Map([[reportBundleKey({ step: tested, build: { id: 'b-42' } }), bundle]]);
    const store = {
      download: async (key: string) => (objects.has(key) ? { size: objects.get(key)!.length, body: (async function* () { yield new Uint8Array(objects.get(key)!); })() } : undefined),
      locationOf: (key: string) => `s3://bucket/${key}`,
    } as unknown as CacheStore;
    const deps = { ...taskDeps(cluster), cache: store };

    const result = await finishStep(input(tested, { poll: poll(podName, 'failed') }), deps);

    const tests = { passed: 1, failed: 1, skipped: 0, failures: [{ name: 'logs in', classname: 'login', file: 'src/login.test.js', line: 7, message: 'Error: bad token ***' }], problems: ['no file matches go/**/junit.xml'] };
    expect(result).toMatchObject({ status: 'failed', error: 'StepFailed', tests, logTail: 'FAIL src/login.test.js' });
    expect(deps.logs.records).toEqual([expect.objectContaining({ step: 'test', tests })]);
    expect(deps.logs.kept.get('b-42/test')).toBe('FAIL src/login.test.js\ntest reports: 1 passed, 1 failed, 0 skipped\ntest reports: no file matches go/**/junit.xml\n');
  });

  describe('of a step whose service failed, quoting the run of the service that failed, which the kubelet restarts at once', () => {
    const FAILED = 'initdb: error: directory "/var/lib/postgresql/data" exists but is not empty\n';
    const withDb = step('test', { services: [{ name: 'db', image: 'postgres:16', imageRef: parseImageReference('postgres:16'), env: {}, ports: [], secrets: [], pull: 'if-not-present' }] });
    const serviceFailed = (podName: string): PollState => ({ ...poll(podName, 'failed'), error: 'ServiceFailed', exitCode: 3, service: 'db', cause: 'Service "db" of step "test" exited with exit code 3' });
    /** The db sidecar's status: exited 3 and not yet restarted, or restarted and running its next run (containerd's IDs). */
    const exited: V1ContainerStatus = { name: 'db', image: 'postgres:16', imageID: '', ready: false, started: false, restartCount: 0, containerID: 'containerd://first', state: { terminated: { exitCode: 3, reason: 'Error', startedAt: at(1), finishedAt: at(2), containerID: 'containerd://first' } }, lastState: {} };
    const restarted: V1ContainerStatus = { ...exited, restartCount: 1, containerID: 'containerd://second', state: { running: { startedAt: at(2) } }, lastState: exited.state };
    const runningStep = { name: 'step', image: 'alpine:3.20', imageID: '', ready: true, started: true, restartCount: 0, state: { running: { startedAt: at(1) } } };
    function withStatus(cluster: FakeStepCluster, podName: string, db: V1ContainerStatus): void {
      const pod = cluster.pods.get(objectKey(NS, podName))!;
      cluster.pods.set(objectKey(NS, podName), { ...pod, spec: { ...pod.spec!, nodeName: 'node-1' }, status: { phase: 'Running', initContainerStatuses: [db], containerStatuses: [runningStep] } });
    }
    /** What the node does on the restart: the failed run's log becomes the previous one, the new run's starts empty. */
    function restart(cluster: FakeStepCluster, podName: string): void {
      withStatus(cluster, podName, restarted);
      cluster.previousLogs.set(logKey(NS, podName, 'db'), cluster.logs.get(logKey(NS, podName, 'db')) ?? '');
      cluster.logs.set(logKey(NS, podName, 'db'), '');
    }

    it.each([
      ['before the kubelet restarted it', () => undefined],
      ['after the kubelet restarted it', restart],
      ['when the kubelet restarts it between FinishStep\'s look at the pod and its read of the log', 'between'],
    ] as const)('%s', async (_when, arrange) => {
      const cluster = fakeStepCluster();
      const { podName } = await launchStep(input(withDb), taskDeps(cluster));
      withStatus(cluster, podName, exited);
      cluster.logs.set(logKey(NS, podName, 'db'), `The files belonging to this database system will be owned by user "postgres".\n${FAILED}`);
      if (arrange === 'between') {
        const read = cluster.readLog;
        let restartedYet = false;
        cluster.readLog = async (...args) => {
          if (!restartedYet && args[2] === 'db') {
            restartedYet = true;
            restart(cluster, podName);
          }
          return read(...args);
        };
      } else arrange(cluster, podName);
      const deps = taskDeps(cluster);

      const result = await finishStep(input(withDb, { poll: serviceFailed(podName) }), deps);

      expect(result.cause).toContain(`Last lines of the log of service "db":`);
      expect(result.cause).toContain(FAILED.trim());
      expect(deps.logs.kept.get('b-42/test.services.db')).toContain(FAILED);
    });
  });

  it('keeps the pod of a succeeded step others need, and marks the step succeeded on the build\'s claim for a re-run', async () => {
    const cluster = fakeStepCluster();
    cluster.put('claim', { metadata: runnerMeta('b-42-workspace', 'b-42') });
    const withClaim = { ...settings, workspace: { claimName: 'b-42-workspace' } };
    const { podName } = await launchStep({ ...input(step('unit', { needed: true })), settings: withClaim }, taskDeps(cluster));

    await finishStep({ ...input(step('unit', { needed: true })), settings: withClaim, poll: poll(podName, 'succeeded') }, taskDeps(cluster, () => at(30)));

    expect(cluster.pods.has(objectKey(NS, podName))).toBe(true);
    expect(cluster.claims.get(objectKey(NS, 'b-42-workspace'))?.metadata?.annotations).toMatchObject({ [succeededStepAnnotation('unit')]: at(30).toISOString() });
  });
});

describe('CleanupBuild', () => {
  function buildObjects(): FakeStepCluster {
    const cluster = fakeStepCluster({ now: () => at(0) });
    for (const build of ['b-42', 'b-7']) {
      cluster.put('pod', { metadata: runnerMeta(`${build}-unit`, build) });
      cluster.put('claim', { metadata: { ...runnerMeta(`${build}-workspace`, build), annotations: { ...runnerMeta('', build).annotations, [BUILD_DEADLINE_ANNOTATION]: '3600' } } });
      cluster.put('secret', { metadata: runnerMeta(`${build}-git`, build) });
    }
    cluster.put('pod', { metadata: runnerMeta('b-42-lint', 'b-42') });
    // Another tool's pod, and one on its way out (FinishStep deleted it): neither is the cleanup's to delete.
    cluster.put('pod', { metadata: { name: 'helm-hook', namespace: NS, labels: { [Labels.managedBy]: 'Helm' } } });
    cluster.put('pod', { metadata: { ...runnerMeta('b-42-docs', 'b-42'), deletionTimestamp: at(0) } });
    return cluster;
  }
  const names = (store: Map<string, { metadata?: V1ObjectMeta }>) => [...store.values()].map((object) => object.metadata?.name).sort();

  it('deletes the build\'s pods, claim and Secrets, and nothing of another build or tool', async () => {
    const cluster = buildObjects();

    expect(await cleanupBuild({ build: { id: 'b-42' } }, NS, taskDeps(cluster))).toEqual({ deletedPods: 2, deletedClaims: 1, deletedSecrets: 1 });
    expect(names(cluster.pods)).toEqual(['b-42-docs', 'b-7-unit', 'helm-hook']);
    expect(names(cluster.claims)).toEqual(['b-7-workspace']);
    expect(names(cluster.secrets)).toEqual(['b-7-git']);
  });

  it('keeps a failed build\'s claim and Secrets for a re-run of the steps that did not succeed', async () => {
    const cluster = buildObjects();
    await cluster.recordStepSucceeded(NS, 'b-42-workspace', 'unit', at(60));
    const failed = { build: { id: 'b-42' }, steps: [step('unit'), step('lint')], settings: { ...settings, workspace: { claimName: 'b-42-workspace' } }, failure: { Error: 'StepFailed' } };

    const result = await cleanupBuild(failed, NS, taskDeps(cluster, () => at(600)), { keepFailedSeconds: 3600 });

    expect(result).toMatchObject({ deletedPods: 2, deletedClaims: 0, deletedSecrets: 0, rerun: { steps: [{ name: 'lint' }], keptSeconds: 3600 } });
    expect(names(cluster.claims)).toEqual(['b-42-workspace', 'b-7-workspace']);
    expect(names(cluster.secrets)).toEqual(['b-42-git', 'b-7-git']);
    // Kept an hour from now: the orphan sweep deletes them after that.
    expect(cluster.claims.get(objectKey(NS, 'b-42-workspace'))?.metadata?.annotations?.[BUILD_DEADLINE_ANNOTATION]).toBe(String(600 + 3600));
  });
});

describe('CleanupEndedExecution', () => {
  it("sends a stopped build's trace: its recorded steps, and the step whose pod still ran, read before the pods are deleted", async () => {
    const cluster = fakeStepCluster({ now: () => at(0) });
    const deps = taskDeps(cluster, () => at(900));
    const launched = await launchStep(input(step('test')), { ...deps, now: () => at(10) });
    phase(cluster, launched.podName, 'Running');
    const clone = { step: 'clone', status: 'succeeded' as const, exitCode: 0, error: null, startedAt: at(1).toISOString(), endedAt: at(8).toISOString() };
    deps.logs.records.push(clone);
    const traces: EndedBuild[] = [];
    const exportTrace = async (ended: EndedBuild) => (traces.push(ended), true);
    const launchedCalls = cluster.calls.length;
    // As EventBridge delivers StopExecution's end (startDate and stopDate in ms).
    const event = { detail: { executionArn: 'arn:aws:states:us-east-1:123456789012:execution:build:b-42', name: 'b-42', status: 'ABORTED', input: JSON.stringify({ build: { id: 'b-42' }, namespace: NS }), startDate: at(0).getTime(), stopDate: at(30).getTime() } };

    await cleanupEndedExecution(event, NS, { ...deps, exportTrace });

    expect(traces).toEqual([
      {
        build: { id: 'b-42' },
        outcome: 'failed',
        failure: { Error: 'ExecutionAborted', Cause: expect.any(String) },
        startedAt: at(0).toISOString(),
        endedAt: at(30).toISOString(),
        executionArn: event.detail.executionArn,
        steps: [clone],
        running: [{ step: 'test', startedAt: at(0).toISOString(), timings: expect.objectContaining({ created: at(0).toISOString() }) }],
      },
    ]);
    // Its pod looked at once, then deleted with the build's.
    const calls = cluster.calls.slice(launchedCalls).map((call) => call.split(' ')[0]);
    expect(calls.slice(0, calls.indexOf('deleteBuildPods') + 1)).toEqual(['listPods', 'observePod', 'deleteBuildPods']);
    expect(cluster.pods.size).toBe(0);
  });
});
