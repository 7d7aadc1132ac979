/**
 * A pipeline's steps once each `matrix:` is expanded (matrix.ts): one step per combination, so
 * that everything after the loader (PrepareBuild, the Map over the steps, the console, `run
 * --json`) sees ordinary steps. Each has its combination's values as environment variables of
 * their own names, its image read with them, and a name of its own (matrix.ts expansionNames);
 * `needs: [test]` on another step means every step `test` expands to. Pure.
 */
import { buildWithValues } from './build.js';
import { checkImageReference, type ImageReference } from './image-reference.js';
import { expandMatrix, expansionNames, fillImage, templateVariables, type ImageTemplate, type MatrixValues } from './matrix.js';
import { ProblemKinds, type PipelineInput, type SchemaProblem } from './schema.js';
import { namesStepDigest, stepDigestImage } from './step-image.js';
import type { MatrixOf } from './types.js';

type StepInput = PipelineInput['steps'][number];

/** A step of the file as its combination makes it: an ordinary step's input, and where it came from. */
export interface ExpandedStep {
  /** `image` absent on an approval step only (approval.ts). */
  input: Omit<StepInput, 'image' | 'matrix' | 'fail-fast'> & { image?: ImageReference };
  /** The index of the step in the file that it came from. */
  source: number;
  matrix?: MatrixOf;
  /** The build step whose pushed digest the image names (`REPOSITORY@${{ steps.NAME.digest }}`, step-image.ts). */
  imageFrom?: string;
}

export type Expansion = { ok: true; steps: ExpandedStep[] } | { ok: false; problems: SchemaProblem[] };

/** Every step of the file, each matrix in its place expanded; or what is wrong with a matrix as it meets its step. */
export function expandSteps(steps: readonly StepInput[]): Expansion {
  const problems: SchemaProblem[] = [];
  const taken = new Set(steps.map((step) => step.name));
  const expansions = steps.map((step, index) => expandStep(step, index, taken, problems));
  if (problems.length > 0) return { ok: false, problems };
  const namesOf = new Map(steps.map((step, index) => [step.name, expansions[index]!.map((expanded) => expanded.input.name)]));
  const expanded = expansions.flat().map((step) =>
    // `needs: [test]` waits for every combination of `test`.
    step.input.needs === undefined ? step : { ...step, input: { ...step.input, needs: step.input.needs.flatMap((need) => namesOf.get(need) ?? [need]) } },
  );
  return { ok: true, steps: expanded };
}

