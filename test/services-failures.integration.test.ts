/**
 * A step's services failing on a real build: the state machine run locally against the embedded
 * cluster, whose kubelet runs each service as a native sidecar (an init container with
 * restartPolicy Always). A service whose image cannot be pulled fails the build with
 * ImagePullFailed naming the service; a service that exits fails it with ServiceFailed and the
 * service's log tail; either way the step ends within one poll of the kubelet's report and no pod
 * is left behind. The image check is off for these builds, so the kubelet's pull decides (with it
 * on, PrepareBuild would refuse the missing image before any pod).
 * On the process runtime: the missing image is refused in the catalog's words.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { buildSelector } from '../lib/kube/index.js';
import { finishedStep, type ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { waitFor } from './fixtures/wait-for.js';
import { localBuildsForFile } from './fixtures/local-builds.js';

/** A database that cannot start: it says why on its log, then exits as postgres does. */
const BROKEN_DB = 'registry.example.test/ci/broken-db:1';
const BROKEN_DB_SCRIPT = [
  'echo "The files belonging to this database system will be owned by user postgres."',
  'echo "initdb: error: directory \\"/var/lib/postgresql/data\\" exists but is not empty" >&2',
  'exit 3',
].join('; ');

/** A service that runs but never listens: its port never opens. */
const SILENT_DB = 'registry.example.test/ci/silent-db:1';

const builds = localBuildsForFile({
  prefix: 'services-failures',
  images: [
    { image: BROKEN_DB, size: 1000000, entrypoint: ['/bin/sh', '-c', BROKEN_DB_SCRIPT] },
    { image: SILENT_DB, size: 1000000, entrypoint: ['/bin/sh', '-c', 'echo "starting, but listening on nothing"; sleep 60'] },
  ],
  settings: { imageCheck: false },
});
const build = builds.build;

/**
 * The build's pods that nobody asked to delete, once the execution has ended: none. Then every pod
 * gone for good (a service that ignores SIGTERM holds its pod for the grace period of 10 s).
 */
async function podsLeft(buildId: string): Promise<number> {
  const list = async () => (await builds.api.listNamespacedPod({ namespace: 'default', labelSelector: buildSelector(buildId) })).items;
  const kept = (await list()).filter((pod) => !pod.metadata?.deletionTimestamp).length;
  if (kept > 0) return kept;
  await waitFor(async () => (await list()).length === 0, { timeoutMs: 20000, what: `the pods of ${buildId} to be gone` });
  return 0;
}

/** PollStep states of the step's iteration after the one that first saw the failure reported. */
function pollsAfterReport(events: readonly ExecutionEvent[], reported: (poll: { phase: string; reason: string }) => boolean): number {
  const polls = events
    .filter((e) => e.type === 'StateExited' && e.state?.name === 'PollStep')
    .map((e) => (e.state?.output as { poll: { phase: string; reason: string } }).poll);
  const first = polls.findIndex(reported);
  return first < 0 ? -1 : polls.length - 1 - first;
}

/**
 * The step's commands outlast any failing service by far: a step that ended first would succeed
 * (its service's exit would no longer matter), which is a race and not what these tests ask.
 */
const pipeline = (service: string, top = '') => `version: 1
checkout: false
${top}steps:
  - name: test
    image: alpine:3.20
    commands: ["echo the tests ran", "sleep 60"]
    services:
${service}`;

describe('a step whose service cannot run', () => {
  it('fails the build with ImagePullFailed naming the service and its image when the image does not exist', async () => {
    const id = 'svc-pull';
    const { summary, events } = await build(id, pipeline('      - name: db\n        image: alpine:3.99-does-not-exist\n        ports: [5432]\n'));
    expect(summary).toMatchObject({ status: 'FAILED', error: 'ImagePullFailed' });
    expect(summary.cause).toContain('service "db"');
    expect(summary.cause).toContain('"alpine:3.99-does-not-exist"');
    expect(summary.cause).toMatch(/not in the local image catalog/);
    // The step's own commands never ran.
    expect(finishedStep(events)?.logTail ?? '').not.toContain('the tests ran');
    // The poll that first saw the pull failure ended the step: it was the last poll.
    expect(pollsAfterReport(events, (poll) => poll.phase === 'failed')).toBe(0);
    expect(summary.steps[0]).toMatchObject({
      name: 'test',
      status: 'failed',
      error: 'ImagePullFailed',
      services: [{ name: 'db', image: 'alpine:3.99-does-not-exist', state: 'waiting', exitCode: null, log: null }],
    });
    expect(await podsLeft(id)).toBe(0);
  });

  // The kubelet restarts the service at once, then after its back-off: FinishStep may come before
  // a restart, after one (the new run's log still empty) or between its look and its read, and
  // quotes the run that failed in each case (failed-service-log.ts; tasks-on-fake-cluster.test.ts
  // holds each order). Every run prints the same lines, so which run failed does not matter here.
  it('fails the build with ServiceFailed, the exit code and the service\'s log tail when the service exits', async () => {
    const id = 'svc-exit';
    const { summary, events } = await build(id, pipeline(`      - name: db\n        image: ${BROKEN_DB}\n`));
    expect(summary).toMatchObject({ status: 'FAILED', error: 'ServiceFailed' });
    expect(summary.cause).toContain('Service "db" of step "test"');
    expect(summary.cause).toContain('exit code 3');
    expect(summary.cause).toContain('Last lines of the log of service "db":');
    expect(summary.cause).toContain('initdb: error: directory "/var/lib/postgresql/data" exists but is not empty');
    expect(pollsAfterReport(events, (poll) => poll.phase === 'failed')).toBe(0);
    const [step] = summary.steps;
    expect(step).toMatchObject({ name: 'test', status: 'failed', error: 'ServiceFailed', services: [{ name: 'db', image: BROKEN_DB, exitCode: 3 }] });
    // The service's whole log is kept beside the step's, under BUILD/STEP.services.SERVICE.log.
    const location = step!.services![0]!.log!;
    expect(path.basename(location)).toBe('test.services.db.log');
    expect(await readFile(location, 'utf8')).toContain('will be owned by user postgres');
    expect(await podsLeft(id)).toBe(0);
  });

  it('fails the build with ServiceFailed naming the port when the service never opens it within the grace period', async () => {
    const id = 'svc-port';
    const { summary, events } = await build(id, pipeline(`      - name: db\n        image: ${SILENT_DB}\n        ports: [1]\n`, 'service-start-grace: 3s\n'));
    expect(summary).toMatchObject({ status: 'FAILED', error: 'ServiceFailed' });
    expect(summary.cause).toContain('Service "db" of step "test"');
    expect(summary.cause).toContain('never opened port 1');
    expect(summary.cause).toContain('connection refused');
    expect(summary.cause).toContain('starting, but listening on nothing');
    // While it waited, the step was pending on the service, not running.
    const waited = events.filter((e) => e.type === 'StateExited' && e.state?.name === 'PollStep').map((e) => (e.state?.output as { poll: { reason: string } }).poll.reason);
    expect(waited.slice(0, -1).every((reason) => reason !== 'Running')).toBe(true);
    // Failed at the grace, not when the service ended by itself (it sleeps 60 s, then exits 0):
    // still running, or stopped by the kubelet for its failed probe (SIGTERM, or SIGKILL after the grace).
    expect([null, 143, 137]).toContain(summary.steps[0]?.services?.[0]?.exitCode);
    expect(await podsLeft(id)).toBe(0);
  });
});
