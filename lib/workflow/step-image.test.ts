/**
 * LaunchStep's half of `REPOSITORY@${{ steps.NAME.digest }}`: the digest FinishStep recorded of the
 * build step's push written into the step's image, and ImagePullFailed when there is none.
 */
import { readPipelineText } from '../../test/fixtures/pipeline-text.js';
import type { StepRecord } from './step-log-store.js';
import { withPushedImage } from './step-image.js';

const DIGEST = `sha256:${'4656'.repeat(16)}`;
const [build, test, plain] = readPipelineText(
  'version: 1\nsteps:\n  - name: image\n    build: {tags: [ghcr.io/org/app:1.4]}\n  - name: test\n    image: 127.0.0.1:5000/org/app@${{ steps.image.digest }}\n    commands: [npm test]\n  - name: lint\n    image: alpine:3.20\n    commands: [make lint]\n',
).steps;
const record = (over: Partial<StepRecord>): StepRecord => ({ step: 'image', status: 'succeeded', exitCode: 0, error: null, startedAt: '2026-12-06T08:00:00Z', endedAt: '2026-12-06T08:01:00Z', ...over });

describe('withPushedImage', () => {
  it('writes in the digest the build step pushed, under the repository as the file spells it', () => {
    const resolved = withPushedImage(test!, [record({ step: 'clone' }), record({ pushed: { digest: DIGEST, tags: ['ghcr.io/org/app:1.4'] } })]);
    expect({ image: resolved.image, digest: resolved.imageRef?.digest, domain: resolved.imageRef?.domain, imageFrom: resolved.imageFrom }).toEqual({
      image: `127.0.0.1:5000/org/app@${DIGEST}`,
      digest: DIGEST,
      domain: '127.0.0.1:5000',
      imageFrom: undefined,
    });
  });

  it('leaves every other step as it is', () => {
    expect(withPushedImage(plain!, [])).toBe(plain);
    expect(withPushedImage(build!, [])).toBe(build);
  });

  it.each([
    ['no record of the build step (skipped by its when)', [record({ step: 'clone' })]],
    ['a record without a push', [record({})]],
    ['a failed attempt', [record({ status: 'failed', error: 'ImagePushFailed', pushed: { digest: DIGEST, tags: [] } })]],
  ])('fails ImagePullFailed with %s', (_, records) => {
    expect(() => withPushedImage(test!, records)).toThrow(
      expect.objectContaining({ name: 'ImagePullFailed', message: expect.stringContaining('names the digest step "image" pushes, and "image" has pushed nothing in this build') }),
    );
  });
});
