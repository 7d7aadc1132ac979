/**
 * `run`'s artifacts on disk: once the build has ended, each step's kept artifacts are read back
 * from the local stack's store (the very objects the pod uploaded and FinishStep listed), checked
 * against the sha256 the pod computed, and written under `ARTIFACTS/BUILD/STEP/` with their
 * original names (a folder's tar.gz unpacked), with a `SHA256SUMS` of every file written.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-fs';
import type { CacheStore } from '../../workflow/cache-store.js';
import type { KeptArtifact } from '../../workflow/state-data.js';
import { artifactObjectKind, buildArtifactsDir, fileArtifactTarget, objectKeyOf, SHA256SUMS, sha256SumsText, type ArtifactFile } from './artifact-layout.js';

/** One step's folder: what it holds, and what of its kept artifacts could not be written there. */
export interface StepArtifactFiles {
  step: string;
  dir: string;
  /** Every file written, sorted by path: what its SHA256SUMS lists. */
  files: ArtifactFile[];
  /** Lines for people: an artifact not written, and why. */
  problems: string[];
}

export interface WrittenArtifacts {
  /** The build's folder. */
  dir: string;
  steps: StepArtifactFiles[];
}

/** Undefined when no step kept any artifact (nothing is written then, not even the build's folder). */
export async function writeBuildArtifacts(input: {
  root: string;
  buildId: string;
  bucket: string;
  store: Pick<CacheStore, 'download'>;
  steps: readonly { name: string; artifacts?: readonly KeptArtifact[] | undefined }[];
}): Promise<WrittenArtifacts | undefined> {
  const kept = input.steps.filter((step) => (step.artifacts?.length ?? 0) > 0);
  if (kept.length === 0) return undefined;
  const dir = buildArtifactsDir(input.root, input.buildId);
  const steps: StepArtifactFiles[] = [];
  for (const step of kept) {
    const stepDir = path.join(dir, step.name);
    await mkdir(stepDir, { recursive: true });
    const problems: string[] = [];
    for (const [index, artifact] of step.artifacts!.entries()) {
      const problem = await writeArtifact(input, stepDir, index, artifact);
      if (problem) problems.push(`artifact ${artifact.path} of ${step.name}: ${problem}`);
    }
    const files = await filesUnder(stepDir);
    await writeFile(path.join(stepDir, SHA256SUMS), sha256SumsText(files));
    steps.push({ step: step.name, dir: stepDir, files, problems });
  }
  return { dir, steps };
}

/** Why the artifact was not written, or undefined once it is. */
async function writeArtifact(
  input: { bucket: string; store: Pick<CacheStore, 'download'> },
  stepDir: string,
  index: number,
  artifact: KeptArtifact,
): Promise<string | undefined> {
  const key = objectKeyOf(artifact.location, input.bucket);
  const kind = key === undefined ? undefined : artifactObjectKind(artifact.path, key);
  if (key === undefined || kind === undefined) return `${artifact.location} is no object of this store's artifacts`;
  const object = await input.store.download(key);
  if (!object) return `${artifact.location} is gone from the store`;
  // Beside the files, so the rename into place never crosses file systems; removed in any case.
  const download = path.join(stepDir, `.download-${index}`);
  try {
    const sha256 = createHash('sha256');
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        sha256.update(chunk);
        done(null, chunk);
      },
    });
    await pipeline(object.body, hashing, createWriteStream(download));
    const sum = sha256.digest('hex');
    if (sum !== artifact.sha256) return `its bytes in the store have sha256 ${sum}, not the ${artifact.sha256} its pod computed: not written`;
    if (kind === 'file') {
      const target = fileArtifactTarget(stepDir, artifact.path);
      await mkdir(path.dirname(target), { recursive: true });
      await rename(download, target);
      return undefined;
    }
    await pipeline(createReadStream(download), createGunzip(), tar.extract(stepDir, { ignore: (_name, header) => !isPlain(header?.type) }));
    return undefined;
  } catch (error) {
    return `not written (${(error as Error).message})`;
  } finally {
    await rm(download, { force: true });
  }
}

/**
 * Only regular files and folders are unpacked: a link in a tar a pod made could point anywhere on
 * this machine (tar-fs also keeps every name under the folder: it joins each under `/` first).
 */
function isPlain(type: string | null | undefined): boolean {
  return type === 'file' || type === 'directory';
}

/** Every regular file under the folder but its SHA256SUMS, hashed, sorted by path. */
async function filesUnder(dir: string): Promise<ArtifactFile[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files: ArtifactFile[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    const relative = path.relative(dir, full).split(path.sep).join('/');
    if (relative === SHA256SUMS) continue;
    files.push({ path: relative, ...(await hashFile(full)) });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function hashFile(file: string): Promise<{ size: number; sha256: string }> {
  const sha256 = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    sha256.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: sha256.digest('hex') };
}
