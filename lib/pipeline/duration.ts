/**
 * Durations in pipeline files: `90s`, `10m`, `1h30m`, `2h`, or a plain whole number of seconds.
 *
 * Rules, chosen so a value means one thing only:
 * - units are h, m and s, each at most once and largest first (`1h30m`, not `30m1h`);
 * - whole numbers only: `1.5h` is rejected with a hint to write `1h30m`, because fractions of a
 *   unit invite rounding surprises and Kubernetes and Step Functions both count whole seconds;
 * - more than zero and at most 24h: a CI step that needs longer is almost certainly stuck.
 */

export const MAX_DURATION_SECONDS = 24 * 60 * 60;

export type DurationResult = { ok: true; seconds: number } | { ok: false; reason: string };

const unitSeconds = { h: 3600, m: 60, s: 1 } as const;
type Unit = keyof typeof unitSeconds;

const EXAMPLES = 'write it like 90s, 10m, 1h30m or 2h';

/** `maxSeconds`: another limit than a step's 24h (an approval's wait: approval.ts). */
export function parseDuration(input: unknown, maxSeconds = MAX_DURATION_SECONDS): DurationResult {
  if (typeof input === 'number') return fromNumber(input, String(input), maxSeconds);
  if (typeof input !== 'string') return { ok: false, reason: `a duration must be text such as 10m (${EXAMPLES})` };

  const text = input.trim();
  if (text === '') return { ok: false, reason: `the duration is empty; ${EXAMPLES}` };
  if (/^[+-]?\d+$/.test(text)) return fromNumber(Number(text), text, maxSeconds);
  if (text.startsWith('-')) return { ok: false, reason: `"${input}" is negative; a duration must be more than zero` };
  if (/\d[.,]\d/.test(text)) {
    return { ok: false, reason: `"${input}" has a fraction; use whole units (e.g. 1h30m instead of 1.5h, 90s instead of 1.5m)` };
  }

  const parts = [...text.matchAll(/(\d+)([a-zA-Z]+)/g)];
  const consumed = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || consumed !== text) {
    return { ok: false, reason: `"${input}" is not a duration; ${EXAMPLES}` };
  }

  let seconds = 0;
  let previous = Infinity;
  const seen = new Set<string>();
  for (const [, amount, unit] of parts) {
    if (amount === undefined || unit === undefined) continue;
    if (!isUnit(unit)) {
      return { ok: false, reason: `"${input}" uses the unit "${unit}"; only h, m and s are understood (${EXAMPLES})` };
    }
    if (seen.has(unit) || unitSeconds[unit] > previous) {
      return { ok: false, reason: `"${input}" repeats or reorders units; write each of h, m, s at most once, largest first (e.g. 1h30m)` };
    }
    seen.add(unit);
    previous = unitSeconds[unit];
    seconds += Number(amount) * unitSeconds[unit];
  }
  return checkRange(seconds, input, maxSeconds);
}

/** The shortest spelling of a whole number of seconds, for messages: 5400 -> "1h30m". */
export function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const text = `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
  return text === '' ? '0s' : text;
}

function fromNumber(value: number, written: string, maxSeconds: number): DurationResult {
  if (!Number.isFinite(value)) return { ok: false, reason: `"${written}" is not a duration; ${EXAMPLES}` };
  if (!Number.isInteger(value)) {
    return { ok: false, reason: `"${written}" has a fraction; a plain number means whole seconds (or ${EXAMPLES})` };
  }
  if (value < 0) return { ok: false, reason: `"${written}" is negative; a duration must be more than zero` };
  return checkRange(value, written, maxSeconds);
}

function checkRange(seconds: number, written: string, maxSeconds: number): DurationResult {
  if (seconds === 0) return { ok: false, reason: `"${written}" is zero; a duration must be more than zero` };
  if (seconds > maxSeconds) {
    return { ok: false, reason: `"${written}" is longer than the ${formatDuration(maxSeconds)} limit` };
  }
  return { ok: true, seconds };
}

function isUnit(unit: string): unit is Unit {
  return Object.hasOwn(unitSeconds, unit);
}
