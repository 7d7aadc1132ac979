/**
 * PollStep and FinishStep over a fake Kubernetes API that counts its requests: the build's
 * workspace claim reaches the observation, the checkout step is named as such, the workspace grace
 * comes from the settings (or the default), and a failed checkout's Cause ends with git's words.
 *
 * The fake answers only what was asked, as the API does: the pod of that namespace and name
 * (else 404), the events its field selector picks, and the log of the container named (400 for
 * one the pod does not have), so a task that asks for the wrong thing gets the API's answer.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApiException, type CoreV1Api, type CoreV1Event, type V1Pod } from '@kubernetes/client-node';
import { kubeStepCluster } from '../lib/kube/index.js';
import { pollStep } from '../lib/workflow/tasks/poll-step.js';
import { finishStep } from '../lib/workflow/tasks/finish-step.js';
import type { BuildSettings, PollState, StepInput } from '../lib/workflow/state-data.js';
import type { TaskDeps, TaskLog } from '../lib/workflow/task-deps.js';
import { directoryLogStore } from '../lib/local/stores/directory-log-store.js';
import { RESOURCES } from '../lib/emulators/kubernetes/resources.js';
import { matchesFields, parseFieldSelector } from '../lib/emulators/kubernetes/selectors.js';
import type { KubeObject } from '../lib/emulators/kubernetes/objects.js';
import { at, claimEvent, podEvent, stepPod, terminated, waiting } from './fixtures/kube/builders.js';
import { parseImageReference } from '../lib/pipeline/index.js';

const CLAIM = 'ws-b-42';
const silent = { info: () => undefined, warn: () => undefined } as unknown as TaskLog;

let logsDir: string;
beforeEach(async () => {
  logsDir = await mkdtemp(path.join(tmpdir(), 'kube-workspace-tasks-'));
});
afterEach(async () => {
  await rm(logsDir, { recursive: true, force: true });
});

/** The API's refusal, as client-node raises it. */
function status(code: number, reason: string, message: string): ApiException<string> {
  return new ApiException(code, reason, JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code }), {});
}

/** `logs`: each container's log, by container name. */
function fakeCluster(pod: V1Pod | null, events: { pod?: CoreV1Event[]; claim?: CoreV1Event[] } = {}, logs: Record<string, string> = {}) {
  const requests: string[] = [];
  const logsAsked: string[] = [];
  let stored = pod;
  const find = (namespace: string, name: string): V1Pod => {
    if (stored && stored.metadata?.namespace === namespace && stored.metadata?.name === name) return stored;
    throw status(404, 'NotFound', `pods "${name}" not found`);
  };
  const allEvents = [...(events.pod ?? []), ...(events.claim ?? [])];
  const api = {
    readNamespacedPod: async ({ namespace, name }: { namespace: string; name: string }) => {
      requests.push('read pod');
      return find(namespace, name);
    },
    listNamespacedEvent: async ({ namespace, fieldSelector }: { namespace: string; fieldSelector?: string }) => {
      const fields = parseFieldSelector(fieldSelector, RESOURCES.events!.fieldLabels);
      requests.push(fields.some((f) => f.field === 'involvedObject.kind' && f.value === 'PersistentVolumeClaim') ? 'list claim events' : 'list pod events');
      return { items: allEvents.filter((e) => e.metadata?.namespace === namespace && matchesFields(fields, e as unknown as KubeObject)) };
    },
    readNamespacedPodLog: async ({ namespace, name, container }: { namespace: string; name: string; container?: string }) => {
      requests.push('read log');
      const found = find(namespace, name);
      const main = (found.spec?.containers ?? []).map((c) => c.name);
      const init = (found.spec?.initContainers ?? []).map((c) => c.name);
      if (container === undefined && main.length !== 1) {
        throw status(400, 'BadRequest', `a container name must be specified for pod ${name}, choose one of: [${main.join(' ')}]${init.length > 0 ? ` or one of the init containers: [${init.join(' ')}]` : ''}`);
      }
      const asked = container ?? main[0]!;
      if (![...init, ...main].includes(asked)) throw status(400, 'BadRequest', `container ${asked} is not valid for pod ${name}`);
      logsAsked.push(asked);
      return logs[asked] ?? '';
    },
    deleteNamespacedPod: async ({ namespace, name }: { namespace: string; name: string }) => {
      requests.push('delete pod');
      find(namespace, name);
      stored = null;
      return {};
    },
  } as unknown as CoreV1Api;
  const deps: TaskDeps = { cluster: kubeStepCluster(async () => api), logs: directoryLogStore(logsDir), now: () => at(200), log: silent };
  return { deps, requests, logsAsked };
}

