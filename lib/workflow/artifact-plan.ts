/**
 * Where a step's artifacts go in the deployment's bucket, and how their objects are named (pure):
 * `artifacts/${class}d/${repository}/${build}/${step}/${n}-${name}` and `.../manifest.json`.
 *
 * The bucket expires objects by prefix, so each artifact lands under the lifecycle class that
 * keeps it at least as long as its `expire-in` asks: a few fixed rules instead of one per value.
 */
import type { Artifacts } from '../pipeline/types.js';

/** The lifecycle rules' classes in days (serverless.yml ExpireArtifacts1d..365d, local-cache-store.ts). */
export const ARTIFACT_EXPIRY_CLASSES = [1, 7, 30, 90, 365] as const;

export const ARTIFACTS_PREFIX = 'artifacts/';

/** The manifest's object name in the step's folder. */
export const ARTIFACT_MANIFEST = 'manifest.json';

/** The smallest class that keeps an artifact `days` days (parsing caps expire-in at 365). */
export function artifactExpiryClass(days: number): number {
  return ARTIFACT_EXPIRY_CLASSES.find((kept) => kept >= days) ?? ARTIFACT_EXPIRY_CLASSES.at(-1)!;
}

export interface ArtifactPlace {
  expireInDays: number;
  /** `owner/name`; absent (a local run of no repository): `local`. */
  repository?: string | undefined;
  buildId: string;
  step: string;
}

/** The step's folder, ending in `/`. Every part is encoded, so none can climb out of its place. */
export function artifactFolder({ expireInDays, repository, buildId, step }: ArtifactPlace): string {
  const part = (text: string) => encodeURIComponent(text).replace(/^\.+$/, (dots) => '%2E'.repeat(dots.length));
  return `${ARTIFACTS_PREFIX}${artifactExpiryClass(expireInDays)}d/${part(repository ?? 'local')}/${part(buildId)}/${part(step)}/`;
}

export function artifactManifestKey(place: ArtifactPlace): string {
  return `${artifactFolder(place)}${ARTIFACT_MANIFEST}`;
}

/** Whether the path names a folder as written (`dist/`). */
export function namesFolder(path: string): boolean {
  return path.endsWith('/');
}

/**
 * `${n}-${name}`: the path with every run of unsafe characters (the `/` between its parts too) as
 * one `_`, numbered so two paths that read the same once made safe keep apart.
 */
export function artifactObjectName(index: number, path: string, folder: boolean): string {
  const safe = path.replace(/\/+$/, '').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_') || '_';
  return `${index}-${safe}${folder ? '.tar.gz' : ''}`;
}

/**
 * A path's objects: as a file (absent when the path names a folder) and as a folder's tar.gz. A
 * path without its trailing `/` may turn out to be a folder only once the step has run, so it gets
 * both, and the pod uses the one that fits.
 */
export function artifactObjects(place: ArtifactPlace, index: number, path: string): { file?: string; folder: string } {
  const folder = `${artifactFolder(place)}${artifactObjectName(index, path, true)}`;
  return namesFolder(path) ? { folder } : { file: `${artifactFolder(place)}${artifactObjectName(index, path, false)}`, folder };
}

/** One kept artifact, as the pod's manifest lists it. */
export interface ArtifactManifestEntry {
  path: string;
  object: string;
  size: number;
  sha256: string;
}

/** What the pod wrote after the step's commands: what it kept and which paths did not exist. */
export interface ArtifactManifest {
  artifacts: ArtifactManifestEntry[];
  missing: string[];
}

/** The manifest as read back, or undefined when it is not one (a foreign object, a truncated upload). */
export function parseArtifactManifest(value: unknown): ArtifactManifest | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { artifacts, missing } = value as Record<string, unknown>;
  if (!Array.isArray(artifacts) || !(missing === undefined || (Array.isArray(missing) && missing.every((m) => typeof m === 'string')))) return undefined;
  const entries: ArtifactManifestEntry[] = [];
  for (const item of artifacts as unknown[]) {
    const { path, object, size, sha256 } = (item ?? {}) as Record<string, unknown>;
    if (typeof path !== 'string' || typeof object !== 'string' || typeof size !== 'number' || typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256)) return undefined;
    entries.push({ path, object, size, sha256 });
  }
  return { artifacts: entries, missing: (missing as string[] | undefined) ?? [] };
}

/** The artifacts' place for a step of a build. */
export function artifactPlace(artifacts: Pick<Artifacts, 'expireInDays'>, build: { id: string; repository?: string | undefined }, step: string): ArtifactPlace {
  return { expireInDays: artifacts.expireInDays, repository: build.repository, buildId: build.id, step };
}
