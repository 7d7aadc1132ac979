/**
 * A step's artifacts, planned by LaunchStep: one presigned PUT per path (two for a path that may
 * be a file or a folder) and one for the manifest the pod writes once the step's commands ended,
 * each under a secretKey of the step's Secret. The objects' keys hold the build's id, so no other
 * build writes them and the PUTs need no condition.
 */
import type { PodArtifacts, UrlSigning } from '../kube/index.js';
import type { Step } from '../pipeline/types.js';
import { artifactExpiryClass, artifactManifestKey, artifactObjects, artifactPlace } from './artifact-plan.js';
import { saveUrlSeconds } from './cache-plan.js';
import { signUrl, type UrlSigner } from './step-urls.js';

export interface StepArtifactsPlan {
  artifacts: PodArtifacts;
  /** secretKey -> presigned URL, merged into the step's Secret. */
  urls: Record<string, string>;
  /** secretKey -> how its URL is signed, so PollStep can sign it again. */
  signing: Record<string, UrlSigning>;
  /** For the step's log. */
  note: string;
}

export async function planStepArtifacts(input: {
  step: Pick<Step, 'name' | 'artifacts' | 'timeoutSeconds'>;
  build: { id: string; repository?: string | undefined };
  store: UrlSigner;
}): Promise<StepArtifactsPlan | undefined> {
  const { step, build, store } = input;
  if (!step.artifacts || step.artifacts.paths.length === 0) return undefined;
  const place = artifactPlace(step.artifacts, build, step.name);
  // Used once the commands ended: the step's timeout, and an hour for the rest (saveUrlSeconds).
  const seconds = saveUrlSeconds(step.timeoutSeconds);
  const urls: Record<string, string> = {};
  const signing: Record<string, UrlSigning> = {};
  const upload = async (secretKey: string, object: string) => {
    signing[secretKey] = { how: 'put', object, seconds };
    urls[secretKey] = await signUrl(store, signing[secretKey]);
  };
  const paths: PodArtifacts['paths'] = [];
  for (const [index, path] of step.artifacts.paths.entries()) {
    const objects = artifactObjects(place, index, path);
    const folderKey = `ARTIFACT_${index}_DIR`;
    await upload(folderKey, objects.folder);
    if (objects.file === undefined) {
      paths.push({ path, secretKey: folderKey, object: objects.folder });
    } else {
      const fileKey = `ARTIFACT_${index}`;
      await upload(fileKey, objects.file);
      paths.push({ path, secretKey: fileKey, object: objects.file, folder: { secretKey: folderKey, object: objects.folder } });
    }
  }
  await upload('ARTIFACT_MANIFEST', artifactManifestKey(place));
  const kept = artifactExpiryClass(step.artifacts.expireInDays);
  const note = `artifacts (${step.artifacts.paths.join(', ')}): kept once the commands end, whether they succeed or fail, for ${kept} days${kept !== step.artifacts.expireInDays ? ` (expire-in ${step.artifacts.expireInDays}d, rounded up)` : ''}`;
  return { artifacts: { paths, manifest: { secretKey: 'ARTIFACT_MANIFEST' } }, urls, signing, note };
}