function input(stepName: string, settings: Partial<BuildSettings>, poll: Partial<PollState> = {}): StepInput {
  return {
    build: { id: 'b-42' },
    namespace: 'ci',
    settings: { imagePullGraceSeconds: 60, unschedulableGraceSeconds: 120, ...settings },
    step: { name: stepName, image: 'alpine/git:v2.54.0', imageRef: parseImageReference('alpine/git:v2.54.0'), commands: ['git fetch'], env: {}, pull: 'if-not-present', timeoutSeconds: 900, secrets: [] },
    index: 0,
    poll: {
      podName: `b-42-${stepName}`,
      launchedAt: at(0).toISOString(),
      runningSince: null,
      phase: 'pending',
      reason: 'PodCreated',
      nextPollSeconds: 1,
      polls: 3,
      ...poll,
    },
  };
}

const workspace = { workspace: { claimName: CLAIM }, checkoutStep: 'clone' };
const unplaced = stepPod({ step: 'clone', workspaceClaim: CLAIM, startedAt: null });
const classMissing = claimEvent(CLAIM, {
  reason: 'ProvisioningFailed',
  type: 'Warning',
  message: 'storageclass.storage.k8s.io "gp3" not found',
  first: 2,
  last: 190,
  count: 19,
});

describe('PollStep with a workspace', () => {
  it('reads the claim\'s events for a pod waiting for a node, and fails at once on a missing storage class', async () => {
    const cluster = fakeCluster(unplaced, { claim: [classMissing] });
    const poll = await pollStep(input('clone', workspace), cluster.deps);
    expect(cluster.requests.sort()).toEqual(['list claim events', 'list pod events', 'read pod']);
    expect(poll).toMatchObject({ phase: 'failed', error: 'WorkspaceUnavailable', reason: 'ProvisioningFailed' });
    expect(poll.cause).toContain('storageclass.storage.k8s.io "gp3" not found');
  });

  it('without a workspace in the settings, reads no claim: the same pod just waits', async () => {
    const cluster = fakeCluster(unplaced, { claim: [classMissing] });
    const poll = await pollStep(input('clone', {}), cluster.deps);
    expect(cluster.requests).not.toContain('list claim events');
    expect(poll.phase).toBe('pending');
  });

  it('a running step costs two requests', async () => {
    const cluster = fakeCluster(stepPod({ step: 'clone', workspaceClaim: CLAIM, phase: 'Running', state: { running: { startedAt: at(3) } } }));
    const poll = await pollStep(input('clone', workspace, { phase: 'running', runningSince: at(3).toISOString() }), cluster.deps);
    expect(cluster.requests.sort()).toEqual(['list pod events', 'read pod']);
    expect(poll.phase).toBe('running');
  });

  describe('the workspace grace period', () => {
    const creating = stepPod({ step: 'test', workspaceClaim: CLAIM, startedAt: 0, state: waiting('ContainerCreating') });
    const multiAttach = podEvent(creating, {
      reason: 'FailedAttachVolume',
      container: null,
      component: 'attachdetach-controller',
      message: 'Multi-Attach error for volume "pvc-16293fb9-4a67-4508-b112-178e5c4455cd" Volume is already exclusively attached to one node and can\'t be attached to another',
      first: 100,
      last: 199,
      count: 10,
    });

    it('defaults to 120 s from the first failure when the settings name none', async () => {
      // 100 s since the first Multi-Attach: within 120 s. (An undefined grace would fail it at once.)
      const poll = await pollStep(input('test', workspace), fakeCluster(creating, { pod: [multiAttach] }).deps);
      expect(poll).toMatchObject({ phase: 'pending', reason: 'FailedAttachVolume' });
    });

    it('is the settings\' when given', async () => {
      const poll = await pollStep(input('test', { ...workspace, workspaceGraceSeconds: 90 }), fakeCluster(creating, { pod: [multiAttach] }).deps);
      expect(poll).toMatchObject({ phase: 'failed', error: 'WorkspaceUnavailable', reason: 'FailedAttachVolume' });
      expect(poll.cause).toContain('grace period 90 s');
    });
  });
});

