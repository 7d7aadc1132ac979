/**
 * A build step whose inputs were pushed already: PrepareBuild makes its key from the commit, asks
 * the registry the step pushes to for the key's tag, and marks the step to tag the image found
 * (no checkout when no step needs one, no base image asked about); anything else builds, saying
 * why; LaunchStep tags the image, or ends the step ImagePushFailed with the registry's words.
 */
import type { BuildInput } from '../contract/index.js';
import { fakeStepCluster } from '../kube/fake-cluster.js';
import { buildInputsKey, DEFAULT_BUILDER_IMAGE, type ImageReference, type Step } from '../pipeline/index.js';
import type { CopyOutcome, ImageVerdict, RegistryAccess } from '../registry/index.js';
import type { SourceFiles } from './build-bases.js';
import { tagReusedImage, type ReuseRegistry } from './build-reuse.js';
import { workflowSettings } from './settings.js';
import type { TaskDeps } from './task-deps.js';
import { prepareBuild } from './tasks/prepare-build.js';

const DOCKERFILE = 'FROM registry.example.com/base/node:22\nCOPY . /app\n';
const COMMIT = 'c0ffee0000000000000000000000000000000000';
const TREE = '3be22be77da4887e869c981806d8452f034dd014';
const image = `  - name: image
    env: {STEP_RUNNER_INSECURE_REGISTRIES: "registry.example.com"}
    build:
      context: app
      build-args: {NODE_VERSION: "22"}
      tags: [registry.example.com/team/app:1, registry.example.com/team/app:latest]
`;
const KEY = buildInputsKey({
  contextTree: TREE,
  dockerfile: DOCKERFILE,
  bases: ['registry.example.com/base/node:22@sha256:0'],
  buildArgs: { NODE_VERSION: '22' },
  labels: { 'org.opencontainers.image.revision': COMMIT, 'org.opencontainers.image.source': 'https://github.com/org/app' },
  builderImage: DEFAULT_BUILDER_IMAGE,
  platform: 'unpinned',
});
const TAG = `registry.example.com/team/app:inputs-${KEY.slice(0, 40)}`;
const DIGEST = `sha256:${'d'.repeat(64)}`;

/** `verdict`: the key's tag's; `baseVerdict`: the base image's, asked as the builder asks; `checkedBase`: the image check's for it. */
function harness(verdict: ImageVerdict, steps = image, more: Partial<BuildInput['build']> = {}, baseVerdict: ImageVerdict = { kind: 'found', digest: 'sha256:0' }, checkedBase: ImageVerdict = baseVerdict) {
  const lines: string[] = [];
  const asked: string[] = [];
  const found: { reference: string; access: RegistryAccess }[] = [];
  const cluster = fakeStepCluster();
  const source: SourceFiles = {
    read: async (path) => (path === 'app/Dockerfile' ? { found: true, text: DOCKERFILE } : { found: false, reason: 'absent' }),
    treeId: async (path) => (path === 'app' ? TREE : undefined),
  };
  const registry: ReuseRegistry = {
    // The base image asked again as the builder asks it (when the image check got no digest), then the key's tag.
    find: async (reference: ImageReference, access: RegistryAccess = {}) => (found.push({ reference: reference.original, access }), reference.original.includes('/base/') ? baseVerdict : verdict),
    tag: async () => ({ ok: true, digest: DIGEST }),
  };
  const input: BuildInput = {
    build: { id: 'b1', commit: COMMIT, repository: 'org/app', ...more },
    pipeline: { file: '.step-runner.yml', text: `version: 1\nsteps:\n${steps}` },
    source: { url: 'https://github.com/org/app.git', commit: COMMIT },
  };
  const deps: Pick<TaskDeps, 'cluster' | 'log' | 'checkImages' | 'sourceFiles' | 'reuseRegistry'> = {
    cluster,
    log: { info: (message: string) => lines.push(message), warn: (message: string) => lines.push(`WARN ${message}`) } as TaskDeps['log'],
    checkImages: async (references) => {
      asked.push(...references.map((reference) => reference.original));
      return { verdicts: new Map(references.map(({ original }) => [original, original.includes('/base/') ? checkedBase : ({ kind: 'found', digest: 'sha256:0' } as ImageVerdict)])), notes: [] };
    },
    sourceFiles: () => source,
    reuseRegistry: registry,
  };
  const run = () => prepareBuild(input, workflowSettings({ namespace: 'ci', workspaceMode: 'ephemeral' }), deps);
  const buildOf = async () => (await run()).steps.find((step) => step.name === 'image')?.build;
  return { run, buildOf, lines, asked, found };
}

