/**
 * A step that runs the image a build step of the same build pushed, by its digest (issue 39):
 *
 * ```yaml
 *   - name: image
 *     build: {tags: [ghcr.io/org/app:1.4]}
 *   - name: test
 *     image: ghcr.io/org/app@${{ steps.image.digest }}
 *     commands: [npm test]
 * ```
 *
 * `${{ steps.NAME.digest }}` is the `sha256:...` the registry gave NAME's push (its
 * `steps[].pushed.digest`), written where a reference's digest goes, after `REPOSITORY@`: GitHub
 * Actions' spelling (`steps.<id>.outputs.digest` after `@`, as docker/build-push-action's users
 * write it), in the `${{ }}` the pipeline already uses for a matrix's values. The repository is the
 * step's to name (one of the tags', or the same registry under another name), so the test runs
 * exactly what was pushed, whatever a tag points to by then. LaunchStep writes the digest in
 * (lib/workflow/step-image.ts). Pure.
 */
import { checkImageReference, type ImageReference } from './image-reference.js';
import { expandMatrix, expansionNames, matrixSchema } from './matrix.js';

/** What the digest is read as until LaunchStep knows it: a well-formed sha256, so the reference can be checked now. */
export const DIGEST_PLACEHOLDER = `sha256:${'0'.repeat(64)}`;

const STEP_DIGEST = /^(.*)@\$\{\{\s*steps\.([^.\s}]+)\.digest\s*\}\}$/;

export type StepDigestImage = { ok: true; step: string; repository: string; image: ImageReference } | { ok: false; reason: string };

