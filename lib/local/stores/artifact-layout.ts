/**
 * Where `run` writes a build's artifacts on disk, and the `SHA256SUMS` beside them (pure):
 * `ARTIFACTS/BUILD/STEP/<the path as the pipeline names it>`, a folder unpacked from its tar.gz
 * (packed relative to the workspace, so `dist/` comes back as `dist/...`), a file as it was.
 */
import path from 'node:path';
import { artifactObjectName } from '../../workflow/artifact-plan.js';

/** `run`'s default: the state directory's `artifacts/`. */
export function defaultArtifactsDir(state: string): string {
  return path.join(state, 'artifacts');
}

/** The build's folder: its id made safe as step logs' folders are (no `/`, no leading dots). */
export function buildArtifactsDir(root: string, buildId: string): string {
  return path.join(root, buildId.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_'));
}

/** The object key of an `s3://bucket/key` location in that bucket; undefined for another bucket's. */
export function objectKeyOf(location: string, bucket: string): string | undefined {
  const prefix = `s3://${bucket}/`;
  return location.startsWith(prefix) && location.length > prefix.length ? location.slice(prefix.length) : undefined;
}

/**
 * Whether a kept artifact's object is the path as a file or as a folder's tar.gz. Both objects of a
 * path are named from it (artifact-plan.ts, artifactObjects): `N-<safe>` and `N-<safe>.tar.gz`,
 * so the object's own name says which one the pod uploaded, even for a file named `x.tar.gz`.
 */
export function artifactObjectKind(artifactPath: string, key: string): 'file' | 'folder' | undefined {
  const name = key.slice(key.lastIndexOf('/') + 1).replace(/^\d+-/, '');
  const strip = (objectName: string) => objectName.replace(/^0-/, '');
  if (name === strip(artifactObjectName(0, artifactPath, true))) return 'folder';
  if (!artifactPath.endsWith('/') && name === strip(artifactObjectName(0, artifactPath, false))) return 'file';
  return undefined;
}

/**
 * Where a file artifact goes in its step's folder: the path as the pipeline names it (parsing
 * refuses a leading `/` and `..`; joined under `/` first so none could climb out anyway).
 */
export function fileArtifactTarget(stepDir: string, artifactPath: string): string {
  return path.join(stepDir, path.join('/', artifactPath));
}

export interface ArtifactFile {
  /** Relative to the step's folder, `/` between folders: `dist/app.js`. */
  path: string;
  size: number;
  /** Hex sha256 of the file's bytes. */
  sha256: string;
}

export const SHA256SUMS = 'SHA256SUMS';

/**
 * The files as `sha256sum` prints them, so `sha256sum -c SHA256SUMS` in the step's folder checks
 * them: `<hex>  <name>` (two spaces: text mode). A name with a backslash, a newline or a carriage
 * return starts its line with `\` and has them escaped, as GNU coreutils 9 writes and reads them
 * (coreutils src/digest.c, print_filename; `sha256sum` of such names here prints `\<hex>  a\\b`).
 */
export function sha256SumsText(files: readonly ArtifactFile[]): string {
  return files
    .map(({ path: name, sha256 }) => {
      const escaped = name.replace(/[\\\n\r]/g, (c) => ({ '\\': '\\\\', '\n': '\\n', '\r': '\\r' })[c]!);
      return `${escaped === name ? '' : '\\'}${sha256}  ${escaped}\n`;
    })
    .join('');
}
