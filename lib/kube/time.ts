/**
 * Kubernetes timestamps arrive as Date (client-node deserialises them) or as strings (raw JSON:
 * watch objects, the Step Functions state, HTTP dates). Absent or unreadable is no time at all,
 * never NaN, so a bad timestamp cannot poison a comparison or a sum.
 */
export function toMillis(value: Date | string | undefined | null): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Seconds from `since` to `now`; 0 when there is no readable `since` (it has not happened yet). */
export function secondsSince(now: Date, since: Date | string | undefined | null): number {
  const then = toMillis(since);
  return then === undefined ? 0 : (now.getTime() - then) / 1000;
}
