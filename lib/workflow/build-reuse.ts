/**
 * A build step whose inputs were pushed already tags that image instead of building it again
 * (issue 39). PrepareBuild makes each build step's inputs key (lib/pipeline/build-inputs.ts) from
 * the build's commit and its base images' digests (its image check's), and asks the registry the
 * step pushes to for the key's tag, with the pull credentials the builder would use; found, the
 * step is marked to reuse the digest it names, and LaunchStep, before the step's pod, puts that
 * manifest under the step's tags with the credentials the builder pushes with
 * (lib/registry/manifest-copy.ts). Anything short of "found, with a digest" builds as before, and
 * the step's log says why, with the key. A build the key was made for pushes the key's tag after
 * its own pushes (build-container.ts), unless it may not write (a fork's pull request, as for the
 * layer cache).
 */
import { DOCKER_CONFIG_KEY, INSECURE_REGISTRIES_ENV, ociLabels, stepPlacement, type PodPlacement, type StepCluster } from '../kube/index.js';
import { buildInputsKey, checkImageReference, inputsTag, neverSkipped, type ImageReference, type Step } from '../pipeline/index.js';
import { dockerConfigLookup, findManifest, tagManifest, type CredentialsLookup, type ImageVerdict, type RegistryAccess } from '../registry/index.js';
import type { SourceFiles } from './build-bases.js';
import { ImagePushFailed } from './registry-login.js';

/** How the registry is reached: lib/registry's, or a test's. */
export interface ReuseRegistry {
  find: typeof findManifest;
  tag: typeof tagManifest;
}
const REGISTRY: ReuseRegistry = { find: findManifest, tag: tagManifest };

/** The node label that pins a pod's platform (kubernetes.io/docs/reference/labels-annotations-taints/#kubernetes-io-arch). */
const ARCH_LABEL = 'kubernetes.io/arch';

/** The registries a step's builder speaks plain HTTP to (its env's STEP_RUNNER_INSECURE_REGISTRIES). */
export function insecureRegistries(step: Pick<Step, 'env'>): string[] {
  return (step.env[INSECURE_REGISTRIES_ENV] ?? '').split(/[\s,]+/).filter((host) => host !== '');
}

/** The Docker config the builder logs in with (its registry login Secret, else the pod's first pull secret), as a lookup. */
async function builderCredentials(cluster: Pick<StepCluster, 'readSecretValues'>, namespace: string, secret: string | undefined): Promise<CredentialsLookup | undefined> {
  if (secret === undefined) return undefined;
  const [document] = await cluster.readSecretValues(namespace, [{ env: DOCKER_CONFIG_KEY, secret, key: DOCKER_CONFIG_KEY }]);
  return document !== undefined ? dockerConfigLookup([document]) : undefined;
}

export interface PlanReuseInput {
  steps: readonly Step[];
  source: SourceFiles | undefined;
  /** The build's variables, whose commit and repository make the OCI labels the builder sets. */
  buildEnv: Record<string, string>;
  builderImage: string;
  placement?: PodPlacement;
  /** A fork's pull request: it may reuse an image found, never push a key's tag. */
  fork: boolean;
  namespace: string;
  pullSecrets: readonly string[];
  cluster: Pick<StepCluster, 'readSecretValues'>;
  /**
   * A step's FROM images in the Dockerfile's order, each with the digest PrepareBuild's image check
   * got when it got one; or why they are not all known (a FROM not resolved, `image-check: false`).
   */
  bases(step: string): { images: { reference: ImageReference; digest?: string }[] } | { unknown: string };
  registry?: ReuseRegistry;
}

/** What the lookup said, for the step's log: why it builds. */
function notFoundWords(tag: string, verdict: ImageVerdict): string {
  if (verdict.kind === 'not-found') return `no image was pushed for these inputs yet (${tag} is not in its registry)`;
  if (verdict.kind === 'found') return `${tag} was found without a digest`;
  return `could not tell whether ${tag} exists (${verdict.words})`;
}

/**
 * Each base image as `REF@DIGEST`: the image check's digest, else the registry asked as the builder
 * asks it (its insecure registries, its credentials: the image check speaks TLS to every registry
 * but loopback's). One not found with a digest makes no key.
 */
async function baseDigests(
  given: ReturnType<PlanReuseInput['bases']>,
  access: RegistryAccess,
  registry: ReuseRegistry,
): Promise<{ digests: string[] } | { unknown: string }> {
  if ('unknown' in given) return given;
  const digests: string[] = [];
  for (const { reference, digest } of given.images) {
    const verdict: ImageVerdict = digest !== undefined ? { kind: 'found', digest } : await registry.find(reference, access);
    if (verdict.kind !== 'found' || verdict.digest === undefined) {
      return { unknown: `the digest of its base image ${reference.familiar} is not known (${verdict.kind === 'found' ? 'its registry gave none' : verdict.kind === 'not-found' ? `not found: ${verdict.words}` : verdict.words})` };
    }
    digests.push(`${reference.familiar}@${verdict.digest}`);
  }
  return { digests };
}

