/**
 * A step whose image names a build step's digest (`REPOSITORY@${{ steps.NAME.digest }}`,
 * lib/pipeline/step-image.ts) gets it written in by LaunchStep, from the record FinishStep kept of
 * that step's push (StepLogStore.results: the Map's iterations cannot read each other's results).
 * The pipeline's rules have made sure the build step runs first and pushes; a record without a push
 * (the step skipped by its `when`, or a record of another kind) fails the step ImagePullFailed
 * before its pod, saying so. Pure but for the records handed in.
 */
import { parseImageReference, withDigest, type Step } from '../pipeline/index.js';
import { ImagePullFailed } from './image-check.js';
import type { StepRecord } from './step-log-store.js';

/** The step with its image's digest written in; the step as it is when its image names none. */
export function withPushedImage(step: Step, records: readonly StepRecord[]): Step {
  if (step.imageFrom === undefined || !step.imageRef) return step;
  const from = step.imageFrom;
  const pushed = records.find((record) => record.step === from && record.status === 'succeeded')?.pushed;
  if (!pushed) {
    throw new ImagePullFailed(
      `Step "${step.name}": its image ${step.image} names the digest step "${from}" pushes, and "${from}" has pushed nothing in this build` +
        ` (it did not run: its "when" left it out, or it has not succeeded).`,
    );
  }
  const { imageFrom: _written, ...rest } = step;
  // The repository as the file spells it: all before the "@${{ ... }}".
  const image = withDigest((step.image ?? '').slice(0, (step.image ?? '').lastIndexOf('@')), pushed.digest);
  return { ...rest, image, imageRef: parseImageReference(image) };
}