describe("PrepareBuild and a build step's inputs", () => {
  it("asks the first tag's repository for the key's tag, over the step's insecure registries, and marks the step to tag what it names", async () => {
    const h = harness({ kind: 'found', digest: DIGEST });
    const prepared = await h.run();
    expect(h.found.map(({ reference, access }) => ({ reference, insecure: access.insecure }))).toEqual([{ reference: TAG, insecure: ['registry.example.com'] }]);
    const built = prepared.steps.find((step) => step.name === 'image')?.build;
    expect(built).toMatchObject({ inputs: { key: KEY, tag: TAG, write: true }, reuse: { digest: DIGEST } });
    expect(h.lines).toContain(`Build: step "image": inputs key ${KEY}: ${TAG} names ${DIGEST}, which the step tags registry.example.com/team/app:1, registry.example.com/team/app:latest without building`);
    // Nothing is built, so nothing is checked out: the clone's image is no image of the build.
    expect(prepared.steps.map((step) => step.name)).toEqual(['image']);
    expect(prepared.settings.checkout).toBeUndefined();
    expect(h.lines).toContain('No checkout: every step tags an image pushed for its inputs already');
    expect(prepared.images?.map((one) => one.image)).toEqual([DEFAULT_BUILDER_IMAGE, 'registry.example.com/base/node:22']);
  });

  it('still checks out for a step that reads the workspace', async () => {
    const h = harness({ kind: 'found', digest: DIGEST }, `${image}  - name: test\n    image: node:22\n    commands: [npm test]\n`);
    const prepared = await h.run();
    expect(prepared.settings.checkout).toBeDefined();
    expect(prepared.steps.find((step) => step.name === 'image')?.build?.reuse).toEqual({ digest: DIGEST });
  });

  it.each<[string, ImageVerdict, string]>([
    ['not found', { kind: 'not-found', status: 404, words: 'manifest unknown' }, `no image was pushed for these inputs yet (${TAG} is not in its registry)`],
    ['found without a digest', { kind: 'found' }, `${TAG} was found without a digest`],
    ['an unreachable registry', { kind: 'inconclusive', reason: 'unreachable', words: 'ECONNREFUSED' }, `could not tell whether ${TAG} exists (ECONNREFUSED)`],
    ['credentials refused', { kind: 'inconclusive', reason: 'unauthorized', words: 'the registry refused the credentials the check used (401)' }, `could not tell whether ${TAG} exists (the registry refused the credentials the check used (401))`],
  ])('builds when the key is %s, saying why', async (_, verdict, why) => {
    const built = await harness(verdict).buildOf();
    expect(built).toMatchObject({ inputs: { key: KEY, tag: TAG, write: true }, builds: why });
    expect(built?.reuse).toBeUndefined();
  });

  it('asks a base image again as the builder does when the image check got no digest (TLS to a plain HTTP registry)', async () => {
    const checked: ImageVerdict = { kind: 'inconclusive', reason: 'unreachable', words: 'ERR_SSL_WRONG_VERSION_NUMBER' };
    const { run, found } = harness({ kind: 'found', digest: DIGEST }, image, {}, { kind: 'found', digest: 'sha256:0' }, checked);
    expect((await run()).steps.find((step) => step.name === 'image')?.build).toMatchObject({ inputs: { key: KEY }, reuse: { digest: DIGEST } });
    expect(found.map(({ reference, access }) => ({ reference, insecure: access.insecure }))).toEqual([
      { reference: 'registry.example.com/base/node:22', insecure: ['registry.example.com'] },
      { reference: TAG, insecure: ['registry.example.com'] },
    ]);
  });

  it.each<[string, ImageVerdict, string]>([
    ['unreachable', { kind: 'inconclusive', reason: 'unreachable', words: 'ECONNREFUSED' }, 'ECONNREFUSED'],
    ['not found', { kind: 'not-found', status: 404, words: 'manifest unknown' }, 'not found: manifest unknown'],
  ])("makes no key when a base image's digest is not known (%s), and builds", async (_, baseVerdict, words) => {
    const h = harness({ kind: 'found', digest: DIGEST }, image, {}, baseVerdict, { kind: 'skipped', words: 'the deployment turned the image check off' });
    const built = await h.buildOf();
    expect(h.found.map(({ reference }) => reference)).toEqual(['registry.example.com/base/node:22']);
    expect(built).toMatchObject({ builds: `no inputs key: the digest of its base image registry.example.com/base/node:22 is not known (${words})` });
    expect(built?.inputs).toBeUndefined();
  });

  it("lets a fork's pull request use a key found, and never push one", async () => {
    const fork = { pullRequest: { number: 7, fork: true } };
    expect(await harness({ kind: 'found', digest: DIGEST }, image, fork).buildOf()).toMatchObject({ inputs: { write: false }, reuse: { digest: DIGEST } });
    expect(await harness({ kind: 'not-found', status: 404, words: '' }, image, fork).buildOf()).toMatchObject({ inputs: { write: false } });
  });

  it.each<[string, string, string]>([
    ['push: false', image.replace(/ {6}tags: .*\n/, '      push: false\n'), 'never skipped: it pushes nothing (push: false)'],
    ['build secrets', `${image}    secrets: [{env: NPM_TOKEN, secret: npm, key: token}]\n`, 'never skipped: it has build secrets, whose content could change the image and is never hashed'],
  ])('never looks a key up for %s', async (_, steps, why) => {
    const h = harness({ kind: 'found', digest: DIGEST }, steps);
    const built = await h.buildOf();
    expect(h.found).toEqual([]);
    expect(built).toMatchObject({ builds: why });
    expect(built?.inputs).toBeUndefined();
  });

  it('makes another key for another commit (its OCI revision label)', async () => {
    const h = harness({ kind: 'not-found', status: 404, words: '' }, image, { commit: 'beef000000000000000000000000000000000000' });
    expect((await h.buildOf())?.inputs?.key).not.toBe(KEY);
  });
});

