/**
 * The image catalog: which images the simulated node can "pull". Pure: parse catalog documents and
 * resolve a reference the way containerd does (docker.io/library/ normalisation, default tag
 * latest, digests when listed). Reading files is the caller's job.
 */
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import { z } from 'zod';

// @swimlane/docker-reference is CommonJS; createRequire keeps ESM, jest and tsx agreeing on it.
const dockerReference = createRequire(import.meta.url)('@swimlane/docker-reference') as typeof import('@swimlane/docker-reference');

const entrySchema = z.object({
  image: z.string().min(1),
  aliases: z.array(z.string().min(1)).optional(),
  size: z.number().int().nonnegative().optional(),
  digest: z.string().regex(/^sha256:[a-f0-9]{64}$/, 'digest must be sha256:<64 hex>').optional(),
  private: z.boolean().optional(),
  failFirstPulls: z.object({ count: z.number().int().positive(), message: z.string().optional() }).optional(),
  preloaded: z.boolean().optional(),
  entrypoint: z.array(z.string()).optional(),
  cmd: z.array(z.string()).optional(),
});

const documentSchema = z.object({
  about: z.string().optional(),
  version: z.literal(1).optional(),
  images: z.array(entrySchema),
});

/** One image of the catalog; see lib/emulators/kubernetes/images/README.md for what each field does. */
export type CatalogEntry = z.infer<typeof entrySchema>;

export interface ImageReference {
  /** As written in the pod spec. */
  original: string;
  domain: string;
  /** Path within the registry, e.g. "library/alpine". */
  repository: string;
  tag?: string;
  digest?: string;
  /** What containerd names it: docker.io/library/alpine:latest, or …@sha256:… for digests. */
  full: string;
}

export interface ImageCatalog {
  byReference: Map<string, CatalogEntry>;
  repositories: Set<string>;
  domains: Set<string>;
}

export function parseCatalogDocument(json: unknown, source: string): CatalogEntry[] {
  const parsed = documentSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${source}: invalid image catalog at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'unknown problem'}`);
  }
  for (const entry of parsed.data.images) {
    const checked = parseImageReference(entry.image);
    if (!checked.ok) throw new Error(`${source}: invalid image reference "${entry.image}": ${checked.message}`);
  }
  return parsed.data.images;
}

export type ParsedReference = { ok: true; reference: ImageReference } | { ok: false; message: string };

export function parseImageReference(image: string): ParsedReference {
  let parsed;
  try {
    parsed = dockerReference.parseFamiliarName(image);
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const domain = parsed.domain ?? 'docker.io';
  const repository = parsed.repository ?? '';
  const tag = parsed.digest === undefined ? (parsed.tag ?? 'latest') : parsed.tag;
  const base = `${domain}/${repository}`;
  const full = parsed.digest !== undefined ? `${base}@${parsed.digest}` : `${base}:${tag}`;
  return { ok: true, reference: { original: image, domain, repository, tag, digest: parsed.digest, full } };
}

export function buildCatalog(entries: CatalogEntry[]): ImageCatalog {
  const catalog: ImageCatalog = { byReference: new Map(), repositories: new Set(), domains: new Set(['docker.io']) };
  for (const entry of entries) {
    const parsed = parseImageReference(entry.image);
    if (!parsed.ok) continue;
    const { domain, repository, tag } = parsed.reference;
    const base = `${domain}/${repository}`;
    catalog.repositories.add(base);
    catalog.domains.add(domain);
    // Later entries (user files) win over earlier ones (the shipped catalog).
    for (const name of [tag, ...(entry.aliases ?? [])]) if (name !== undefined) catalog.byReference.set(`${base}:${name}`, entry);
    if (entry.digest !== undefined) catalog.byReference.set(`${base}@${entry.digest}`, entry);
  }
  return catalog;
}

export type Resolution =
  | { kind: 'invalid'; message: string }
  | { kind: 'found'; reference: ImageReference; entry: CatalogEntry }
  | { kind: 'unknown-tag' | 'unknown-repository' | 'unknown-registry'; reference: ImageReference };

/** Registries whose hosts resolve; a repository they lack is "not found" rather than a DNS failure. */
const KNOWN_REGISTRIES = ['docker.io', 'ghcr.io', 'quay.io', 'gcr.io', 'registry.k8s.io', 'public.ecr.aws', 'mcr.microsoft.com', 'registry.gitlab.com'];

function registryKnown(catalog: ImageCatalog, domain: string): boolean {
  return catalog.domains.has(domain) || KNOWN_REGISTRIES.includes(domain) || /\.amazonaws\.com$|\.pkg\.dev$|\.azurecr\.io$/.test(domain);
}

export function resolveImage(catalog: ImageCatalog, image: string): Resolution {
  const parsed = parseImageReference(image);
  if (!parsed.ok) return { kind: 'invalid', message: parsed.message };
  const { reference } = parsed;
  const base = `${reference.domain}/${reference.repository}`;
  // A reference with a digest is pulled by digest; its tag, if any, is ignored (as containerd does).
  const key = reference.digest !== undefined ? `${base}@${reference.digest}` : `${base}:${reference.tag}`;
  const entry = catalog.byReference.get(key);
  if (entry !== undefined) return { kind: 'found', reference, entry };
  if (catalog.repositories.has(base)) return { kind: 'unknown-tag', reference };
  if (registryKnown(catalog, reference.domain)) return { kind: 'unknown-repository', reference };
  return { kind: 'unknown-registry', reference };
}

/** The digest reported for an image: the listed one, else a stable stand-in derived from its name. */
export function digestOf(entry: CatalogEntry | undefined, reference: ImageReference): string {
  if (entry?.digest) return entry.digest;
  if (reference.digest) return reference.digest;
  return `sha256:${createHash('sha256').update(entry?.image ?? reference.full).digest('hex')}`;
}
