import type { StatusStep } from '../contract/index.js';
import { listedSteps, type PreparedBuild } from './state-data.js';
import type { StepRecord } from './step-log-store.js';

/**
 * The build's steps as a report shows them, in the pipeline file's order (listedSteps: the
 * checkout first, skipped steps in their place, then those that run after a failure): how the
 * records FinishStep left (StepLogStore.results) say each ended, or, with no record, `queued`
 * while the build runs and `not-run` once it has ended. Pure.
 */
export function statusSteps(prepared: Pick<PreparedBuild, 'steps' | 'skipped' | 'settings' | 'afterFailure'>, records: readonly StepRecord[], ended: boolean): StatusStep[] {
  const byName = new Map(records.map((record) => [record.step, record]));
  const planned = [...prepared.steps, ...(prepared.afterFailure ?? [])];
  return listedSteps(prepared).map((listed): StatusStep => {
    if (listed.skipped) return { name: listed.name, status: 'skipped', reason: listed.skipped.reason };
    const { line, identity } = planned[listed.iteration] ?? {};
    const at = { ...(line !== undefined ? { line } : {}), ...(identity !== undefined ? { identity } : {}) };
    const record = byName.get(listed.name);
    if (!record) return { name: listed.name, status: ended ? 'not-run' : 'queued', ...at };
    return { ...recordedStep(record), ...at };
  });
}

/**
 * The steps that have ended so far, in the order they started: what a step's end reports
 * (ReportProgress), whose iteration knows no other step. The build's end lists them all. Pure.
 */
export function endedSteps(records: readonly StepRecord[]): StatusStep[] {
  return [...records].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt) || a.step.localeCompare(b.step)).map(recordedStep);
}

function recordedStep(record: StepRecord): StatusStep {
  const seconds = (Date.parse(record.endedAt) - Date.parse(record.startedAt)) / 1000;
  return {
    name: record.step,
    status: record.status,
    ...(Number.isFinite(seconds) ? { durationSeconds: Math.max(0, seconds) } : {}),
    ...(record.error ? { error: record.error } : {}),
    ...(record.pushed ? { pushed: record.pushed } : {}),
    ...(record.tests ? { tests: record.tests } : {}),
  };
}
