/**
 * PrepareBuild and a build step's Dockerfile: its base images asked about with the steps' images,
 * a missing one ImagePullFailed before any object of the build exists (naming the Dockerfile, the
 * line and the registry's words), the builder image the deployment names, the instruction lines
 * handed to the pod, and what is left to the builder when the file cannot be read.
 */
import { fakeStepCluster } from '../kube/fake-cluster.js';
import type { BuildInput } from '../contract/index.js';
import type { ImageVerdict } from '../registry/index.js';
import { DEFAULT_BUILDER_IMAGE } from '../pipeline/index.js';
import { workflowSettings } from './settings.js';
import type { TaskDeps } from './task-deps.js';
import { prepareBuild } from './tasks/prepare-build.js';
import type { SourceFiles } from './build-bases.js';

const PIPELINE = `version: 1
checkout: false
steps:
  - name: test
    image: node:22-alpine
    commands: [npm test]
  - name: image
    build:
      context: app
      build-args: {NODE_VERSION: "20"}
      tags: [registry.example.com/app:1]
      cache: registry.example.com/app/cache
`;

const DOCKERFILE = `ARG NODE_VERSION=22
FROM node:\${NODE_VERSION}-alpine AS deps
RUN npm ci
FROM deps AS test
FROM registry.example.com/base/runtime:3
COPY --from=deps /app /app
`;

const input: BuildInput = { build: { id: 'b1' }, pipeline: { file: '.step-runner.yml', text: PIPELINE } };

function harness(verdicts: Record<string, ImageVerdict>, files: Record<string, string> | undefined, settings = workflowSettings({ namespace: 'ci', workspaceMode: 'ephemeral' })) {
  const lines: string[] = [];
  const asked: string[] = [];
  const cluster = fakeStepCluster();
  const source: SourceFiles | undefined = files && { read: async (path) => (path in files ? { found: true, text: files[path]! } : { found: false, reason: `${path} is not in the build's commit` }) };
  const deps: Pick<TaskDeps, 'cluster' | 'log' | 'checkImages' | 'sourceFiles'> = {
    cluster,
    log: { info: (message: string) => lines.push(message), warn: (message: string) => lines.push(`WARN ${message}`) } as TaskDeps['log'],
    checkImages: async (references) => {
      asked.push(...references.map((reference) => reference.original));
      return { verdicts: new Map(references.map(({ original }) => [original, verdicts[original] ?? { kind: 'found', digest: 'sha256:0' }])), notes: [] };
    },
    sourceFiles: () => source,
  };
  return { run: () => prepareBuild(input, settings, deps), lines, asked, cluster };
}

describe('PrepareBuild with a build step', () => {
  it("asks about each resolved FROM image beside the steps' images, not the stages", async () => {
    const h = harness({}, { 'app/Dockerfile': DOCKERFILE });
    const prepared = await h.run();
    expect(h.asked).toEqual(['node:22-alpine', DEFAULT_BUILDER_IMAGE, 'node:20-alpine', 'registry.example.com/base/runtime:3']);
    const image = prepared.steps.find((step) => step.name === 'image');
    expect(image?.build?.instructionLines).toEqual([[2, 3], [4], [5, 6]]);
    expect(image?.image).toBe(DEFAULT_BUILDER_IMAGE);
    expect(h.lines).toContain(
      `Preparing step "image": image ${DEFAULT_BUILDER_IMAGE} (sha256:0); builds app/Dockerfile, FROM docker.io/library/node:20-alpine (sha256:0), FROM registry.example.com/base/runtime:3 (sha256:0), pushes registry.example.com/app:1`,
    );
  });

  it('fails ImagePullFailed naming the Dockerfile line and the registry before the claim or any pod', async () => {
    const h = harness({ 'registry.example.com/base/runtime:3': { kind: 'not-found', status: 404, words: 'manifest unknown: manifest unknown' } }, { 'app/Dockerfile': DOCKERFILE }, workflowSettings({ namespace: 'ci' }));
    await expect(h.run()).rejects.toMatchObject({
      name: 'ImagePullFailed',
      message:
        'Step "image": app/Dockerfile line 5 (FROM): base image "registry.example.com/base/runtime:3" was not found; its registry answered: manifest unknown: manifest unknown.\n' +
        'No step ran: PrepareBuild asked each image\'s registry before creating any pod. Fix the image reference (or push the image); a step with "image-check: false" leaves its image to the kubelet, and a build step its base images to the builder.',
    });
    expect(h.cluster.claims.size).toBe(0);
  });

  it("lets a fork's pull request read the layer cache and never write it", async () => {
    const cacheOf = async (fork: boolean) => {
      const h = harness({}, { 'app/Dockerfile': DOCKERFILE });
      const given = { ...input, build: { ...input.build, pullRequest: { number: 7, fork } } };
      const prepared = await prepareBuild(given, workflowSettings({ namespace: 'ci', workspaceMode: 'ephemeral' }), { cluster: h.cluster, log: { info: () => {}, warn: () => {} } as unknown as TaskDeps['log'] });
      return prepared.steps.find((step) => step.name === 'image')?.build?.cache;
    };
    expect(await cacheOf(true)).toEqual({ repository: 'registry.example.com/app/cache', write: false });
    expect(await cacheOf(false)).toEqual({ repository: 'registry.example.com/app/cache', write: true });
  });

  it("runs the deployment's builder image", async () => {
    const h = harness({}, { 'app/Dockerfile': DOCKERFILE }, workflowSettings({ namespace: 'ci', workspaceMode: 'ephemeral', builderImage: 'mirror.example.com/buildah:1.42' }));
    const prepared = await h.run();
    expect(prepared.steps.find((step) => step.name === 'image')).toMatchObject({ image: 'mirror.example.com/buildah:1.42', imageRef: { familiar: 'mirror.example.com/buildah:1.42' } });
    expect(h.asked).toContain('mirror.example.com/buildah:1.42');
  });

  it('leaves the bases to the builder, and says so, when the Dockerfile is not in the commit', async () => {
    const h = harness({}, {});
    const prepared = await h.run();
    expect(h.asked).toEqual(['node:22-alpine', DEFAULT_BUILDER_IMAGE]);
    expect(h.lines).toContain('WARN Build: step "image": app/Dockerfile was not read (app/Dockerfile is not in the build\'s commit): its base images are left to the builder');
    expect(prepared.steps.find((step) => step.name === 'image')?.build?.instructionLines).toBeUndefined();
  });

  it('leaves the bases to the builder, and says so, where the source cannot be read', async () => {
    const h = harness({}, undefined);
    await h.run();
    expect(h.lines).toContain('WARN Build: the Dockerfiles of "image" were not read (this runtime cannot read the build\'s source): their base images are left to the builder');
  });
});
