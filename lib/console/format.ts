/** Small shared pieces of the pages: times, durations, status pills. Pure. */
import { html, type Html } from './html.js';
import { STATUS_LABELS, type StateStatus } from './state-status.js';

/** UTC on the server; the page's script rewrites <time> in the reader's time zone. */
export function timeTag(iso: string | null, withDate = true): Html {
  if (!iso) return html`<span class="muted">—</span>`;
  const [date, rest = ''] = iso.split('T');
  const clock = rest.replace('Z', '');
  return html`<time datetime="${iso}" data-format="${withDate ? 'datetime' : 'time'}">${withDate ? `${date} ` : ''}${clock} UTC</time>`;
}

export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.floor((ms % 60_000) / 1000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export type ExecutionStatusName = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

const EXECUTION_STATUS: Record<ExecutionStatusName, { status: StateStatus; label: string }> = {
  RUNNING: { status: 'in-progress', label: 'Running' },
  SUCCEEDED: { status: 'succeeded', label: 'Succeeded' },
  FAILED: { status: 'failed', label: 'Failed' },
  TIMED_OUT: { status: 'failed', label: 'Timed out' },
  ABORTED: { status: 'cancelled', label: 'Aborted' },
};

export function executionPill(status: ExecutionStatusName): Html {
  const { status: colour, label } = EXECUTION_STATUS[status];
  return html`<span class="pill status-${colour}" data-status="${status}">${label}</span>`;
}

export function statusPill(status: StateStatus): Html {
  return html`<span class="pill status-${status}">${STATUS_LABELS[status]}</span>`;
}

/** Bytes as people read them (the artifact lines of a step's log say the same). */
export function byteSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${bytes} B`;
}

export function executionHref(name: string): string {
  return `/executions/${encodeURIComponent(name)}`;
}