/** Whether an image names another step's digest at all (then stepDigestImage says whether it does so rightly). */
export function namesStepDigest(image: string): boolean {
  return /\$\{\{\s*steps\./.test(image);
}

/**
 * `REPOSITORY@${{ steps.NAME.digest }}` read: the step it names and the reference, checked with
 * the placeholder digest (its `original` the text as written); or why it is not that form.
 */
export function stepDigestImage(image: string): StepDigestImage {
  const match = STEP_DIGEST.exec(image);
  if (!match) return { ok: false, reason: `a step's image is written "REPOSITORY@\${{ steps.NAME.digest }}" (the digest another step pushed, e.g. ghcr.io/org/app@\${{ steps.image.digest }}); nothing else of "\${{ steps... }}" can be written into an image` };
  const [, repository = '', step = ''] = match;
  if (repository === '') return { ok: false, reason: 'names no repository before "@": write the repository the step pushed to, e.g. ghcr.io/org/app@${{ steps.image.digest }}' };
  if (/[:@]/.test(repository.slice(repository.lastIndexOf('/') + 1))) return { ok: false, reason: `"${repository}" has a tag or a digest of its own: the reference is the repository, then "@" and the digest` };
  const checked = checkImageReference(`${repository}@${DIGEST_PLACEHOLDER}`);
  if (!checked.ok) return { ok: false, reason: checked.reason };
  const familiar = `${checked.image.domain}/${checked.image.repository}@\${{ steps.${step}.digest }}`;
  return { ok: true, step, repository, image: { ...checked.image, original: image, familiar } };
}

/** The reference once the digest is known. */
export function withDigest(repository: string, digest: string): string {
  return `${repository}@${digest}`;
}

type RawProblem = { path: (string | number)[]; message: string };

/**
 * On the raw data, beside the schema: a step's image naming another step's digest must name a build
 * step above it that pushes (`build:` without `push: false`), and, in a pipeline whose steps run
 * side by side (`needs`, a matrix), one it needs (directly or through the steps it needs), or it
 * could start before the image exists; a matrix's image cannot name one (its combinations are read
 * when the file is). A build step with a matrix pushes one digest per combination: the image names
 * one by the name it expands to (`${{ steps.image-node-22.digest }}`), never by the step's name.
 */
export function stepImageProblems(data: unknown): RawProblem[] {
  if (!isMap(data) || !Array.isArray(data['steps'])) return [];
  const steps = data['steps'].map((step: unknown) => (isMap(step) ? step : {}));
  const names = steps.map((step) => (typeof step['name'] === 'string' ? step['name'] : undefined));
  const sideBySide = steps.some((step) => step['needs'] !== undefined || step['matrix'] !== undefined);
  // A matrix step's combinations by the names it expands to (matrix-steps.ts): the step each stands for.
  const taken = new Set<string>(names.filter((name): name is string => name !== undefined));
  const expansions = steps.map((step, index) => {
    const expanded = names[index] !== undefined && step['matrix'] !== undefined ? combinationNames(names[index]!, step['matrix'], taken) : undefined;
    // As expandSteps names them: a later matrix's names avoid an earlier one's.
    expanded?.forEach((name) => taken.add(name));
    return expanded;
  });
  const combinationOf = new Map(expansions.flatMap((expanded, index) => (expanded ?? []).map((name) => [name, index] as const)));
  const needsOf = (index: number): string[] => {
    const given = steps[index]?.['needs'];
    if (given === undefined) return index > 0 && names[index - 1] !== undefined ? [names[index - 1]!] : [];
    return (Array.isArray(given) ? given : [given]).filter((name): name is string => typeof name === 'string');
  };
  return steps.flatMap((step, index): RawProblem[] => {
    const image = step['image'];
    if (typeof image !== 'string' || !namesStepDigest(image)) return [];
    const message = problemOf(image, index);
    return message === undefined ? [] : [{ path: ['steps', index, 'image'], message: `${image}: ${message}` }];
  });

  function problemOf(image: string, index: number): string | undefined {
    if (steps[index]?.['matrix'] !== undefined) return 'a matrix\'s image cannot name another step\'s digest (only "${{ matrix.NAME }}")';
    const read = stepDigestImage(image);
    if (!read.ok) return read.reason;
    // One combination of a matrix build is named by the name it expands to, as `run --step` and the console name it.
    const combination = combinationOf.get(read.step);
    const source = combination ?? names.indexOf(read.step);
    const stepName = names[source] ?? read.step;
    if (source < 0 || source >= index) return `"${read.step}" is no step above this one (${source < 0 ? 'no step has that name' : 'it comes after'}); name the build step whose image this step runs`;
    const built = steps[source]?.['build'];
    if (!isMap(built)) return `step "${stepName}" builds no image (it has no "build")`;
    if (built['push'] === false) return `step "${stepName}" does not push (push: false), so its image has no digest in any registry`;
    const combinations = expansions[source];
    if (combination === undefined && combinations !== undefined) {
      return `step "${read.step}" has a matrix: each of its ${combinations.length} combinations pushes its own digest; name one by the name it runs as, e.g. \${{ steps.${combinations[0]}.digest }} (${combinations.join(', ')})`;
    }
    if (sideBySide && !reaches(index, stepName, needsOf, names)) return `this step does not need "${stepName}", so it could start before the image is pushed; add it to "needs"`;
    return undefined;
  }
}

/** The names a matrix step's combinations run as (matrix.ts expansionNames), or undefined when its matrix is not one (the schema says why). */
function combinationNames(step: string, matrix: unknown, taken: ReadonlySet<string>): string[] | undefined {
  const read = matrixSchema(() => '').safeParse(matrix);
  return read.success ? expansionNames(step, expandMatrix(read.data), taken) : undefined;
}

/** Whether the step at `from` needs `target`, directly or through the steps it needs. */
function reaches(from: number, target: string, needsOf: (index: number) => string[], names: readonly (string | undefined)[]): boolean {
  const seen = new Set<string>();
  const queue = [...needsOf(from)];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (name === target) return true;
    if (seen.has(name)) continue;
    seen.add(name);
    const index = names.indexOf(name);
    if (index >= 0) queue.push(...needsOf(index));
  }
  return false;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
