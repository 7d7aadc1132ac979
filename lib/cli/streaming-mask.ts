/**
 * The secrets' masking (lib/kube secret-values.ts: maskSecrets, the masker of every kept log) over
 * output that arrives in pieces, as a shell's does: a value cut across two pieces is still masked
 * whole. Pure: the caller says when to let go of what is held.
 */
import { maskSecrets } from '../kube/index.js';

export class StreamingMask {
  /** The end of the output so far that could be the start of a secret: not shown yet. */
  private held = '';

  constructor(private readonly needles: readonly string[]) {}

  /**
   * What may be shown of the output so far: everything masked, except its end when that end is
   * the beginning of a secret, held until the next piece says whether the secret follows.
   */
  push(text: string): string {
    const masked = maskSecrets(this.held + text, this.needles);
    const keep = this.partialNeedleAtEnd(masked);
    this.held = masked.slice(masked.length - keep);
    return masked.slice(0, masked.length - keep);
  }

  /** Whether some output is held (the caller lets go of it with `flush` once no more comes soon). */
  get holding(): boolean {
    return this.held !== '';
  }

  /** What is held, shown as it is: no secret followed it. */
  flush(): string {
    const held = this.held;
    this.held = '';
    return held;
  }

  /** The length of the longest end of `text` that begins some secret without being all of it. */
  private partialNeedleAtEnd(text: string): number {
    let longest = 0;
    for (const needle of this.needles) {
      for (let length = Math.min(needle.length - 1, text.length); length > longest; length--) {
        if (text.endsWith(needle.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }
}
