/**
 * What a step kept of its artifacts, read by FinishStep from the manifest its pod wrote (the
 * pod computed each object's size and sha256 before the upload). The manifest is the pod's word:
 * only objects of the step's own folder are taken, each once.
 */
import type { Step } from '../pipeline/types.js';
import { artifactFolder, artifactManifestKey, artifactPlace, parseArtifactManifest } from './artifact-plan.js';
import type { CacheStore } from './cache-store.js';
import type { KeptArtifact } from './state-data.js';
import type { TaskLog } from './task-log.js';

/**
 * `[]` when nothing was kept: no manifest (the pod never got past its start, or the upload of the
 * manifest failed), or one that is not a manifest. Neither fails the step: the artifacts are a
 * record of the step, not its outcome, and the log says why the list is empty.
 */
export async function keptArtifacts(
  input: { step: Pick<Step, 'name' | 'artifacts'>; build: { id: string; repository?: string | undefined } },
  store: Pick<CacheStore, 'readJson' | 'locationOf'>,
  log: Pick<TaskLog, 'info' | 'warn'>,
): Promise<KeptArtifact[] | undefined> {
  const { step, build } = input;
  if (!step.artifacts) return undefined;
  const place = artifactPlace(step.artifacts, build, step.name);
  const key = artifactManifestKey(place);
  let read: unknown;
  try {
    read = await store.readJson(key);
  } catch (error) {
    log.warn(`Step "${step.name}": its artifacts' manifest ${store.locationOf(key)} could not be read (${(error as Error).message}): no artifacts listed`, { step: step.name });
    return [];
  }
  if (read === undefined) {
    log.info(`Step "${step.name}" kept no artifacts: its pod wrote no manifest (${store.locationOf(key)})`, { step: step.name });
    return [];
  }
  const manifest = parseArtifactManifest(read);
  if (!manifest) {
    log.warn(`Step "${step.name}": ${store.locationOf(key)} is not an artifacts manifest: no artifacts listed`, { step: step.name });
    return [];
  }
  const folder = artifactFolder(place);
  const seen = new Set<string>();
  const kept: KeptArtifact[] = [];
  for (const entry of manifest.artifacts) {
    if (!entry.object.startsWith(folder) || entry.object.includes('/', folder.length) || seen.has(entry.object)) continue;
    seen.add(entry.object);
    kept.push({ path: entry.path, size: entry.size, sha256: entry.sha256, location: store.locationOf(entry.object) });
  }
  if (manifest.missing.length > 0) log.info(`Step "${step.name}": artifacts not there when its commands ended: ${manifest.missing.join(', ')}`, { step: step.name });
  return kept;
}
