/**
 * PollStep and the step's presigned URLs, over a fake Kubernetes API and a fake store: it signs
 * them again only when they would stop working before its next chance to (the next poll's wait
 * and watch, and the kubelet's delay), replaces them in the step's Secret, and says until when in
 * $.poll.urls; a step that has ended is not signed for.
 */
import { describe, expect, it } from '@jest/globals';
import { ApiException, type CoreV1Api, type CoreV1Event, type V1Pod, type V1Secret } from '@kubernetes/client-node';
import { cacheSecretManifest, kubeStepCluster } from '../lib/kube/index.js';
import { directoryLogStore } from '../lib/local/stores/directory-log-store.js';
import type { CacheStore } from '../lib/workflow/cache-store.js';
import type { PollState, StepInput } from '../lib/workflow/state-data.js';
import type { TaskDeps, TaskLog } from '../lib/workflow/task-deps.js';
import { pollStep } from '../lib/workflow/tasks/poll-step.js';
import { at, stepPod, terminated } from './fixtures/kube/builders.js';
import { parseImageReference } from '../lib/pipeline/index.js';

const silent = { info: () => undefined, warn: () => undefined } as unknown as TaskLog;
const POD = 'b-42-build';
const running = stepPod({ step: 'build', phase: 'Running', state: { running: { startedAt: at(3) } } });
const succeeded = stepPod({ step: 'build', phase: 'Succeeded', state: terminated(0, 'Completed', { started: 3, finished: 190 }) });

function fakes(pod: V1Pod) {
  const requests: string[] = [];
  let secret: V1Secret = {
    ...cacheSecretManifest({ buildId: 'b-42', namespace: 'ci', podName: POD, urls: { SAVE_0: 'https://old/save', OTHER: 'kept' }, signing: { SAVE_0: { how: 'put-new', object: 'cache/k', seconds: 7200 } } }),
    data: { SAVE_0: Buffer.from('https://old/save').toString('base64'), OTHER: Buffer.from('kept').toString('base64') },
  };
  const api = {
    readNamespacedPod: async () => (requests.push('read pod'), pod),
    listNamespacedEvent: async () => (requests.push('list pod events'), { items: [] as CoreV1Event[] }),
    readNamespacedSecret: async ({ name }: { name: string }) => {
      requests.push('read secret');
      if (name !== `${POD}-cache`) throw new ApiException(404, 'NotFound', '{}', {});
      return secret;
    },
    replaceNamespacedSecret: async ({ body }: { body: V1Secret }) => (requests.push('replace secret'), (secret = body)),
  } as unknown as CoreV1Api;
  const store = {
    presignGet: async () => 'https://new/get',
    presignPut: async (key: string, seconds: number) => `https://new/put-new/${key}/${seconds}`,
    presignUpload: async () => 'https://new/put',
    signingCredentials: async () => ({ temporary: true }),
  } as unknown as CacheStore;
  const deps: TaskDeps = { cluster: kubeStepCluster(async () => api), cache: store, logs: directoryLogStore('/nonexistent'), now: () => at(200), log: silent };
  const url = (key: string) => Buffer.from(secret.data![key]!, 'base64').toString();
  return { deps, requests, url };
}

function input(poll: Partial<PollState>): StepInput {
  return {
    build: { id: 'b-42' },
    namespace: 'ci',
    settings: { imagePullGraceSeconds: 60, unschedulableGraceSeconds: 120 },
    step: { name: 'build', image: 'alpine:3.20', imageRef: parseImageReference('alpine:3.20'), commands: ['make'], env: {}, pull: 'if-not-present', timeoutSeconds: 86_400, secrets: [] },
    index: 0,
    poll: { podName: POD, launchedAt: at(0).toISOString(), runningSince: at(3).toISOString(), phase: 'running', reason: 'Running', nextPollSeconds: 60, polls: 9, ...poll },
  };
}

const inSeconds = (seconds: number) => ({ validUntil: new Date(at(200).getTime() + seconds * 1000).toISOString() });

describe("PollStep and the step's presigned URLs", () => {
  it('leaves them while they outlast the next poll and the margin', async () => {
    const { deps, requests } = fakes(running);
    const urls = inSeconds(600);
    const poll = await pollStep(input({ urls }), deps);
    expect(requests).not.toContain('read secret');
    expect(poll.urls).toEqual(urls);
  });

  it("signs them again when they would not, in place in the Secret, and says until when: a Lambda's session, 15 min", async () => {
    const { deps, requests, url } = fakes(running);
    const poll = await pollStep(input({ urls: inSeconds(300) }), deps);
    expect(requests.filter((r) => r.endsWith('secret'))).toEqual(['read secret', 'read secret', 'replace secret']);
    expect(url('SAVE_0')).toBe('https://new/put-new/cache/k/7200');
    expect(url('OTHER')).toBe('kept');
    expect(poll.urls).toEqual(inSeconds(15 * 60));
  });

  it('signs nothing for a step that has ended, and drops $.poll.urls', async () => {
    const { deps, requests } = fakes(succeeded);
    const poll = await pollStep(input({ urls: inSeconds(10) }), deps);
    expect(requests).not.toContain('read secret');
    expect(poll.urls).toBeUndefined();
  });
});
