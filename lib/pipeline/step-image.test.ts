/**
 * A step's image naming a build step's digest, `REPOSITORY@${{ steps.NAME.digest }}`: the step it
 * reads as (the image checked with a placeholder digest, shown as written) and each refusal with
 * its line.
 */
import { readPipelineText as read, pipelineTextProblems as problems } from '../../test/fixtures/pipeline-text.js';
import { DIGEST_PLACEHOLDER, stepDigestImage } from './step-image.js';

const BUILD = '  - name: image\n    build: {tags: [ghcr.io/org/app:1.4]}\n';
/** The build step on lines 3-4, then the steps given from line 5. */
const file = (steps: string, build = BUILD) => `version: 1\nsteps:\n${build}${steps}`;
const runs = (image: string, extra = '') => `  - name: test\n    image: ${image}\n    commands: [npm test]\n${extra}`;

describe('stepDigestImage', () => {
  it.each([
    ['ghcr.io/org/app@${{ steps.image.digest }}', { step: 'image', repository: 'ghcr.io/org/app', familiar: 'ghcr.io/org/app@${{ steps.image.digest }}' }],
    ['127.0.0.1:5000/built/app@${{steps.image.digest}}', { step: 'image', repository: '127.0.0.1:5000/built/app', familiar: '127.0.0.1:5000/built/app@${{ steps.image.digest }}' }],
    ['app@${{ steps.build-it.digest }}', { step: 'build-it', repository: 'app', familiar: 'docker.io/library/app@${{ steps.build-it.digest }}' }],
  ])('%s', (image, expected) => {
    const read = stepDigestImage(image);
    expect(read.ok && { step: read.step, repository: read.repository, familiar: read.image.familiar, original: read.image.original, digest: read.image.digest }).toEqual({ ...expected, original: image, digest: DIGEST_PLACEHOLDER });
  });

  it.each([
    ['@${{ steps.image.digest }}', 'names no repository'],
    ['${{ steps.image.digest }}', 'is written "REPOSITORY@${{ steps.NAME.digest }}"'],
    ['ghcr.io/org/app:1.4@${{ steps.image.digest }}', 'has a tag or a digest of its own'],
    ['ghcr.io/org/app:${{ steps.image.digest }}', 'is written "REPOSITORY@${{ steps.NAME.digest }}"'],
    ['ghcr.io/org/app@${{ steps.image.tags }}', 'is written "REPOSITORY@${{ steps.NAME.digest }}"'],
    ['GHCR.io/Org/App@${{ steps.image.digest }}', 'lowercase'],
  ])('refuses %s', (image, words) => {
    const read = stepDigestImage(image);
    expect(read.ok ? 'accepted' : read.reason).toContain(words);
  });
});

describe('a step that runs the image a build step pushed', () => {
  it('reads as a step whose image LaunchStep completes, the build step named', () => {
    const [, test] = read(file(runs('ghcr.io/org/app@${{ steps.image.digest }}'))).steps;
    expect({ image: test?.image, imageFrom: test?.imageFrom, repository: test?.imageRef?.repository }).toEqual({ image: 'ghcr.io/org/app@${{ steps.image.digest }}', imageFrom: 'image', repository: 'org/app' });
  });

  it('may need the build step through another, when steps run side by side', () => {
    const text = file(`  - name: scan\n    image: alpine:3.20\n    commands: [make]\n    needs: [image]\n${runs('ghcr.io/org/app@${{ steps.image.digest }}', '    needs: [scan]\n')}`);
    expect(read(text).steps.find((step) => step.name === 'test')?.imageFrom).toBe('image');
  });

  it.each([
    ['a step that is not above it', file(runs('ghcr.io/org/app@${{ steps.later.digest }}') + '  - name: later\n    build: {tags: [ghcr.io/org/app:2]}\n'), '"later" is no step above this one (it comes after)'],
    ['no step of that name', file(runs('ghcr.io/org/app@${{ steps.imgae.digest }}')), '"imgae" is no step above this one (no step has that name)'],
    ['a step that builds nothing', file(runs('ghcr.io/org/app@${{ steps.image.digest }}'), '  - name: image\n    image: alpine:3.20\n    commands: [make]\n'), 'step "image" builds no image', 7],
    ['a build that does not push', file(runs('ghcr.io/org/app@${{ steps.image.digest }}'), '  - name: image\n    build: {push: false}\n'), 'does not push (push: false)'],
    ['a step side by side with the build', file(runs('ghcr.io/org/app@${{ steps.image.digest }}', '    needs: []\n')), 'this step does not need "image", so it could start before the image is pushed'],
    ['a matrix', file(runs('ghcr.io/org/app@${{ steps.image.digest }}', '    matrix: {node: [20, 22]}\n')), "a matrix's image cannot name another step's digest"],
  ])('refuses %s, at the image\'s line', (_, text, words, line = 6) => {
    expect(problems(text)).toEqual([{ message: expect.stringContaining(words), line }]);
  });
});
