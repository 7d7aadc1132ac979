import { reservedServiceNameProblem } from '../pipeline/services.js';
import type { V1Container } from '@kubernetes/client-node';
import { Pod } from 'kubernetes-models/v1/Pod';
import type { Service, Step } from '../pipeline/types.js';
import { CACHE_SCRATCH, CACHE_URLS, CacheContainers, cacheSecretManifest, DEFAULT_CACHE_IMAGE, type PodCacheEntry, type PodCachePlan } from './cache-containers.js';
import { buildSelector } from './cleanup.js';
import { stepPodManifest } from './pod-manifest.js';
import { stepPodName } from './pod-name.js';
import { serviceContainers } from './classify-services.js';
import { Annotations, BUILD_DEADLINE_ANNOTATION } from './types.js';
import { parseImageReference } from '../pipeline/index.js';

const step: Step = {
  name: 'build',
  image: 'node:22-alpine', imageRef: parseImageReference('node:22-alpine'),
  commands: ['npm ci', 'npm run build'],
  env: { CI: 'true' },
  pull: 'if-not-present',
  timeoutSeconds: 600,
  secrets: [],
};
const checkout: Step = { name: 'clone', image: 'alpine/git:v2.54.0', imageRef: parseImageReference('alpine/git:v2.54.0'), commands: ['git init'], env: {}, pull: 'if-not-present', timeoutSeconds: 600, secrets: [] };
const db: Service = { name: 'db', image: 'postgres:16-alpine', imageRef: parseImageReference('postgres:16-alpine'), env: {}, ports: [5432], secrets: [], pull: 'if-not-present' };

const restoring: PodCacheEntry = {
  key: 'npm-3f2a',
  paths: ['node_modules', '.npm'],
  restore: [
    { label: 'npm-3f2a', secretKey: 'restore-0-0' },
    { label: 'npm- on main', secretKey: 'restore-0-1' },
  ],
  save: { secretKey: 'save-0' },
};
const restoredOnly: PodCacheEntry = { key: 'pip-9c1d', paths: ['.pip'], restore: [{ label: 'pip-9c1d', secretKey: 'restore-1-0' }], saveSkipped: 'policy pull' };
const savedOnly: PodCacheEntry = { key: 'go', paths: ['.go'], restore: [], save: { secretKey: 'save-2' } };
const noteOnly: PodCacheEntry = { key: 'fork', paths: ['x'], restore: [], saveSkipped: 'a pull request from a fork writes no cache' };

const plan = (entries: PodCacheEntry[]): PodCachePlan => ({ image: DEFAULT_CACHE_IMAGE, secret: 'b1-build-1a2b3c4d-cache', entries });

function manifest(cache: PodCachePlan | undefined, more: Partial<Parameters<typeof stepPodManifest>[0]> = {}) {
  return stepPodManifest({ buildId: 'b1', step, namespace: 'ci', workspace: { ephemeral: true }, checkout, ...(cache ? { cache } : {}), ...more });
}

const initNamed = (containers: V1Container[] | undefined, name: string) => containers?.find((c) => c.name === name);

