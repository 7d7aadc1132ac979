/**
 * PollStep and FinishStep over a fake Kubernetes API that counts its requests: the build's
 * workspace claim reaches the observation, the checkout step is named as such, the workspace grace
 * comes from the settings (or the default), and a failed checkout's Cause ends with git's words.
 */
import { describe, expect, it } from '@jest/globals';
import { ApiException, type CoreV1Api, type CoreV1Event, type V1Pod } from '@kubernetes/client-node';
import { pollStep } from '../lib/workflow/tasks/poll-step.js';
import { finishStep } from '../lib/workflow/tasks/finish-step.js';
import type { BuildSettings, PollState, StepInput } from '../lib/workflow/state-data.js';
import type { TaskDeps, TaskLog } from '../lib/workflow/task-deps.js';
import { directoryLogStore } from '../lib/local/directory-log-store.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { at, claimEvent, podEvent, stepPod, terminated, waiting } from './fixtures/kube/builders.js';

const CLAIM = 'ws-b-42';
const silent = { info: () => undefined, warn: () => undefined } as unknown as TaskLog;

function fakeCluster(pod: V1Pod | null, events: { pod?: CoreV1Event[]; claim?: CoreV1Event[] } = {}, log = '') {
  const requests: string[] = [];
  const api = {
    readNamespacedPod: async () => {
      requests.push('read pod');
      if (pod) return pod;
      throw new ApiException(404, 'Not Found', '{"kind":"Status","reason":"NotFound","code":404}', {});
    },
    listNamespacedEvent: async ({ fieldSelector }: { fieldSelector?: string }) => {
      const claim = fieldSelector?.includes('PersistentVolumeClaim') ?? false;
      requests.push(claim ? 'list claim events' : 'list pod events');
      return { items: (claim ? events.claim : events.pod) ?? [] };
    },
    readNamespacedPodLog: async () => {
      requests.push('read log');
      return log;
    },
    deleteNamespacedPod: async () => {
      requests.push('delete pod');
      return {};
    },
  } as unknown as CoreV1Api;
  const deps: TaskDeps = { kube: async () => api, logs: directoryLogStore(path.join(tmpdir(), 'kube-workspace-tasks-logs')), now: () => at(200), log: silent };
  return { deps, requests };
}

function input(stepName: string, settings: Partial<BuildSettings>, poll: Partial<PollState> = {}): StepInput {
  return {
    build: { id: 'b-42' },
    namespace: 'ci',
    settings: { imagePullGraceSeconds: 60, unschedulableGraceSeconds: 120, ...settings },
    step: { name: stepName, image: 'alpine/git:v2.54.0', commands: ['git fetch'], env: {}, pull: 'if-not-present', timeoutSeconds: 900, secrets: [] },
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
    const cluster = fakeCluster(gitFailed, {}, gitLog);
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
