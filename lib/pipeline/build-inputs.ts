/**
 * A build step's inputs key (issue 39): a sha256 of everything that decides the image it builds,
 * so that a build whose key was pushed already tags that image instead of running the builder
 * again (lib/workflow/build-reuse.ts). Pure.
 *
 * What decides the image: the context's content (the git tree id of the context folder at the
 * commit the builder reads: a tree id is a hash of every file's content and mode below it, so it
 * changes exactly when they do), the Dockerfile's content, the digest of each FROM image (a tag
 * pushed again is another base), the target, the build arguments, the labels as the builder gets
 * them (the OCI labels name the commit, so another commit is another key even with the same
 * tree), the builder image and the platform. Not the step's name, its tags or its cache: they say
 * where the image goes, not what it is.
 */
import { createHash } from 'node:crypto';
import { checkImageReference } from './image-reference.js';
import type { Step, StepBuild } from './types.js';

export interface BuildInputs {
  /** The git tree id of the context folder at the build's commit (or the local snapshot's). */
  contextTree: string;
  /** The Dockerfile's text. */
  dockerfile: string;
  /** Each FROM image as resolved, with the digest its registry gave (`REF@sha256:...`), in the file's order: a tag that moves is another key. */
  bases: readonly string[];
  target?: string;
  buildArgs: Readonly<Record<string, string>>;
  /** Every label the builder sets: the OCI ones under the step's. */
  labels: Readonly<Record<string, string>>;
  /** The builder image as the deployment names it. */
  builderImage: string;
  /** The nodes' platform the build runs on, as its pod is pinned (`kubernetes.io/arch`), or `unpinned`. */
  platform: string;
}

/** A new meaning of the key (another field, another encoding) starts with another version: no old tag matches it. */
const KEY_VERSION = 'step-runner build inputs 1';

/** The tag's prefix; the tag is `inputs-` and the key's first 40 hex digits (160 bits), within a tag's 128 characters. */
export const INPUTS_TAG_PREFIX = 'inputs-';
export const INPUTS_TAG_HEX = 40;

const sorted = (record: Readonly<Record<string, string>>) => Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** The key: sha256 (hex) of the inputs in a fixed order, maps sorted by name, so a map's written order does not count. */
export function buildInputsKey(inputs: BuildInputs): string {
  const canonical = JSON.stringify([
    KEY_VERSION,
    inputs.contextTree,
    createHash('sha256').update(inputs.dockerfile).digest('hex'),
    inputs.bases,
    inputs.target ?? null,
    sorted(inputs.buildArgs),
    sorted(inputs.labels),
    inputs.builderImage,
    inputs.platform,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * Where a key is recorded: a tag of the first tag's repository (the registry the step pushes to,
 * whose access rules it follows; a copy within one repository needs no blob of another), or
 * undefined when the first tag is no reference.
 */
export function inputsTag(build: Pick<StepBuild, 'tags'>, key: string): string | undefined {
  const first = build.tags[0];
  if (first === undefined) return undefined;
  const checked = checkImageReference(first);
  if (!checked.ok) return undefined;
  return `${checked.image.domain}/${checked.image.repository}:${INPUTS_TAG_PREFIX}${key.slice(0, INPUTS_TAG_HEX)}`;
}

/**
 * Why a build step is never skipped, whatever its key, or undefined when it may be: a build that
 * pushes nothing has no image to tag; one with build secrets could differ by their content, which
 * must not be hashed into anything stored; tags in more than one repository would need another
 * repository's blobs.
 */
export function neverSkipped(step: Pick<Step, 'secrets' | 'build'>): string | undefined {
  const build = step.build;
  if (!build) return 'it is no build step';
  if (!build.push) return 'it pushes nothing (push: false)';
  if (step.secrets.length > 0) return 'it has build secrets, whose content could change the image and is never hashed';
  const repositories = new Set(build.tags.map((tag) => {
    const checked = checkImageReference(tag);
    return checked.ok ? `${checked.image.domain}/${checked.image.repository}` : tag;
  }));
  if (repositories.size > 1) return `its tags name ${repositories.size} repositories (a tag is copied within one repository only)`;
  return undefined;
}