function expandStep(step: StepInput, index: number, taken: Set<string>, problems: SchemaProblem[]): ExpandedStep[] {
  const { matrix, 'fail-fast': failFast, image, ...rest } = step;
  const at = (...path: (string | number)[]) => ['steps', index, ...path];
  if (!matrix) {
    if (failFast !== undefined) problems.push({ path: at('fail-fast'), kind: ProblemKinds.other, message: 'goes with "matrix": it says whether the first failing combination stops the others' });
    // The rules (step-image.ts) have said such an image is well formed, and what it names.
    const fromStep = image && 'template' in image && namesStepDigest(image.template) ? stepDigestImage(image.template) : undefined;
    if (fromStep?.ok) return [{ input: { ...rest, image: fromStep.image }, source: index, imageFrom: fromStep.step }];
    if (image && 'template' in image) {
      problems.push({ path: at('image'), kind: ProblemKinds.other, message: `${image.template}: "\${{ matrix.NAME }}" needs a "matrix" on the step, whose values it stands for` });
      return [];
    }
    if (rest.build) {
      const plain = buildWithValues(rest.build, undefined);
      if (!plain.ok) {
        problems.push(...plain.problems.map((problem) => ({ path: at('build', ...problem.path), kind: ProblemKinds.other, message: problem.message })));
        return [];
      }
    }
    return [{ input: { ...rest, ...(image ? { image } : {}) }, source: index }];
  }
  if (rest.approval) {
    problems.push({ path: at('matrix'), kind: ProblemKinds.other, message: 'goes with "image" and "commands", or "build", not with "approval": an approval waits once, for one decision' });
    return [];
  }
  const combinations = expandMatrix(matrix);
  const variables = new Set(combinations.flatMap((values) => Object.keys(values)));
  const clashes = [...variables].filter((name) => rest.env?.[name] !== undefined || rest.secrets?.some((secret) => secret.env === name));
  for (const name of clashes) {
    problems.push({ path: at('matrix'), kind: ProblemKinds.other, message: `"${name}" is a variable of the matrix and also set in env or secrets; a variable comes from one of them only` });
  }
  const names = expansionNames(step.name, combinations, taken);
  names.forEach((name) => taken.add(name));
  // The first combination whose image (or build) is wrong says what is: the others' would say it again.
  const images: (ImageReference | undefined)[] = [];
  const builds: (typeof rest.build)[] = [];
  for (const values of combinations) {
    const one = image ? imageFor(image, values, at('image'), problems) : undefined;
    if (image && one === undefined) return [];
    images.push(one);
    const built = rest.build ? buildWithValues(rest.build, values) : undefined;
    if (built && !built.ok) {
      problems.push(...built.problems.map((problem) => ({ path: at('build', ...problem.path), kind: ProblemKinds.other, message: problem.message })));
      return [];
    }
    builds.push(built?.build);
  }
  if (clashes.length > 0) return [];
  const shared = sharedTag(builds, combinations);
  if (shared) {
    problems.push({ path: at('build', 'tags', shared.index), kind: ProblemKinds.other, message: shared.message });
    return [];
  }
  return combinations.map((values, at) => ({
    input: { ...rest, name: names[at]!, ...(images[at] ? { image: images[at] } : {}), ...(builds[at] ? { build: builds[at] } : {}), env: { ...values, ...rest.env } },
    source: index,
    matrix: { of: step.name, values, ...(failFast === false ? { failFast: false as const } : {}) },
  }));
}

/**
 * A tag two combinations of a build would both push, the first found: each combination pushes its
 * own image, and a tag both name would end on whichever pushed last.
 */
function sharedTag(builds: readonly ({ tags?: string[] | undefined } | undefined)[], combinations: readonly MatrixValues[]): { index: number; message: string } | undefined {
  const pushedBy = new Map<string, number>();
  for (const [at, build] of builds.entries()) {
    for (const [index, tag] of (build?.tags ?? []).entries()) {
      const other = pushedBy.get(tag);
      if (other !== undefined && other !== at) {
        return { index, message: `"${tag}" is pushed by the combinations ${JSON.stringify(combinations[other])} and ${JSON.stringify(combinations[at])}: each combination pushes an image of its own, so write a matrix value into its tags (e.g. "ghcr.io/org/app:\${{ matrix.NODE }}")` };
      }
      pushedBy.set(tag, at);
    }
  }
  return undefined;
}

/** The image for one combination: the step's own, or its template read with the combination's values and checked as any image is. */
function imageFor(image: ImageReference | ImageTemplate, values: MatrixValues, path: (string | number)[], problems: SchemaProblem[]): ImageReference | undefined {
  if (!('template' in image)) return image;
  const variables = templateVariables(image.template);
  if (!variables.ok) {
    problems.push({ path, kind: ProblemKinds.other, message: `${image.template}: ${variables.reason}` });
    return undefined;
  }
  const missing = variables.names.find((name) => values[name] === undefined);
  if (missing !== undefined) {
    problems.push({ path, kind: ProblemKinds.other, message: `${image.template}: the combination ${JSON.stringify(values)} has no "${missing}" (the matrix's variables are its axes and what its include entries add)` });
    return undefined;
  }
  const filled = fillImage(image.template, values);
  const checked = checkImageReference(filled);
  if (checked.ok) return checked.image;
  problems.push({ path, kind: ProblemKinds.image, image: filled, message: checked.reason });
  return undefined;
}
