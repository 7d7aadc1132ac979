/** kubectl's AGE: apimachinery's HumanDuration, the same buckets a real server prints. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${Math.floor(days / 365)}y` : `${Math.floor(days / 365)}y${days % 365}d`;
  return `${Math.floor(days / 365)}y`;
}

export function since(timestamp: string | null | undefined, now: Date): string {
  if (!timestamp) return '<unknown>';
  return humanDuration(now.getTime() - Date.parse(timestamp));
}

/** Go's time.Duration formatting for the short spans the kubelet reports ("812ms", "1.5s"). */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(3))}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m${Number(((ms - minutes * 60_000) / 1000).toFixed(3))}s`;
}

/** RFC 3339 with nanoseconds, the timestamp `kubectl logs --timestamps` prints; `nanos` within the millisecond. */
export function rfc3339Nano(date: Date, nanos = 0): string {
  return date.toISOString().replace(/Z$/, `${String(nanos).padStart(6, '0')}Z`);
}