describe('LaunchStep for a step that tags the image pushed for its inputs', () => {
  const step: Pick<Step, 'name' | 'build' | 'env'> = {
    name: 'image',
    env: { STEP_RUNNER_INSECURE_REGISTRIES: 'registry.example.com' },
    build: { context: 'app', dockerfile: 'app/Dockerfile', buildArgs: {}, tags: ['registry.example.com/team/app:1'], push: true, labels: {}, inputs: { key: KEY, tag: TAG, write: true }, reuse: { digest: DIGEST } },
  };
  const registryAnswering = (outcome: CopyOutcome, calls: unknown[]): ReuseRegistry => ({
    find: async () => ({ kind: 'not-found', status: 404, words: '' }),
    tag: async (from, digest, tags, access) => (calls.push({ from: from.original, digest, tags: tags.map((tag) => tag.original), insecure: access?.insecure }), outcome),
  });

  it('puts the digest found under each tag', async () => {
    const calls: unknown[] = [];
    await tagReusedImage({ step, namespace: 'ci', loginSecret: undefined, cluster: fakeStepCluster(), registry: registryAnswering({ ok: true, digest: DIGEST }, calls) });
    expect(calls).toEqual([{ from: TAG, digest: DIGEST, tags: ['registry.example.com/team/app:1'], insecure: ['registry.example.com'] }]);
  });

  it('ends the step ImagePushFailed with the registry\'s words when it refuses', async () => {
    const refused = tagReusedImage({ step, namespace: 'ci', loginSecret: undefined, cluster: fakeStepCluster(), registry: registryAnswering({ ok: false, words: 'tagging registry.example.com/team/app:1: DENIED: requested access to the resource is denied' }, []) });
    await expect(refused).rejects.toMatchObject({
      name: 'ImagePushFailed',
      message: expect.stringContaining(`Step "image": the image pushed for these inputs (${TAG}, ${DIGEST}) could not be tagged registry.example.com/team/app:1: tagging registry.example.com/team/app:1: DENIED: requested access to the resource is denied.`),
    });
  });
});
