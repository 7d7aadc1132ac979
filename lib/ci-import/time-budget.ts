/**
 * A build may run 24 hours, and the pipeline refuses steps whose timeouts (1 hour each unless
 * said) add up to more (lib/pipeline/cross-step-rules.ts). Another CI's file with more than 24 jobs
 * would be refused: its steps without a timeout share what is left, said at the top.
 */
import { BUILD_TIME_LIMIT_SECONDS, DEFAULT_STEP_TIMEOUT_SECONDS, formatDuration, parseDuration } from '../pipeline/index.js';
import type { DraftPipeline } from './types.js';

const MINIMUM_SECONDS = 60;

export function fitTimeBudget(draft: DraftPipeline): void {
  const seconds = (timeout: string | undefined) => {
    if (timeout === undefined) return DEFAULT_STEP_TIMEOUT_SECONDS;
    const parsed = parseDuration(timeout);
    return parsed.ok ? parsed.seconds : DEFAULT_STEP_TIMEOUT_SECONDS;
  };
  const total = draft.steps.reduce((sum, step) => sum + seconds(step.timeout), 0);
  if (total <= BUILD_TIME_LIMIT_SECONDS) return;
  const open = draft.steps.filter((step) => step.timeout === undefined);
  const said = draft.steps.reduce((sum, step) => sum + (step.timeout === undefined ? 0 : seconds(step.timeout)), 0);
  // What the steps that say a timeout leave; if they alone are over, every step is cut to its share.
  const share = open.length > 0 && said < BUILD_TIME_LIMIT_SECONDS ? Math.floor((BUILD_TIME_LIMIT_SECONDS - said) / open.length / 60) * 60 : Math.floor(BUILD_TIME_LIMIT_SECONDS / draft.steps.length / 60) * 60;
  const each = formatDuration(Math.max(MINIMUM_SECONDS, share));
  const cut = open.length > 0 && said < BUILD_TIME_LIMIT_SECONDS ? open : draft.steps;
  for (const step of cut) step.timeout = each;
  draft.notes.push(`the steps' timeouts (1h each unless said) would add up to ${formatDuration(total)}, more than the 24h a build may run: ${cut.length} step${cut.length === 1 ? '' : 's'} written with \`timeout: ${each}\`; give each the time it needs`);
}
