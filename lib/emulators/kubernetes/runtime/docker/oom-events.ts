/**
 * The daemon's `oom` events for this runtime's containers. Docker sets State.OOMKilled from
 * containerd's OOM event only when it arrives before the exit event; on a loaded machine it can
 * come after, and the kill then reads as a plain 137 forever. The daemon still publishes that late
 * event, so a container with a memory limit that ended 137 waits a moment for it here.
 */
import type Docker from 'dockerode';
import type { Readable } from 'node:stream';

/** How long a 137 with a memory limit waits for a late OOM event. */
export const LATE_OOM_WAIT_MS = 1_000;

export class OomEvents {
  private readonly seen = new Set<string>();
  private readonly waiting = new Map<string, () => void>();
  private stream: Readable | undefined;

  /** Starts listening (events from now on) for containers with these labels. */
  async start(docker: Docker, labels: string[]): Promise<void> {
    this.stream = (await docker.getEvents({ filters: { type: ['container'], event: ['oom'], label: labels } })) as unknown as Readable;
    let buffered = '';
    this.stream.setEncoding('utf8');
    this.stream.on('data', (chunk: string) => {
      buffered += chunk;
      for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line) this.record((JSON.parse(line) as { id?: string }).id);
      }
    });
    // A daemon gone ends the stream; the containers' own ends say so.
    this.stream.on('error', () => {});
  }

  private record(id: string | undefined): void {
    if (id === undefined) return;
    this.seen.add(id);
    this.waiting.get(id)?.();
  }

  /** Whether the kernel's OOM killer ended the container, waiting up to `waitMs` for a late event. */
  async killed(id: string, waitMs: number): Promise<boolean> {
    if (this.seen.has(id)) return true;
    if (waitMs <= 0 || this.stream === undefined) return false;
    let timer: NodeJS.Timeout | undefined;
    const arrived = new Promise<boolean>((resolve) => {
      this.waiting.set(id, () => resolve(true));
      timer = setTimeout(() => resolve(false), waitMs);
    });
    try {
      return await arrived;
    } finally {
      clearTimeout(timer);
      this.waiting.delete(id);
    }
  }

  /** Forgets a removed container. */
  forget(id: string): void {
    this.seen.delete(id);
  }

  stop(): void {
    this.stream?.destroy();
  }
}
