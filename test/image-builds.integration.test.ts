/**
 * Build steps (`build:`) through the real definition on the embedded cluster's Docker runtime, as
 * `run --runtime docker` runs them: the builder (Debian's buildah, builder-image.ts) as the step's
 * container with the build pod's permissions (no privilege, three capabilities, seccomp
 * Unconfined), a two-stage Dockerfile of the checked-out repository built by a matrix of two
 * bases (a build argument) and pushed to a registry on loopback, and one combination's image then run by the
 * build's next step by its digest (`REPOSITORY@${{ steps.image-base-configured.digest }}`), the console
 * page showing it; and a FROM tag its registry lacks
 * stopping the build before any pod. The builder reaches the registry at the pods' gateway (a
 * forwarder there), the node's Docker daemon at loopback: the same registry under two names.
 */
import { jest } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { dockerSocket } from './fixtures/docker/engine-api.js';
import { builderImageBuildable, pushBuilderImage } from './fixtures/docker/builder-image.js';
import { startForwarder } from './fixtures/docker/shared-registry.js';
import { dockerDaemon, startTestImages, testImagesBuildable, type TestImages } from './fixtures/docker/test-images.js';
import { localBuildsForFile } from './fixtures/local-builds.js';
import { describeRequiring } from './fixtures/requirements.js';
import { stateGraph } from '../lib/console/asl-graph.js';
import { executionModel } from '../lib/console/execution-model.js';
import { executionPage } from '../lib/console/execution-page.js';
import type { ListedExecution } from '../lib/console/execution-view.js';
import { layoutGraph } from '../lib/console/graph-layout.js';
import { loadDefinition } from '../lib/workflow/definition.js';
import type { LocalBuild } from './fixtures/local-builds.js';

/** The execution's console page as the local server renders it, from the build's own events, `step` the one shown. */
function consolePage(name: string, { summary, events }: Pick<LocalBuild, 'summary' | 'events'>, step: string): string {
  const execution: ListedExecution = {
    ...summary,
    name,
    executionArn: `arn:aws:states:local:000000000000:execution:step-runner-local:${name}`,
    startedAt: new Date(events[0]!.timestamp).toISOString(),
    stoppedAt: new Date(events.at(-1)!.timestamp).toISOString(),
    buildId: name,
    trigger: 'test',
    repository: null,
    commit: null,
    ref: null,
    rerunOf: null,
    reruns: [],
    redriveCount: 0,
    redrivable: false,
  };
  const model = executionModel({ execution, history: events, pods: new Map() });
  const shown = model.steps.findIndex((one) => one.name === step);
  return executionPage(model, layoutGraph(stateGraph(loadDefinition())), shown, new Date()).text;
}

// Builds on a busy machine: the waits are upper bounds for a hang.
jest.setTimeout(180_000);

const buildable = { present: testImagesBuildable.present && builderImageBuildable.present, missing: [testImagesBuildable, builderImageBuildable].filter((r) => !r.present).map((r) => r.missing).join('; '), remedy: 'apt-get install buildah busybox-static docker-registry' };