describe('the checkout step', () => {
  const gitFailed = stepPod({ step: 'clone', workspaceClaim: CLAIM, phase: 'Failed', state: terminated(128, 'Error', { started: 3, finished: 9 }) });
  const gitLog = '+ git fetch --no-tags origin 3f2a9c1b7e\nfatal: could not read Username for \'https://github.com\': terminal prompts disabled\n';

  it('PollStep names a failed checkout CheckoutFailed; FinishStep adds git\'s last lines to the Cause', async () => {
    const cluster = fakeCluster(gitFailed, {}, { step: gitLog });
    const poll = await pollStep(input('clone', workspace), cluster.deps);
    expect(poll).toMatchObject({ phase: 'failed', error: 'CheckoutFailed', exitCode: 128 });

    const result = await finishStep(input('clone', workspace, poll), cluster.deps);
    expect(result).toMatchObject({ status: 'failed', error: 'CheckoutFailed', exitCode: 128 });
    expect(result.cause).toBe(
      `The checkout (step "clone") failed with exit code 128.\nLast lines of the log:\n${gitLog.trimEnd()}`,
    );
  });

  it('a step of another name is a plain StepFailed', async () => {
    const poll = await pollStep(input('clone', { workspace: { claimName: CLAIM } }), fakeCluster(gitFailed).deps);
    expect(poll).toMatchObject({ phase: 'failed', error: 'StepFailed', exitCode: 128 });
  });
});

describe('a step with a service', () => {
  const withDatabase = (): V1Pod => {
    const pod = stepPod({ step: 'test', phase: 'Failed', state: terminated(1, 'Error', { started: 3, finished: 9 }) });
    pod.spec!.initContainers = [{ name: 'db', image: 'postgres:16', restartPolicy: 'Always' }];
    return pod;
  };
  const db = { name: 'db', image: 'postgres:16', imageRef: parseImageReference('postgres:16'), env: {}, ports: [5432], secrets: [], pull: 'if-not-present' as const };
  const stepInput = (): StepInput => {
    const base = input('test', {}, { phase: 'failed', error: 'StepFailed', exitCode: 1, cause: 'Step "test" failed with exit code 1' });
    return { ...base, step: { ...base.step, services: [db] } };
  };

  it('FinishStep keeps each container\'s own log: the step\'s as the step\'s, the service\'s beside it', async () => {
    const logs = { step: 'npm test\n1 failing\n', db: 'database system is ready to accept connections\n' };
    const cluster = fakeCluster(withDatabase(), {}, logs);
    const result = await finishStep(stepInput(), cluster.deps);

    expect(cluster.logsAsked.sort()).toEqual(['db', 'step']);
    expect(result.logTail).toBe(logs.step.trimEnd());
    expect(result.cause).toBe(`Step "test" failed with exit code 1\nLast lines of the log:\n${logs.step.trimEnd()}`);
    expect(result.services?.map((s) => [s.name, s.logTail])).toEqual([['db', logs.db.trimEnd()]]);
    expect(await readFile(result.log!, 'utf8')).toBe(logs.step);
    expect(await readFile(result.services![0]!.log!, 'utf8')).toBe(logs.db);
    expect(result.log!.startsWith(logsDir)).toBe(true);
  });
});
