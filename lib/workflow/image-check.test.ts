import { fakeStepCluster } from '../kube/fake-cluster.js';
import type { BuildInput } from '../contract/index.js';
import { InconclusiveReasons, type ImageVerdict } from '../registry/index.js';
import { imageCheckNote, imageCheckSummaries, imageUses, missingImages } from './image-check.js';
import { workflowSettings } from './settings.js';
import type { TaskDeps } from './task-deps.js';
import { prepareBuild } from './tasks/prepare-build.js';
import { parseImageReference } from '../pipeline/index.js';

const PIPELINE = `version: 1
checkout: false
steps:
  - name: one
    image: alpine:3.20
    commands: ["true"]
  - name: two
    image: ghcr.io/team/tool:1
    commands: ["true"]
  - name: three
    image: alpine:3.20
    commands: ["true"]
`;

const input: BuildInput = { build: { id: 'b1' }, pipeline: { file: 'pipeline.yml', text: PIPELINE } };
// Ephemeral: no claim, so the cluster is asked for nothing but its client.
const settings = workflowSettings({ namespace: 'default', workspaceMode: 'ephemeral' });

function deps(verdicts: Record<string, ImageVerdict>, seen: string[][] = []): Pick<TaskDeps, 'cluster' | 'log' | 'checkImages'> & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    cluster: fakeStepCluster(),
    log: { info: (message: string) => lines.push(message), warn: (message: string) => lines.push(`WARN ${message}`) } as TaskDeps['log'],
    checkImages: async (references) => {
      const images = references.map((reference) => reference.original);
      seen.push(images);
      return { verdicts: new Map(images.map((image) => [image, verdicts[image] ?? { kind: 'found', digest: 'sha256:0' }])), notes: [] };
    },
  };
}

describe('imageUses', () => {
  it('lists each image once, with every step that pulls it, and the opt-out', () => {
    expect(
      imageUses([
        { name: 'a', imageRef: parseImageReference('alpine:3.20') },
        { name: 'b', imageRef: parseImageReference('busybox:1.37'), imageCheck: false },
        { name: 'c', imageRef: parseImageReference('alpine:3.20') },
      ]),
    ).toEqual([
      { image: 'alpine:3.20', reference: parseImageReference('alpine:3.20'), steps: ['a', 'c'] },
      { image: 'busybox:1.37', reference: parseImageReference('busybox:1.37'), steps: ['b'], skip: 'step "b" says image-check: false' },
    ]);
  });
});

describe('missingImages', () => {
  it('is ImagePullFailed naming every missing image, its steps, the registry words, and that no step ran', () => {
    const uses = imageUses([
      { name: 'a', imageRef: parseImageReference('alpine:3.99') },
      { name: 'b', imageRef: parseImageReference('ghcr.io/x/y:1') },
      { name: 'c', imageRef: parseImageReference('alpine:3.99') },
    ]);
    const error = missingImages(
      uses,
      new Map<string, ImageVerdict>([
        ['alpine:3.99', { kind: 'not-found', status: 404, words: '404 MANIFEST_UNKNOWN: manifest unknown' }],
        ['ghcr.io/x/y:1', { kind: 'inconclusive', reason: 'timeout', words: 'no answer' }],
      ]),
    );
    expect(error?.name).toBe('ImagePullFailed');
    expect(error?.message).toBe(
      'Steps "a", "c": image "alpine:3.99" was not found; its registry answered: 404 MANIFEST_UNKNOWN: manifest unknown.\n' +
        'No step ran: PrepareBuild asked each image\'s registry before creating any pod. Fix the image reference (or push the image); a step with "image-check: false" leaves its image to the kubelet.',
    );
  });
});

describe('imageCheckNote', () => {
  const uses = imageUses([{ name: 'a', imageRef: parseImageReference('x:1') }]);
  it.each<[ImageVerdict, string]>([
    [{ kind: 'found', digest: 'sha256:abc' }, ' (sha256:abc)'],
    [{ kind: 'found' }, ' (found in its registry)'],
    [{ kind: 'inconclusive', reason: 'rate-limited', words: '429 TOOMANYREQUESTS' }, ' (registry check inconclusive: rate-limited: 429 TOOMANYREQUESTS; the kubelet will tell)'],
    [{ kind: 'skipped', words: 'the deployment turned the image check off' }, ' (not checked: the deployment turned the image check off)'],
  ])('%j', (verdict, note) => {
    expect(imageCheckNote(imageCheckSummaries(uses, new Map([['x:1', verdict]])), 'x:1')).toBe(note);
  });
});

