import { parsePipeline, parseImageReference } from '../../pipeline/index.js';
import type { WorkflowSettings } from '../settings.js';
import type { BuildInput } from '../../contract/index.js';
import type { PreparedBuild } from '../state-data.js';
import type { TaskLog } from '../task-deps.js';

/**
 * Validates the pipeline again (the webhook did too, but the execution input is the authority)
 * and fixes the build's namespace and settings. Nothing is pulled here: the kubelet pulls when
 * the step's pod starts, and a pull failure surfaces from that step's first polls.
 */
export function prepareBuild(input: BuildInput, settings: WorkflowSettings, log: TaskLog): PreparedBuild {
  const pipeline = parsePipeline(input.pipeline.text, input.pipeline.file);
  for (const step of pipeline.steps) {
    log.info(`Preparing step "${step.name}": image ${parseImageReference(step.image).familiar}`, { step: step.name });
  }
  return {
    build: input.build,
    namespace: input.namespace ?? settings.namespace,
    settings: {
      imagePullGraceSeconds: pipeline.imagePullGraceSeconds ?? settings.imagePullGraceSeconds,
      unschedulableGraceSeconds: settings.unschedulableGraceSeconds,
      pendingWatchSeconds: settings.pendingWatchSeconds,
    },
    steps: pipeline.steps,
  };
}
