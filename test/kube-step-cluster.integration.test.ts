/**
 * The in-memory StepCluster (lib/kube/fake-cluster.ts) answers as the client-node one does over
 * HTTP: one script of the requests the tasks make, run on both, must read the same. The workflow's
 * unit tests stand on the fake, so what it says of adoption, the build's objects and its Secrets
 * is held here to what the adapter says against the embedded cluster.
 */
import type { V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import {
  buildSelector,
  cacheSecretManifest,
  gitCredentialsManifest,
  GIT_TOKEN_KEY,
  kubeStepCluster,
  stepPodManifest,
  succeededSteps,
  workspaceClaimManifest,
  type StepCluster,
} from '../lib/kube/index.js';
import { fakeStepCluster } from '../lib/kube/fake-cluster.js';
import { Annotations, Labels, labelValue } from '../lib/kube/index.js';
import { embeddedClusterForFile } from './fixtures/embedded-cluster.js';
import { parseImageReference } from '../lib/pipeline/index.js';

const NS = 'contract';
const kube = embeddedClusterForFile(NS);

/** The same manifest, claimed by another build. */
function ofBuild<T extends V1Pod | V1PersistentVolumeClaim>(object: T, build: string): T {
  const metadata = object.metadata!;
  return { ...object, metadata: { ...metadata, labels: { ...metadata.labels, [Labels.build]: labelValue(build) }, annotations: { ...metadata.annotations, [Annotations.build]: build } } };
}

/** Each request's answer, as what a task reads of it: an adoption, a count, a value, an Error's name. */
async function script(cluster: StepCluster, build: string): Promise<[string, unknown][]> {
  const said: [string, unknown][] = [];
  const ask = async (what: string, request: () => Promise<unknown>) => {
    try {
      said.push([what, await request()]);
    } catch (error) {
      said.push([what, { threw: (error as Error).name }]);
    }
  };
  const pod = stepPodManifest({ buildId: build, step: { name: 'unit', image: 'alpine:3.20', imageRef: parseImageReference('alpine:3.20'), commands: ['true'], env: {}, pull: 'if-not-present', timeoutSeconds: 60, secrets: [] }, namespace: NS });
  const podName = pod.metadata!.name!;
  await ask('launch', async () => (await cluster.launchPod(pod)).adopted);
  await ask('launch again', async () => (await cluster.launchPod(pod)).adopted);
  await ask('launch over another build\'s pod', async () => (await cluster.launchPod(ofBuild(pod, `${build}-other`))).adopted);
  await ask('list the build\'s pods', async () => (await cluster.listPods(NS, buildSelector(build))).map((p) => p.metadata?.name));
  await ask('observe a pod that is not there', async () => {
    const { pod: seen, events } = await cluster.observePod(NS, `${podName}-gone`);
    return { pod: seen, events };
  });
  await ask('read the log of a pod that is not there', () => cluster.readLog(NS, `${podName}-gone`));
  await ask('read the previous run of a step never restarted', () => cluster.readLog(NS, podName, undefined, { previous: true }));

  const claim = workspaceClaimManifest({ buildId: build, namespace: NS, settings: { size: '1Gi', accessMode: 'ReadWriteOnce' }, deadlineSeconds: 3600 });
  const claimName = claim.metadata!.name!;
  await ask('claim', async () => (await cluster.ensureWorkspaceClaim(claim)).adopted);
  await ask('claim again', async () => (await cluster.ensureWorkspaceClaim(claim)).adopted);
  await ask('claim over another build\'s claim', async () => (await cluster.ensureWorkspaceClaim(ofBuild(claim, `${build}-other`))).adopted);
  await ask('the claim\'s node before any pod mounts it', () => cluster.workspaceNode(NS, claimName));

  const git = gitCredentialsManifest({ buildId: build, namespace: NS, token: 'token-one', expiresAt: '2030-01-01T00:00:00.000Z', deadlineSeconds: 3600 });
  const gitName = git.metadata!.name!;
  const token = [{ env: 'TOKEN', secret: gitName, key: GIT_TOKEN_KEY }];
  await ask('store the clone\'s credentials', () => cluster.ensureGitCredentials(git));
  await ask('store them again (kept)', () => cluster.ensureGitCredentials({ ...git, stringData: { [GIT_TOKEN_KEY]: 'token-other' } }));
  await ask('read the token', () => cluster.readSecretValues(NS, token));
  await ask('its expiry', () => cluster.gitTokenExpiry(NS, gitName));
  await ask('renew it', () => cluster.renewGitCredentials(NS, gitName, { token: 'token-two', expiresAt: '2030-01-01T01:00:00.000Z' }));
  await ask('read the renewed token', () => cluster.readSecretValues(NS, token));
  await ask('its new expiry', () => cluster.gitTokenExpiry(NS, gitName));
  await ask('the expiry of a Secret that is not there', () => cluster.gitTokenExpiry(NS, 'no-such-secret'));

  const cache = cacheSecretManifest({ buildId: build, namespace: NS, podName, urls: { SAVE_0: 'https://old/save' }, signing: { SAVE_0: { how: 'put-new', object: 'cache/k', seconds: 7200 } } });
  const cacheName = cache.metadata!.name!;
  await ask('store the cache URLs', () => cluster.ensureCacheSecret(cache));
  await ask('their signing', () => cluster.cacheSecretSigning(NS, cacheName));
  await ask('sign them again', () => cluster.replaceCacheSecretUrls(NS, cacheName, { SAVE_0: 'https://new/save' }));
  await ask('read them', () => cluster.readSecretValues(NS, [{ env: 'SAVE', secret: cacheName, key: 'SAVE_0' }]));

  await ask('record the step succeeded', () => cluster.recordStepSucceeded(NS, claimName, 'unit', new Date('2030-01-01T00:00:00Z')));
  await ask('keep the failed build\'s objects', async () => {
    const kept = await cluster.keepBuildObjects(NS, build, claimName, { now: new Date(), seconds: 600 });
    return { succeeded: [...succeededSteps(kept.claim)], keptSecrets: kept.keptSecrets };
  });
  await ask('mark the pod finished', () => cluster.markStepFinished(NS, podName, new Date('2030-01-01T00:00:00Z')));
  await ask('its mark', async () => (await cluster.listPods(NS, buildSelector(build))).map((p) => p.metadata?.annotations?.[Annotations.finished]));
  await ask('delete the pod', () => cluster.deletePod(NS, podName));
  await ask('mark a pod that is not there finished', () => cluster.markStepFinished(NS, podName, new Date('2030-01-01T00:00:00Z')));
  await ask('delete the build\'s Secrets', () => cluster.deleteBuildObjects('secret', NS, build));
  await ask('sign the URLs of a Secret that is gone', () => cluster.replaceCacheSecretUrls(NS, cacheName, { SAVE_0: 'https://newer/save' }));
  await ask('the signing of a Secret that is gone', () => cluster.cacheSecretSigning(NS, cacheName));
  await ask('delete the build\'s claims', () => cluster.deleteBuildObjects('claim', NS, build));
  await ask('delete a pod that is not there', () => cluster.deletePod(NS, `${podName}-gone`));
  return said;
}

describe('the in-memory StepCluster', () => {
  it('answers the tasks\' requests as the client-node StepCluster does against the embedded cluster', async () => {
    const overHttp = await script(kubeStepCluster(async () => kube.api), 'b-http');
    const inMemory = await script(fakeStepCluster(), 'b-http');

    expect(inMemory).toEqual(overHttp);
    // Not a script whose every answer is empty: the adoptions and refusals are there.
    expect(Object.fromEntries(overHttp)).toMatchObject({
      'launch again': true,
      'launch over another build\'s pod': { threw: 'PodConfigError' },
      'claim over another build\'s claim': { threw: 'WorkspaceUnavailable' },
      'read the renewed token': ['token-two'],
      'its mark': ['2030-01-01T00:00:00.000Z'],
    });
  });
});