describe('PrepareBuild with the image check', () => {
  it('fails with ImagePullFailed naming the step when a registry says its image does not exist, before asking the cluster anything', async () => {
    const d = deps({ 'ghcr.io/team/tool:1': { kind: 'not-found', status: 404, words: '404 NAME_UNKNOWN: repository name not known to registry' } });
    const cluster = fakeStepCluster();
    await expect(prepareBuild(input, settings, { ...d, cluster })).rejects.toMatchObject({
      name: 'ImagePullFailed',
      message: expect.stringContaining('Step "two": image "ghcr.io/team/tool:1" was not found; its registry answered: 404 NAME_UNKNOWN'),
    });
    expect(cluster.calls).toEqual([]);
  });

  it('asks once per distinct image and puts the digests in its output and its Preparing lines', async () => {
    const seen: string[][] = [];
    const d = deps({}, seen);
    const prepared = await prepareBuild(input, settings, d);
    expect(seen).toEqual([['alpine:3.20', 'ghcr.io/team/tool:1']]);
    expect(prepared.images).toEqual([
      { image: 'alpine:3.20', steps: ['one', 'three'], verdict: 'found', digest: 'sha256:0' },
      { image: 'ghcr.io/team/tool:1', steps: ['two'], verdict: 'found', digest: 'sha256:0' },
    ]);
    expect(d.lines).toContain('Preparing step "two": image ghcr.io/team/tool:1 (sha256:0)');
  });

  it.each(Object.values(InconclusiveReasons))('goes on when the check is inconclusive (%s), and says so', async (reason) => {
    const d = deps({ 'ghcr.io/team/tool:1': { kind: 'inconclusive', reason, words: 'the registry said something' } });
    const prepared = await prepareBuild(input, settings, d);
    expect(prepared.steps.map((s) => s.name)).toEqual(['one', 'two', 'three']);
    expect(prepared.images?.[1]).toMatchObject({ verdict: 'inconclusive', words: `${reason}: the registry said something` });
    expect(d.lines.find((line) => line.includes('"two"'))).toContain('registry check inconclusive');
  });

  it('asks nothing when the deployment turned the check off', async () => {
    const seen: string[][] = [];
    const prepared = await prepareBuild(input, { ...settings, imageCheck: false }, deps({}, seen));
    expect(seen).toEqual([]);
    expect(prepared.images?.every((image) => image.verdict === 'skipped')).toBe(true);
  });

  it('does not ask about the image of a step that opted out, even a missing one', async () => {
    const seen: string[][] = [];
    const text = PIPELINE.replace('    image: ghcr.io/team/tool:1\n', '    image: ghcr.io/team/tool:1\n    image-check: false\n');
    const prepared = await prepareBuild({ ...input, pipeline: { file: 'p.yml', text } }, settings, deps({ 'ghcr.io/team/tool:1': { kind: 'not-found', status: 404, words: '404' } }, seen));
    expect(seen).toEqual([['alpine:3.20']]);
    expect(prepared.images?.[1]).toMatchObject({ verdict: 'skipped', words: 'step "two" says image-check: false' });
  });

  it('checks the clone image too when the build checks out', async () => {
    const seen: string[][] = [];
    const text = PIPELINE.replace('checkout: false\n', '');
    await prepareBuild({ ...input, pipeline: { file: 'p.yml', text }, source: { url: 'https://example.com/r.git', commit: 'a'.repeat(40) } }, settings, deps({}, seen));
    expect(seen[0]).toContain(settings.cloneImage);
  });
});

describe('PrepareBuild when the image check itself breaks', () => {
  it('goes on, every image inconclusive', async () => {
    const d = deps({});
    const prepared = await prepareBuild(input, settings, { ...d, checkImages: async () => Promise.reject(new Error('boom')) });
    expect(prepared.images?.map((i) => [i.verdict, i.words])).toEqual([
      ['inconclusive', 'registry-error: the check failed: boom'],
      ['inconclusive', 'registry-error: the check failed: boom'],
    ]);
  });
});

