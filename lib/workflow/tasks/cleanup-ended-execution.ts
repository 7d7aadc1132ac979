import { buildIdFor } from '../../forge/execution-name.js';
import type { BuildRef } from '../../contract/index.js';
import type { CleanupResult } from '../state-data.js';
import type { TaskDeps } from '../task-deps.js';
import { cleanupBuild } from './cleanup-build.js';

/**
 * The part of a "Step Functions Execution Status Change" event that the cleanup reads. EventBridge
 * carries the execution's input as a JSON string; it leaves it out (null, inputDetails.included
 * false) when it is larger than an event may be.
 */
export interface ExecutionStatusChange {
  'detail-type'?: string;
  detail: {
    executionArn?: string;
    name?: string;
    status?: string;
    input?: string | null;
  };
}

export type EndedBuild = { build: BuildRef; namespace?: string };

/**
 * Which build an aborted or timed-out execution ran, and where. No Catch runs when an execution
 * is aborted or times out, so its pods are only found through this. Without a readable input the
 * build id still follows from the execution's name, exactly as the webhook derived it.
 */
export function endedBuildOf(event: ExecutionStatusChange): EndedBuild | undefined {
  const parsed = parseInput(event.detail.input);
  const id = parsed?.build?.id;
  if (typeof id === 'string' && id !== '') {
    const namespace = typeof parsed?.namespace === 'string' && parsed.namespace !== '' ? parsed.namespace : undefined;
    return { build: { id }, ...(namespace ? { namespace } : {}) };
  }
  return event.detail.name ? { build: { id: buildIdFor(event.detail.name) } } : undefined;
}

function parseInput(input: string | null | undefined): { build?: { id?: unknown }; namespace?: unknown } | undefined {
  if (!input) return undefined;
  try {
    const value: unknown = JSON.parse(input);
    return typeof value === 'object' && value !== null ? (value as { build?: { id?: unknown } }) : undefined;
  } catch {
    return undefined;
  }
}

/** Deletes the pods of the ended execution's build: the same cleanup as the CleanupBuild state. */
export async function cleanupEndedExecution(
  event: ExecutionStatusChange,
  defaultNamespace: string,
  deps: TaskDeps,
): Promise<CleanupResult & { build: string | null }> {
  const ended = endedBuildOf(event);
  if (!ended) {
    deps.log.warn('An ended execution with neither a readable input nor a name: nothing to clean up', {
      executionArn: event.detail.executionArn,
    });
    return { build: null, deletedPods: 0, deletedClaims: 0, deletedSecrets: 0 };
  }
  const result = await cleanupBuild(ended, defaultNamespace, deps);
  return { build: ended.build.id, ...result };
}