/** Each build step with its `inputs` (and `reuse` when its key's tag was found, else `builds`: why it builds); notes for PrepareBuild's log. */
export async function planBuildReuse(input: PlanReuseInput): Promise<{ steps: Step[]; notes: string[] }> {
  const registry = input.registry ?? REGISTRY;
  const notes: string[] = [];
  let credentials: Promise<CredentialsLookup | undefined> | undefined;
  const lookup: CredentialsLookup = async (host) => {
    credentials ??= builderCredentials(input.cluster, input.namespace, input.pullSecrets[0]).catch(() => undefined);
    return (await credentials)?.(host);
  };
  const steps: Step[] = [];
  for (const step of input.steps) {
    const build = step.build;
    if (!build) {
      steps.push(step);
      continue;
    }
    const never = neverSkipped(step);
    const treeId = input.source?.treeId;
    if (never !== undefined || !input.source || !treeId) {
      const why = never ?? "this runtime cannot read the context's tree at the build's commit";
      steps.push({ ...step, build: { ...build, builds: `never skipped: ${why}` } });
      continue;
    }
    const [tree, dockerfile] = await Promise.all([treeId(build.context).catch(() => undefined), input.source.read(build.dockerfile).catch(() => undefined)]);
    if (tree === undefined || !dockerfile?.found) {
      steps.push({ ...step, build: { ...build, builds: `no inputs key: ${tree === undefined ? `the context ${build.context} was not read at the build's commit` : `${build.dockerfile} was not read`}` } });
      continue;
    }
    const access: RegistryAccess = { credentials: lookup, insecure: insecureRegistries(step) };
    const bases = await baseDigests(input.bases(step.name), access, registry);
    if ('unknown' in bases) {
      steps.push({ ...step, build: { ...build, builds: `no inputs key: ${bases.unknown}` } });
      continue;
    }
    const key = buildInputsKey({
      contextTree: tree,
      dockerfile: dockerfile.text,
      bases: bases.digests,
      ...(build.target !== undefined ? { target: build.target } : {}),
      buildArgs: build.buildArgs,
      labels: { ...ociLabels(input.buildEnv), ...build.labels },
      builderImage: input.builderImage,
      platform: stepPlacement(step, input.placement).nodeSelector?.[ARCH_LABEL] ?? 'unpinned',
    });
    const tag = inputsTag(build, key);
    const reference = tag !== undefined ? checkImageReference(tag) : undefined;
    if (tag === undefined || !reference?.ok) {
      steps.push({ ...step, build: { ...build, builds: 'no inputs key: its first tag names no repository' } });
      continue;
    }
    const inputs = { key, tag, write: !input.fork };
    const verdict = await registry.find(reference.image, access);
    if (verdict.kind === 'found' && verdict.digest !== undefined) {
      notes.push(`step "${step.name}": inputs key ${key}: ${tag} names ${verdict.digest}, which the step tags ${build.tags.join(', ')} without building`);
      steps.push({ ...step, build: { ...build, inputs, reuse: { digest: verdict.digest } } });
    } else {
      steps.push({ ...step, build: { ...build, inputs, builds: notFoundWords(tag, verdict) } });
    }
  }
  return { steps, notes };
}

export interface ReuseImageInput {
  step: Pick<Step, 'name' | 'build' | 'env'>;
  namespace: string;
  /** The Secret the builder would log in with: its registry login, else the pod's first pull secret. */
  loginSecret: string | undefined;
  cluster: Pick<StepCluster, 'readSecretValues'>;
  registry?: ReuseRegistry;
}

/**
 * LaunchStep, for a step PrepareBuild marked to reuse: the found manifest put under each of its
 * tags. A registry that refuses ends the step ImagePushFailed with its words, as a refused push does.
 */
export async function tagReusedImage(input: ReuseImageInput): Promise<void> {
  const build = input.step.build;
  if (!build?.reuse || !build.inputs) return;
  const registry = input.registry ?? REGISTRY;
  const from = checkImageReference(build.inputs.tag);
  const tags = build.tags.map((tag) => checkImageReference(tag));
  const parsed = tags.flatMap((tag) => (tag.ok ? [tag.image] : []));
  const credentials = await builderCredentials(input.cluster, input.namespace, input.loginSecret);
  const outcome =
    from.ok && parsed.length === tags.length
      ? await registry.tag(from.image, build.reuse.digest, parsed, { ...(credentials ? { credentials } : {}), insecure: insecureRegistries(input.step) })
      : { ok: false as const, words: 'a tag is no reference' };
  if (!outcome.ok) {
    throw new ImagePushFailed(
      `Step "${input.step.name}": the image pushed for these inputs (${build.inputs.tag}, ${build.reuse.digest}) could not be tagged ${build.tags.join(', ')}: ${outcome.words}. ` +
        `Nothing was built; check the registry's credentials (the pipeline's pull-secrets, or the step's identity for ECR), or run the build again: a key whose tag is gone builds.`,
    );
  }
}
