/** The webhook section of the bench's table (bench/index.ts, and bench/webhook-latency.ts alone). */

/** What bench/webhook-latency.ts measures. */
export interface WebhookLatency {
  githubDelayMs: number;
  budgetMs: number;
  warm: { p50: number; p99: number; max: number; samples: number };
  cold: { each: number[]; initEach: number[]; max: number; samples: number };
  statuses: number[];
  deferred: number;
}

export const WEBHOOK_TARGETS = { warmP99Ms: 2000, coldMs: 10_000 } as const;

export function printWebhookLatency(w: WebhookLatency, print: (line?: string) => void): void {
  const verdict = (ok: boolean, missedBy: string) => (ok ? 'met' : `MISSED by ${missedBy}`);
  print();
  print(`Webhook answer time, GitHub's API answering every call after ${w.githubDelayMs} ms (lookup budget ${w.budgetMs} ms; statuses ${w.statuses.join('/')}, ${w.deferred} of ${w.warm.samples + w.cold.samples} left the lookups to the build)`);
  print(`  warm (${w.warm.samples} deliveries, one process): p50 ${w.warm.p50} ms, p99 ${w.warm.p99} ms, max ${w.warm.max} ms   target p99 <= ${WEBHOOK_TARGETS.warmP99Ms} ms: ${verdict(w.warm.p99 <= WEBHOOK_TARGETS.warmP99Ms, `${w.warm.p99 - WEBHOOK_TARGETS.warmP99Ms} ms`)}`);
  print(`  cold (first delivery from the bundle's import, fresh node, ${w.cold.samples} processes): ${w.cold.each.join(' ')} ms (of which module init ${w.cold.initEach.join(' ')} ms)   target <= ${WEBHOOK_TARGETS.coldMs} ms: ${verdict(w.cold.max <= WEBHOOK_TARGETS.coldMs, `${w.cold.max - WEBHOOK_TARGETS.coldMs} ms`)}`);
}