describe('prepareBuild: pull secrets and placement', () => {
  it('asks with the pods\' pull secrets (the pipeline\'s, then the deployment\'s) and hands them, and the deployment\'s placement, to every step', async () => {
    const requests: unknown[] = [];
    const d = deps({});
    const withSecrets = { ...input, pipeline: { ...input.pipeline, text: `pull-secrets: [ghcr-login, shared]\n${PIPELINE}` } };
    const deployment = workflowSettings({
      ...settings,
      pullSecrets: ['shared', 'hub-login'],
      nodeSelector: { pool: 'ci' },
      tolerations: [{ key: 'ci', operator: 'Exists', effect: 'NoSchedule' }],
    });
    const prepared = await prepareBuild(withSecrets, deployment, {
      ...d,
      checkImages: async (images, namespace, request) => {
        requests.push(request);
        return d.checkImages!(images, namespace, request);
      },
    });
    expect(requests).toEqual([{ pullSecrets: ['ghcr-login', 'shared', 'hub-login'] }]);
    expect(prepared.settings.pullSecrets).toEqual(['ghcr-login', 'shared', 'hub-login']);
    expect(prepared.settings.placement).toEqual({ nodeSelector: { pool: 'ci' }, tolerations: [{ key: 'ci', operator: 'Exists', effect: 'NoSchedule' }] });
  });

  it('names none when neither does, so the check reads the service account\'s', async () => {
    const requests: unknown[] = [];
    const d = deps({});
    const prepared = await prepareBuild(input, settings, {
      ...d,
      checkImages: async (images, namespace, request) => {
        requests.push(request);
        return d.checkImages!(images, namespace, request);
      },
    });
    expect(requests).toEqual([{}]);
    expect(prepared.settings).not.toHaveProperty('pullSecrets');
    expect(prepared.settings).not.toHaveProperty('placement');
  });
});

describe('services', () => {
  const SERVICES = `version: 1
checkout: false
service-start-grace: 45s
services:
  - name: db
    image: postgres:16-alpine
    ports: [5432]
steps:
  - name: one
    image: alpine:3.20
    commands: ["true"]
    services:
      - name: cache
        image: redis:7-alpine
  - name: two
    image: postgres:16-alpine
    commands: ["true"]
`;
  const withServices: BuildInput = { build: { id: 'b1' }, pipeline: { file: 'pipeline.yml', text: SERVICES } };

  it('lists a service image with the steps whose pods pull it and the services that run it', () => {
    const db = { name: 'db', image: 'postgres:16', imageRef: parseImageReference('postgres:16'), env: {}, ports: [5432], secrets: [], pull: 'if-not-present' as const };
    expect(
      imageUses([
        { name: 'a', imageRef: parseImageReference('alpine:3.20'), services: [db] },
        { name: 'b', imageRef: parseImageReference('alpine:3.20'), imageCheck: false, services: [db] },
      ]),
    ).toEqual([
      { image: 'alpine:3.20', reference: parseImageReference('alpine:3.20'), steps: ['a', 'b'], skip: 'step "b" says image-check: false' },
      { image: 'postgres:16', reference: parseImageReference('postgres:16'), steps: ['a', 'b'], services: ['db'] },
    ]);
  });

  it('fails the build naming the service, and its step, when its image does not exist', async () => {
    const d = deps({ 'redis:7-alpine': { kind: 'not-found', status: 404, words: '404 MANIFEST_UNKNOWN: manifest unknown' } });
    await expect(prepareBuild(withServices, settings, d)).rejects.toMatchObject({
      name: 'ImagePullFailed',
      message: expect.stringContaining('Service "cache" (step "one"): image "redis:7-alpine" was not found; its registry answered: 404 MANIFEST_UNKNOWN: manifest unknown.'),
    });
  });

  it('asks about every service image, says each in its step\'s Preparing line, and carries the grace', async () => {
    const seen: string[][] = [];
    const d = deps({}, seen);
    const prepared = await prepareBuild(withServices, settings, d);
    expect(seen).toEqual([['alpine:3.20', 'postgres:16-alpine', 'redis:7-alpine']]);
    expect(prepared.images?.find((i) => i.image === 'postgres:16-alpine')).toMatchObject({ steps: ['one', 'two'], services: ['db'] });
    expect(d.lines).toContain('Preparing step "one": image docker.io/library/alpine:3.20 (sha256:0); service "db": image docker.io/library/postgres:16-alpine (sha256:0); service "cache": image docker.io/library/redis:7-alpine (sha256:0)');
    expect(prepared.steps.map((s) => s.services?.map((service) => service.name))).toEqual([
      ['db', 'cache'],
      ['db'],
    ]);
    expect(prepared.settings.serviceStartGraceSeconds).toBe(45);
  });

  it('defaults the grace to 2 minutes, and leaves it out of a build without services', async () => {
    const noGrace = { ...withServices, pipeline: { ...withServices.pipeline, text: SERVICES.replace('service-start-grace: 45s\n', '') } };
    expect((await prepareBuild(noGrace, settings, deps({}))).settings.serviceStartGraceSeconds).toBe(120);
    expect((await prepareBuild(input, settings, deps({}))).settings).not.toHaveProperty('serviceStartGraceSeconds');
  });
});
