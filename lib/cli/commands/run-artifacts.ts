/**
 * `run --artifacts DIR`: once the build has ended, its steps' artifacts written to disk from the
 * local store (lib/local/stores/artifact-export.ts), the folder named in the last lines, and
 * `run --json`'s `artifacts` object.
 */
import path from 'node:path';
import type { ExecutionSummary } from '../../emulators/stepfunctions/executor.js';
import { defaultArtifactsDir, SHA256SUMS, type ArtifactFile } from '../../local/stores/artifact-layout.js';
import { writeBuildArtifacts } from '../../local/stores/artifact-export.js';
import { LOCAL_CACHE_BUCKET, type LocalCacheStore } from '../../local/stores/local-cache-store.js';
import { stateDir } from '../../local/stores/state-dir.js';
import type { RunOptions } from './run-args.js';

/** `run --json`'s `artifacts`: the build's folder, and each step's folder with every file in it. */
export interface RunArtifacts {
  dir: string;
  steps: { name: string; dir: string; files: ArtifactFile[] }[];
}

/** Null when no step kept any artifact, or the build had no store to keep them in. */
export async function writeRunArtifacts(
  summary: Pick<ExecutionSummary, 'steps'>,
  buildId: string,
  store: LocalCacheStore | undefined,
  options: Pick<RunOptions, 'artifacts' | 'stateDir'>,
  print: (line: string) => void,
): Promise<RunArtifacts | null> {
  const asked = options.artifacts !== undefined;
  // Asked for by name, the folder's absence is said; by default, a build without artifacts says nothing of them.
  const none = () => {
    if (asked) print(`Artifacts: no step kept any; nothing written to ${path.resolve(options.artifacts!)}`);
    return null;
  };
  if (!store) return none();
  const root = options.artifacts !== undefined ? path.resolve(options.artifacts) : defaultArtifactsDir(stateDir(options.stateDir));
  let written;
  try {
    written = await writeBuildArtifacts({ root, buildId, bucket: LOCAL_CACHE_BUCKET, store: store.store, steps: summary.steps });
  } catch (error) {
    // The build's outcome stands: a folder that cannot be written costs the copies on disk only.
    print(`Artifacts: not written under ${root} (${(error as Error).message}); they stay in the local store`);
    return null;
  }
  if (!written) return none();
  written.steps.flatMap((step) => step.problems).forEach(print);
  const counts = written.steps.map((step) => `${step.step}/ (${step.files.length} file${step.files.length === 1 ? '' : 's'})`);
  print(`Artifacts: written to ${written.dir}: ${counts.join(', ')}; \`sha256sum -c ${SHA256SUMS}\` in a step's folder checks them`);
  return { dir: written.dir, steps: written.steps.map(({ step, dir, files }) => ({ name: step, dir, files })) };
}
