/**
 * A step's artifacts, planned by LaunchStep: one presigned PUT per path (two for a path that may
 * be a file or a folder) and one for the manifest the pod writes once the step's commands ended,
 * each under a secretKey of the step's Secret. The objects' keys hold the build's id, so no other
 * build writes them and the PUTs need no condition.
 */
import type { PodArtifacts } from '../kube/index.js';
import type { Step } from '../pipeline/types.js';
import { artifactExpiryClass, artifactManifestKey, artifactObjects, artifactPlace } from './artifact-plan.js';
import { saveUrlSeconds } from './cache-plan.js';
import type { CacheStore } from './cache-store.js';

export interface StepArtifactsPlan {
  artifacts: PodArtifacts;
  /** secretKey -> presigned URL, merged into the step's Secret. */
  urls: Record<string, string>;
  /** For the step's log. */
  note: string;
}

export async function planStepArtifacts(input: {
  step: Pick<Step, 'name' | 'artifacts' | 'timeoutSeconds'>;
  build: { id: string; repository?: string | undefined };
  store: Pick<CacheStore, 'presignUpload'>;
}): Promise<StepArtifactsPlan | undefined> {
  const { step, build, store } = input;
  if (!step.artifacts || step.artifacts.paths.length === 0) return undefined;
  const place = artifactPlace(step.artifacts, build, step.name);
  // Used once the commands ended: the step's timeout, and an hour for the rest (saveUrlSeconds).
  const seconds = saveUrlSeconds(step.timeoutSeconds);
  const urls: Record<string, string> = {};
  const paths: PodArtifacts['paths'] = [];
  for (const [index, path] of step.artifacts.paths.entries()) {
    const objects = artifactObjects(place, index, path);
    const folderKey = `ARTIFACT_${index}_DIR`;
    urls[folderKey] = await store.presignUpload(objects.folder, seconds);
    if (objects.file === undefined) {
      paths.push({ path, secretKey: folderKey, object: objects.folder });
    } else {
      const fileKey = `ARTIFACT_${index}`;
      urls[fileKey] = await store.presignUpload(objects.file, seconds);
      paths.push({ path, secretKey: fileKey, object: objects.file, folder: { secretKey: folderKey, object: objects.folder } });
    }
  }
  urls['ARTIFACT_MANIFEST'] = await store.presignUpload(artifactManifestKey(place), seconds);
  const kept = artifactExpiryClass(step.artifacts.expireInDays);
  const note = `artifacts (${step.artifacts.paths.join(', ')}): kept once the commands end, whether they succeed or fail, for ${kept} days${kept !== step.artifacts.expireInDays ? ` (expire-in ${step.artifacts.expireInDays}d, rounded up)` : ''}`;
  return { artifacts: { paths, manifest: { secretKey: 'ARTIFACT_MANIFEST' } }, urls, note };
}
