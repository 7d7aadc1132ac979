/**
 * A running step's log, kept in the log store as it grows: while PollStep watches the running pod
 * it also follows the step container's log, and writes what comes as one part per invocation
 * (rewritten every `partEveryMs` as it grows, a new part past MAX_PART_BYTES). The copy survives
 * a lost node and the kubelet's log rotation (a follow goes on across it; where a read found lines
 * rotated away, the copy says so: rotationGapNote); FinishStep adds what came after the last poll
 * and ends it (finish-step.ts).
 *
 * Every line is masked before it is kept. Lines arrive whole (the position is per line), so a
 * secret is never split between two writes; a multi-line secret is masked line by line as well.
 */
import type { LogPosition } from '../kube/index.js';
import { MAX_PART_BYTES, type StepLogStore } from './step-log-store.js';

/** How far the store's copy of a step's log has got ($.poll.log). */
export interface LiveLogState {
  /** Where the log can be read while it grows (a file; on S3 the parts' prefix). */
  location: string;
  /** After the last line kept; absent: nothing kept yet. */
  position?: LogPosition;
  /** Parts written so far. */
  parts: number;
  /** Bytes in those parts: where the next part starts. */
  bytes: number;
}

export interface LiveLogTarget {
  store: StepLogStore;
  buildId: string;
  step: string;
  mask: (text: string) => string;
}

/** Collects lines into this invocation's part and writes it every `store.partEveryMs`. */
export class LiveLogCopy {
  private state: LiveLogState;
  /** The part being written; `position` is after its last line (absent: only checkout lines so far). */
  private part: { number: number; offset: number; text: string; bytes: number; position?: LogPosition } | undefined;
  /** Where the next part begins. */
  private next: { number: number; offset: number };
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private failure: unknown;
  private closed = false;

  constructor(
    private readonly target: LiveLogTarget,
    from: LiveLogState,
  ) {
    this.state = { ...from };
    this.next = { number: from.parts + 1, offset: from.bytes };
  }

  /** Whole lines, unmasked, and the position after them (none: lines of another container, the checkout's). */
  add(text: string, position?: LogPosition): void {
    // Closed, the copy has said how far it got: a line given now would be written after the poll
    // answered (by a timer nobody waits for), past the bytes it counted. The next read brings it again.
    if (this.closed) return;
    const masked = this.target.mask(text);
    this.part ??= { ...this.next, text: '', bytes: 0 };
    this.part.text += masked;
    this.part.bytes += Buffer.byteLength(masked);
    if (position) this.part.position = position;
    if (this.part.bytes >= MAX_PART_BYTES) {
      this.write();
      this.next = { number: this.part.number + 1, offset: this.part.offset + this.part.bytes };
      this.part = undefined;
    } else {
      this.timer ??= setTimeout(() => this.write(), this.target.store.partEveryMs);
    }
  }

  /**
   * Writes what is left and says how far the copy got: up to the last write that succeeded, so
   * after a failed one (the store unreachable) the next poll or FinishStep reads on from there.
   */
  async close(): Promise<{ state: LiveLogState; failure?: unknown }> {
    this.closed = true;
    this.write();
    await this.writing;
    return this.failure === undefined ? { state: this.state } : { state: this.state, failure: this.failure };
  }

  private write(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const part = this.part;
    if (!part || part.text === '') return;
    const snapshot = { ...part };
    const { store, buildId, step } = this.target;
    this.writing = this.writing.then(async () => {
      if (this.failure) return;
      try {
        this.state.location = await store.putPart(buildId, step, snapshot.text, { part: snapshot.number, offset: snapshot.offset });
        this.state.parts = Math.max(this.state.parts, snapshot.number);
        this.state.bytes = snapshot.offset + snapshot.bytes;
        if (snapshot.position) this.state.position = snapshot.position;
      } catch (error) {
        this.failure = error;
      }
    });
  }
}
