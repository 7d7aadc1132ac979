/**
 * PrepareBuild's image check: which images the build's pods will pull, what their registries say,
 * and the one verdict that fails the build (a registry saying the manifest does not exist).
 */
import { ErrorNames, StepRunnerError } from '../contract/index.js';
import type { ImageReference, Step } from '../pipeline/index.js';
import type { ImageVerdict } from '../registry/index.js';
import type { TaskDeps } from './task-deps.js';
import type { BaseImage } from './build-bases.js';

export interface ImageUse {
  image: string;
  /** The step's or service's parsed reference (Step.imageRef): the registry check reads it, never the text. */
  reference: ImageReference;
  /** The steps that pull it (`clone` for the checkout, in every pod when it is an init container), for themselves or a service. */
  steps: string[];
  /** The services that run it (in the pods of the steps above); absent: none. */
  services?: string[];
  /** The build steps' Dockerfiles whose FROM names it (build-bases.ts); absent: none. */
  bases?: { step: string; file: string; line: number }[];
  /** Why it is not checked, when it is not. */
  skip?: string;
}

/** What PrepareBuild's output says about each image: the digest it will pull, or why it did not check. */
export interface ImageCheckSummary {
  image: string;
  steps: string[];
  services?: string[];
  verdict: ImageVerdict['kind'];
  digest?: string;
  words?: string;
}

/**
 * Distinct images in order of first use, each step's own before its services'; a step's
 * `image-check: false` skips its own image for the build (services have no opt-out).
 */
export function imageUses(steps: readonly Pick<Step, 'name' | 'imageRef' | 'imageCheck' | 'services' | 'imageFrom'>[], bases: readonly BaseImage[] = []): ImageUse[] {
  const uses = new Map<string, ImageUse>();
  const use = (reference: ImageReference, step: string): ImageUse => {
    const found = uses.get(reference.original) ?? { image: reference.original, reference, steps: [] };
    if (!found.steps.includes(step)) found.steps.push(step);
    uses.set(reference.original, found);
    return found;
  };
  for (const step of steps) {
    if (!step.imageRef) continue;
    const own = use(step.imageRef, step.name);
    if (step.imageCheck === false) own.skip = `step "${step.name}" says image-check: false`;
    // Its digest is the one a build step of this build pushes (step-image.ts): nothing to ask before.
    if (step.imageFrom !== undefined) own.skip = `the digest step "${step.imageFrom}" pushes, once it has`;
    for (const service of step.services ?? []) {
      const used = use(service.imageRef, step.name);
      used.services = [...new Set([...(used.services ?? []), service.name])];
    }
  }
  // A base image is pulled by the builder, not by a pod: it counts for no step of its own.
  for (const base of bases) {
    const found = uses.get(base.reference.original) ?? { image: base.reference.original, reference: base.reference, steps: [] };
    found.bases = [...(found.bases ?? []), { step: base.step, file: base.file, line: base.line }];
    uses.set(base.reference.original, found);
  }
  return [...uses.values()];
}

export async function checkBuildImages(
  uses: readonly ImageUse[],
  namespace: string,
  enabled: boolean,
  deps: Pick<TaskDeps, 'checkImages' | 'log'>,
  /** The pods' own imagePullSecrets (they replace the service account's), for private registries. */
  pullSecrets: readonly string[] = [],
): Promise<Map<string, ImageVerdict>> {
  const verdicts = new Map<string, ImageVerdict>();
  const why = !enabled ? 'the deployment turned the image check off' : !deps.checkImages ? 'this runtime has no image check' : undefined;
  for (const use of uses) {
    const skip = why ?? use.skip;
    if (skip) verdicts.set(use.image, { kind: 'skipped', words: skip });
  }
  const asked = uses.filter((use) => !verdicts.has(use.image)).map((use) => use.reference);
  if (asked.length === 0 || !deps.checkImages) return verdicts;
  // The check is advice: even a bug in it must leave the images to the kubelet, not fail the build.
  const report = await deps.checkImages(asked, namespace, pullSecrets.length > 0 ? { pullSecrets } : {}).catch((error: unknown) => {
    const words = `the check failed: ${error instanceof Error ? error.message : String(error)}`;
    return { verdicts: new Map<string, ImageVerdict>(asked.map((image) => [image.original, { kind: 'inconclusive', reason: 'registry-error', words }])), notes: [] };
  });
  for (const note of report.notes) deps.log.warn(`Image check: ${note}`);
  for (const { original: image } of asked) {
    verdicts.set(image, report.verdicts.get(image) ?? { kind: 'inconclusive', reason: 'registry-error', words: 'no verdict' });
  }
  return verdicts;
}