describe('a step pod with a cache', () => {
  it.each<[string, PodCacheEntry[], Step, string[]]>([
    ['restore and save', [restoring], step, ['clone', CacheContainers.restore, CacheContainers.save]],
    ['restore only: nothing to save', [restoredOnly], step, ['clone', CacheContainers.restore]],
    ['save only: nothing to restore, no note', [savedOnly], step, ['clone', CacheContainers.save]],
    ['only a note why it is not saved: the restore container prints it', [noteOnly], step, ['clone', CacheContainers.restore]],
    ['no entries', [], step, ['clone']],
    ['services: restore before them, the save sidecar after them', [restoring, restoredOnly], { ...step, services: [db] }, ['clone', CacheContainers.restore, 'db', CacheContainers.save]],
  ])('%s: init containers in order', (_what, entries, own, names) => {
    const pod = manifest(plan(entries), { step: own });
    expect(() => new Pod(pod as ConstructorParameters<typeof Pod>[0]).validate()).not.toThrow();
    expect(pod.spec?.initContainers?.map((c) => c.name)).toEqual(names);
  });

  it('runs the save container as a native sidecar, the restore container once', () => {
    const init = manifest(plan([restoring])).spec?.initContainers;
    expect(initNamed(init, CacheContainers.save)?.restartPolicy).toBe('Always');
    expect(initNamed(init, CacheContainers.restore)?.restartPolicy).toBeUndefined();
  });

  it.each<[string, string, PodCacheEntry[], string[], string[]]>([
    ['restore', CacheContainers.restore, [restoring, restoredOnly, savedOnly], ['restore-0-0', 'restore-0-1', 'restore-1-0'], ['save-0', 'save-2']],
    ['save', CacheContainers.save, [restoring, restoredOnly, savedOnly], ['save-0', 'save-2'], ['restore-0-0', 'restore-0-1', 'restore-1-0']],
  ])("has the %s container read exactly the Secret keys it uses from the Secret's volume", (_what, name, entries, used, unused) => {
    const container = initNamed(manifest(plan(entries)).spec?.initContainers, name);
    const script = container?.command?.[2] ?? '';
    for (const key of used) expect(script).toContain(` '${key}'`);
    for (const key of unused) expect(script).not.toContain(key);
    expect(container?.env).toEqual([
      { name: 'STEP_RUNNER_WORKSPACE', value: '/workspace' },
      { name: 'STEP_RUNNER_SCRATCH', value: '/step-runner' },
      { name: 'STEP_RUNNER_URLS', value: '/step-runner-urls' },
    ]);
  });

  it('names no URL in the spec: the scripts read each from its file when they use it', () => {
    const pod = manifest(plan([restoring]));
    expect(JSON.stringify(pod)).not.toMatch(/https?:/);
    const script = initNamed(pod.spec?.initContainers, CacheContainers.restore)?.command?.[2] ?? '';
    // The kubelet's $(VAR) and $$ are kept away: every $ reaches the shell as one.
    expect(script).toContain('cache_url() { cat "$$urls/$$1" 2>/dev/null; }');
  });

  it("shares a scratch emptyDir at /step-runner between the step and the cache containers, beside the workspace; the Secret's volume is the cache containers' only", () => {
    const pod = manifest(plan([restoring]));
    expect(pod.spec?.volumes).toEqual([
      { name: 'workspace', emptyDir: {} },
      { name: CACHE_SCRATCH.volume, emptyDir: {} },
      { name: CACHE_URLS.volume, secret: { secretName: 'b1-build-1a2b3c4d-cache' } },
    ]);
    const mounts = [{ name: 'workspace', mountPath: '/workspace' }, { name: 'step-runner', mountPath: '/step-runner' }];
    const urls = { name: CACHE_URLS.volume, mountPath: '/step-runner-urls', readOnly: true };
    expect(pod.spec?.containers[0]?.volumeMounts).toEqual(mounts);
    expect(initNamed(pod.spec?.initContainers, CacheContainers.restore)?.volumeMounts).toEqual([...mounts, urls]);
    expect(initNamed(pod.spec?.initContainers, CacheContainers.save)?.volumeMounts).toEqual([...mounts, urls]);
    expect(pod.spec?.containers[0]?.env).toContainEqual({ name: 'STEP_RUNNER_SCRATCH', value: '/step-runner' });
  });

  it.each<[string, PodCacheEntry[], boolean]>([
    ['a save sidecar', [restoring], true],
    ['nothing to save', [restoredOnly], false],
  ])('with %s, the step script hands over and waits: %s', (_what, entries, waits) => {
    const script = manifest(plan(entries)).spec?.containers[0]?.command?.[2] ?? '';
    expect(script.includes('succeeded"')).toBe(waits);
    expect(script.includes('saving the cache')).toBe(waits);
  });

  it.each<[string, number | undefined, Record<string, unknown>]>([
    ['as root without a deployment user, so they can write what the checkout wrote', undefined, { runAsUser: 0, runAsGroup: 0 }],
    ["as the pod's user when the deployment names one", 1000, {}],
  ])('locks the cache containers down like the step, %s', (_what, runAsUser, user) => {
    const pod = manifest(plan([restoring]), runAsUser === undefined ? {} : { runAsUser });
    for (const name of [CacheContainers.restore, CacheContainers.save]) {
      expect(initNamed(pod.spec?.initContainers, name)?.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        seccompProfile: { type: 'RuntimeDefault' },
        ...user,
      });
    }
  });

  it('asks for little: a small request, a memory limit, no cpu limit', () => {
    const container = initNamed(manifest(plan([restoring])).spec?.initContainers, CacheContainers.save);
    expect(container).toMatchObject({ image: 'curlimages/curl:8.11.1', resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } } });
    expect(container?.resources?.limits?.cpu).toBeUndefined();
  });

  it('is no service to the classifier and the views, though a native sidecar', () => {
    const pod = manifest(plan([restoring]), { step: { ...step, services: [db] } });
    expect(serviceContainers(pod).map((c) => c.name)).toEqual(['db']);
  });

  it('adds nothing to a pod without a workspace: there is nothing to restore into', () => {
    const pod = stepPodManifest({ buildId: 'b1', step, namespace: 'ci', cache: plan([restoring]) });
    expect(pod).toEqual(stepPodManifest({ buildId: 'b1', step, namespace: 'ci' }));
  });

  it('leaves the pod as it was without a cache', () => {
    expect(manifest(undefined)).toEqual(stepPodManifest({ buildId: 'b1', step, namespace: 'ci', workspace: { ephemeral: true }, checkout }));
    expect(JSON.stringify(manifest(undefined))).not.toContain('step-runner-cache');
  });
});

describe('cacheSecretManifest', () => {
  const podName = stepPodName('Org/Repo#7', 'build');
  const secret = cacheSecretManifest({ buildId: 'Org/Repo#7', namespace: 'ci', podName, urls: { 'restore-0-0': 'https://bucket.s3/get', 'save-0': 'https://bucket.s3/put' }, deadlineSeconds: 3600 });

  it("is named after the step's pod, with its URLs by key", () => {
    expect(secret).toMatchObject({ apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: `${podName}-cache`, namespace: 'ci' } });
    expect(secret.stringData).toEqual({ 'restore-0-0': 'https://bucket.s3/get', 'save-0': 'https://bucket.s3/put' });
  });

  it("is labelled so the build's cleanup and the orphan sweep find it", () => {
    const wanted = Object.fromEntries(buildSelector('Org/Repo#7').split(',').map((pair) => pair.split('=')));
    expect(secret.metadata?.labels).toEqual(wanted);
    expect(secret.metadata?.annotations).toEqual({ [Annotations.build]: 'Org/Repo#7', [BUILD_DEADLINE_ANNOTATION]: '3600' });
  });
});

describe("the cache containers' names", () => {
  it('are among those a service may not take (lib/pipeline/services.ts), so no pipeline can clash with them', () => {
    for (const name of Object.values(CacheContainers)) expect(reservedServiceNameProblem(name)).toBeDefined();
  });
});
