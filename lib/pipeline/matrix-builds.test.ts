/**
 * A build step with a matrix (issue 39): one build per combination, the combination's values
 * written into its build's texts, each pushing its own tags; a later step names one combination's
 * digest by the name it runs as. Each refusal with its line.
 */
import { readPipelineText as read, pipelineTextProblems as problems } from '../../test/fixtures/pipeline-text.js';

const file = (steps: string) => `version: 1\nsteps:\n${steps}`;
/** A build of two bases; `build` lines are written from line 5, the matrix after them (a step after it starts at line 7). */
const images = (build: string, matrix = '    matrix: {BASE: [alpine, debian]}\n') => `  - name: image\n    build:\n${build}${matrix}`;

describe('a build step with a matrix', () => {
  it('is one build per combination, its values in the build-args, tags, context, Dockerfile, target and labels', () => {
    const pipeline = read(
      file(
        images(
          '      context: images/${{ matrix.BASE }}\n' +
            '      dockerfile: ${{ matrix.BASE }}.Dockerfile\n' +
            '      target: on-${{ matrix.BASE }}\n' +
            '      build-args: {BASE: "registry.example/${{ matrix.BASE }}:1", FIXED: "1"}\n' +
            '      tags: ["registry.example/app:${{ matrix.BASE }}", "registry.example/app:${{ matrix.BASE }}-1"]\n' +
            '      labels: {org.opencontainers.image.title: "app on ${{ matrix.BASE }}"}\n' +
            '      cache: registry.example/app/cache\n',
        ),
      ),
    );
    const builds = pipeline.steps.filter((step) => step.build);
    expect(builds.map((step) => ({ name: step.name, matrix: step.matrix, env: step.env, build: step.build }))).toEqual(
      ['alpine', 'debian'].map((base) => ({
        name: `image-base-${base}`,
        matrix: { of: 'image', values: { BASE: base } },
        env: { BASE: base },
        build: expect.objectContaining({
          context: `images/${base}`,
          dockerfile: `images/${base}/${base}.Dockerfile`,
          target: `on-${base}`,
          buildArgs: { BASE: `registry.example/${base}:1`, FIXED: '1' },
          tags: [`registry.example/app:${base}`, `registry.example/app:${base}-1`],
          labels: { 'org.opencontainers.image.title': `app on ${base}` },
          cache: { repository: 'registry.example/app/cache', write: true },
        }),
      })),
    );
  });

  it('builds only, each combination, with push: false and no tags', () => {
    const pipeline = read(file(images('      push: false\n      build-args: {BASE: "${{ matrix.BASE }}"}\n')));
    expect(pipeline.steps.filter((step) => step.build).map((step) => step.build?.buildArgs)).toEqual([{ BASE: 'alpine' }, { BASE: 'debian' }]);
  });

  it.each<[string, string, { message: string; line: number }]>([
    [
      'a tag every combination pushes',
      file(images('      build-args: {BASE: "${{ matrix.BASE }}"}\n      tags: [registry.example/app:1]\n')),
      { line: 6, message: 'ci.yml line 6: step "image": build.tags[0]: "registry.example/app:1" is pushed by the combinations {"BASE":"alpine"} and {"BASE":"debian"}: each combination pushes an image of its own, so write a matrix value into its tags (e.g. "ghcr.io/org/app:${{ matrix.NODE }}")' },
    ],
    [
      'a tag a combination makes wrong',
      file(images('      tags: ["registry.example/app:${{ matrix.BASE }}"]\n', '    matrix: {BASE: [alpine, "no good"]}\n')),
      { line: 5, message: expect.stringContaining('ci.yml line 5: step "image": build.tags[0]: registry.example/app:${{ matrix.BASE }} is "registry.example/app:no good" for {"BASE":"no good"}: ') as unknown as string },
    ],
    [
      'a context a combination takes out of the workspace',
      file(images('      context: ${{ matrix.BASE }}/app\n      push: false\n', '    matrix: {BASE: [.., ok]}\n')),
      { line: 5, message: 'ci.yml line 5: step "image": build.context: ${{ matrix.BASE }}/app is "../app" for {"BASE":".."}: "../app" has a ".." segment: the context and the Dockerfile stay inside the workspace' },
    ],
    [
      'a value no combination has',
      file(images('      build-args: {BASE: "${{ matrix.BAS }}"}\n      push: false\n')),
      { line: 5, message: 'ci.yml line 5: step "image": build.build-args.BASE: ${{ matrix.BAS }}: the combination {"BASE":"alpine"} has no "BAS" (the matrix\'s variables are its axes and what its include entries add)' },
    ],
    [
      'another expression',
      file(images('      build-args: {SHA: "${{ github.sha }}"}\n      push: false\n')),
      { line: 5, message: 'ci.yml line 5: step "image": build.build-args.SHA: ${{ github.sha }}: "${{ github.sha }}": only a matrix value, "${{ matrix.NAME }}", can be written into a build' },
    ],
    [
      'a matrix value in a build with no matrix',
      file(images('      tags: ["registry.example/app:${{ matrix.BASE }}"]\n', '')),
      { line: 5, message: 'ci.yml line 5: step "image": build.tags[0]: registry.example/app:${{ matrix.BASE }}: "${{ matrix.NAME }}" needs a "matrix" on the step, whose values it stands for' },
    ],
  ])('refuses %s, at its line', (_, text, problem) => {
    expect(problems(text)).toEqual([problem]);
  });
});

describe("a later step running one combination's image by its digest", () => {
  const built = images('      tags: ["registry.example/app:${{ matrix.BASE }}"]\n');
  const runs = (image: string, extra = '') => `  - name: test\n    image: ${image}\n    commands: [make test]\n${extra}`;

  it('names the combination by the name it runs as, and LaunchStep completes it from that combination', () => {
    const pipeline = read(file(built + runs('registry.example/app@${{ steps.image-base-debian.digest }}')));
    const test = pipeline.steps.find((step) => step.name === 'test');
    expect(test?.imageFrom).toBe('image-base-debian');
  });

  it.each<[string, string, { message: string; line: number }]>([
    [
      "the matrix step's own name",
      file(built + runs('registry.example/app@${{ steps.image.digest }}')),
      { line: 8, message: 'ci.yml line 8: step "test": image: registry.example/app@${{ steps.image.digest }}: step "image" has a matrix: each of its 2 combinations pushes its own digest; name one by the name it runs as, e.g. ${{ steps.image-base-alpine.digest }} (image-base-alpine, image-base-debian)' },
    ],
    [
      'a combination the step does not need',
      file(built + runs('registry.example/app@${{ steps.image-base-alpine.digest }}', '    needs: []\n')),
      { line: 8, message: 'ci.yml line 8: step "test": image: registry.example/app@${{ steps.image-base-alpine.digest }}: this step does not need "image", so it could start before the image is pushed; add it to "needs"' },
    ],
    [
      'a combination of a build that does not push',
      file(images('      push: false\n') + runs('registry.example/app@${{ steps.image-base-alpine.digest }}')),
      { line: 8, message: 'ci.yml line 8: step "test": image: registry.example/app@${{ steps.image-base-alpine.digest }}: step "image" does not push (push: false), so its image has no digest in any registry' },
    ],
  ])('refuses %s, at the image\'s line', (_, text, problem) => {
    expect(problems(text)).toEqual([problem]);
  });
});