describeRequiring('image builds on the Docker runtime', dockerDaemon, () => {
  describeRequiring('with the test images and the builder', buildable, () => {
    let images: TestImages;
    let builder: string;
    let gateway: { host: string; stop(): Promise<void> } | undefined;
    beforeAll(async () => {
      images = await startTestImages();
      builder = await pushBuilderImage(images.registry);
    }, 150_000);
    afterAll(async () => {
      await gateway?.stop();
      await images?.stop();
    });

    const builds = localBuildsForFile({
      prefix: 'image-builds',
      repository: true,
      runtime: () => ({ kind: 'docker', socketPath: dockerSocket(), sandboxImage: images.sandbox }),
      settings: () => ({ cloneImage: images.git, builderImage: builder }),
    });
    beforeAll(async () => {
      // Where the builder, in a container, reaches the registry this machine's daemon pulls from at loopback.
      gateway = await startForwarder(images.registry, builds.hostAddress);
    });
    const logOf = (build: string, step: string) => readFile(path.join(builds.root, 'logs', build, `${step}.log`), 'utf8');

    test('a two-stage Dockerfile is built by a matrix of two and pushed without privilege, one combination\'s digest runs the file it wrote, and a second build of the same commit reuses every layer, or tags the image pushed for its inputs', async () => {
      const registry = gateway!.host;
      await builds.commit({
        'app/Dockerfile': `ARG BASE=${registry}/test/busybox:1
FROM \${BASE} AS first
RUN echo "made \${GREETING:-plain} in stage one of $(cat /etc/test-image-marker | wc -c) bytes" > /made.txt
FROM \${BASE}
COPY --from=first /made.txt /srv/made.txt
CMD ["cat", "/srv/made.txt"]
`,
      });
      const image = (build: string) => `version: 1
steps:
  - name: image
    env: {STEP_RUNNER_INSECURE_REGISTRIES: "${registry}"}
    build:
      context: app
${build}`;
      // Each combination builds on its own base (a build argument its FROM reads) and pushes its own
      // tag (issue 39's matrix of builds). Not a stage's own ARG: Debian's buildah 1.28 keys such a
      // layer in the registry cache without its value and never finds it again (buildah#4315,
      // fixed by buildah#4326 in later releases, the default builder's among them).
      const matrix = `${image(`      build-args: {BASE: "${registry}/test/\${{ matrix.BASE }}:1"}\n      tags: ["${registry}/built/app:\${{ matrix.BASE }}"]\n      cache: ${registry}/built/cache\n`)}    matrix: {BASE: [busybox, configured]}\n`;
      // The build's next step runs what one combination pushed by its digest, under the name this
      // machine's daemon reaches the same registry by (the digest is the registry's, whatever the name).
      const built = await builds.build('built', `${matrix}  - name: run\n    image: ${images.registry}/built/app@\${{ steps.image-base-configured.digest }}\n    commands: [cat /srv/made.txt]\n`);
      const pushed = Object.fromEntries(built.summary.steps.filter((step) => step.name.startsWith('image-')).map((step) => [step.name, { status: step.status, pushed: step.pushed }]));
      expect({ status: built.summary.status, cause: built.summary.cause, pushed }).toEqual({
        status: 'SUCCEEDED',
        cause: null,
        pushed: Object.fromEntries(['busybox', 'configured'].map((base) => [`image-base-${base}`, { status: 'succeeded', pushed: { digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), tags: [`${registry}/built/app:${base}`] } }])),
      });
      const [one, two] = [pushed['image-base-busybox']!.pushed!.digest, pushed['image-base-configured']!.pushed!.digest];
      expect(one).not.toBe(two);
      const log = await logOf('built', 'image-base-busybox');
      // overlay, where this machine's kernel mounts it in buildah's user namespace (build-container.ts).
      expect(log).toContain('$ buildah --storage-driver overlay build');
      expect(log).toContain('[2/2] STEP 2/');
      expect(log).toContain('COPY --from=first /made.txt /srv/made.txt');
      expect(await logOf('built', 'run')).toContain('made from-image in stage one of 33 bytes');
      // The console page's step shows the digest it pushed.
      const page = consolePage('built', built, 'image-base-busybox');
      expect(page).toContain(`<code data-pushed-digest>${one}</code>`);

      // The first build made each combination's inputs key, found no image for it, and pushed its tag.
      const firstLog = await logOf('built', 'image-base-configured');
      // Its first line, so that another reason shows in the failure.
      expect(firstLog.split('\n')[0]).toMatch(/^Inputs key [0-9a-f]{64}: no image was pushed for these inputs yet /);
      const key = /^Inputs key ([0-9a-f]{64}):/.exec(firstLog)?.[1];
      expect(firstLog).toContain(`docker://${registry}/built/app:inputs-${key!.slice(0, 40)}`);

      // The same commit again. `checked` is the busybox combination with push: false (never skipped):
      // every instruction after a FROM comes from the layer cache, as buildah says. The configured
      // combination, written as a step of its own with the same inputs, has the same key: it runs no
      // builder, tags the image pushed for it, reports the same digest, and the next step runs it.
      const step = (name: string, base: string, push: string) => `  - name: ${name}
    env: {STEP_RUNNER_INSECURE_REGISTRIES: "${registry}"}
    build:
      context: app
      build-args: {BASE: "${registry}/test/${base}:1"}
${push}      cache: ${registry}/built/cache
`;
      const again = await builds.build(
        'rebuilt',
        `version: 1\nsteps:\n${step('checked', 'busybox', '      push: false\n')}${step('image-base-configured', 'configured', `      tags: ["${registry}/built/app:configured"]\n`)}  - name: run\n    image: ${images.registry}/built/app@\${{ steps.image-base-configured.digest }}\n    commands: [cat /srv/made.txt]\n`,
      );
      expect({ status: again.summary.status, cause: again.summary.cause }).toEqual({ status: 'SUCCEEDED', cause: null });
      const rebuilt = await logOf('rebuilt', 'checked');
      expect(rebuilt).toMatch(/^Inputs: never skipped: it pushes nothing \(push: false\): building$/m);
      const instructions = rebuilt.split('\n').filter((line) => /STEP \d+\/\d+: (?!FROM )/.test(line));
      expect(instructions.length).toBeGreaterThanOrEqual(3);
      expect(rebuilt.split('\n').filter((line) => line.startsWith('--> Using cache ')).length).toBe(instructions.length);
      expect(rebuilt).not.toContain('Pushing cache');
      const skipped = await logOf('rebuilt', 'image-base-configured');
      expect(skipped).toContain(`Inputs key ${key}: ${registry}/built/app:inputs-${key!.slice(0, 40)} was pushed for these inputs as ${two}: tagged ${registry}/built/app:configured with it, nothing built`);
      expect(skipped).not.toContain('buildah');
      expect(again.summary.steps.find((one) => one.name === 'image-base-configured')?.pushed).toEqual({ digest: two, tags: [`${registry}/built/app:configured`] });
      expect(await logOf('rebuilt', 'run')).toContain('made from-image in stage one of 33 bytes');
    });

    test('a RUN that exits 1 fails ImageBuildFailed naming the instruction, its Dockerfile line and the output', async () => {
      const registry = gateway!.host;
      await builds.commit({ 'failing/Dockerfile': `FROM ${registry}/test/busybox:1\n\n# a comment\nRUN echo about to fail && \\\n    exit 1\nRUN echo never\n` });
      const { summary } = await builds.build(
        'failing',
        `version: 1\nsteps:\n  - name: image\n    env: {STEP_RUNNER_INSECURE_REGISTRIES: "${registry}"}\n    build: {context: failing, push: false}\n`,
      );
      // The Cause in the comparison, so that another Error shows what the builder said.
      expect({ status: summary.status, error: summary.error, cause: summary.cause }).toEqual({
        status: 'FAILED',
        error: 'ImageBuildFailed',
        cause: expect.stringContaining('Step "image": failing/Dockerfile line 4: RUN echo about to fail &&     exit 1 failed (exit code 1).'),
      });
      expect(summary.cause).toContain('about to fail');
    });

    test('a FROM tag the registry lacks fails ImagePullFailed naming the Dockerfile line, before any pod', async () => {
      await builds.commit({ 'Dockerfile': `# the base\nFROM ${images.missingTag}\nRUN true\n` });
      const { summary, events } = await builds.build('missing-base', `version: 1\nsteps:\n  - name: image\n    build: {push: false}\n`);
      expect({ status: summary.status, error: summary.error }).toEqual({ status: 'FAILED', error: 'ImagePullFailed' });
      expect(summary.cause).toContain(`Step "image": Dockerfile line 2 (FROM): base image "${images.missingTag}" was not found; its registry answered:`);
      // PrepareBuild refused it: no step was launched, not even the checkout.
      expect(events.filter((event) => event.type === 'StateEntered').map((event) => event.state?.name)).not.toContain('LaunchStep');
      expect(summary.steps).toEqual([]);
    });
  });
});