/** The end of a "Preparing" line: what the check found for the image (PrepareBuild's log, `run`'s output). */
export function imageCheckNote(summaries: readonly ImageCheckSummary[] | undefined, image: string): string {
  const summary = summaries?.find((s) => s.image === image);
  switch (summary?.verdict) {
    case undefined:
      return '';
    case 'found':
      return summary.digest ? ` (${summary.digest})` : ' (found in its registry)';
    case 'not-found':
      return ` (not found in its registry: ${summary.words})`;
    case 'inconclusive':
      return ` (registry check inconclusive: ${summary.words}; the kubelet will tell)`;
    case 'skipped':
      return ` (not checked: ${summary.words})`;
  }
}

export function imageCheckSummaries(uses: readonly ImageUse[], verdicts: Map<string, ImageVerdict>): ImageCheckSummary[] {
  return uses.map((use) => {
    const verdict = verdicts.get(use.image);
    return {
      image: use.image,
      steps: use.steps,
      ...(use.services ? { services: use.services } : {}),
      verdict: verdict?.kind ?? 'skipped',
      ...(verdict?.kind === 'found' && verdict.digest ? { digest: verdict.digest } : {}),
      ...(verdict?.kind === 'inconclusive' ? { words: `${verdict.reason}: ${verdict.words}` } : {}),
      ...(verdict?.kind === 'not-found' || verdict?.kind === 'skipped' ? { words: verdict.words } : {}),
    };
  });
}

/**
 * `Step "a"`, `Steps "a", "b"`, or for a service's image `Service "db" (step "a")`; for a base
 * image, each Dockerfile line that names it: `Step "image": app/Dockerfile line 3 (FROM)`.
 */
function whoPulls(use: ImageUse): string {
  if (use.steps.length === 0 && use.bases) return use.bases.map((base) => `Step "${base.step}": ${base.file} line ${base.line} (FROM)`).join('; ');
  const list = (items: readonly string[]) => items.map((item) => `"${item}"`).join(', ');
  const steps = `${use.steps.length > 1 ? 'steps' : 'step'} ${list(use.steps)}`;
  if (!use.services) return steps.charAt(0).toUpperCase() + steps.slice(1);
  return `${use.services.length > 1 ? 'Services' : 'Service'} ${list(use.services)} (${steps})`;
}

/**
 * What a "Preparing step" line adds for the step's services: each one's image and what the check
 * found for it, e.g. `; service "db": image docker.io/library/postgres:16-alpine (sha256:...)`. Empty without services.
 */
export function servicesNote(step: Pick<Step, 'services'>, summaries: readonly ImageCheckSummary[] | undefined): string {
  return (step.services ?? []).map((service) => `; service "${service.name}": image ${service.imageRef.familiar}${imageCheckNote(summaries, service.image)}`).join('');
}

/**
 * A registry said a step's image does not exist, before any pod: thrown by PrepareBuild. (The
 * kubelet's pull failures are PollStep's verdicts, reported as data with the same Error.)
 */
export class ImagePullFailed extends StepRunnerError {
  override readonly name = ErrorNames.ImagePullFailed;
}

/** ImagePullFailed, as a kubelet's report would be, naming each missing image and its steps. */
export function missingImages(uses: readonly ImageUse[], verdicts: Map<string, ImageVerdict>): ImagePullFailed | undefined {
  const missing = uses.flatMap((use) => {
    const verdict = verdicts.get(use.image);
    return verdict?.kind === 'not-found' ? [{ use, words: verdict.words }] : [];
  });
  if (missing.length === 0) return undefined;
  // "Not found" and the registry's words, no more: a mirror (the embedded cluster's catalog) can
  // lack an image that its registry has.
  const lines = missing.map(({ use, words }) => `${whoPulls(use)}: ${use.steps.length === 0 && use.bases ? 'base image' : 'image'} "${use.image}" was not found; its registry answered: ${words}.`);
  return new ImagePullFailed(
    `${lines.join('\n')}\nNo step ran: PrepareBuild asked each image's registry before creating any pod. ` +
      'Fix the image reference (or push the image); a step with "image-check: false" leaves its image to the kubelet' +
      (missing.some(({ use }) => use.bases) ? ', and a build step its base images to the builder.' : '.'),
  );
}
