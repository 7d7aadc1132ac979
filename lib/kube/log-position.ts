/**
 * Where a copy of a container's log has got to, so that reads made one after another (each
 * PollStep follows the log for a while, FinishStep reads the rest) keep every line once. The API
 * can only start a read at a whole second (`sinceTime`), so a read starts at the second of the last
 * line kept and drops what was kept already: lines before that line's time, and as many lines of
 * exactly that time as were kept (several lines can share one timestamp).
 */
export interface LogPosition {
  /** The kubelet's RFC 3339 timestamp of the last line kept. */
  lastTime: string;
  /** How many of the kept lines have exactly that timestamp. */
  sameTime: number;
}

/**
 * Reads a `timestamps=true` log ("2026-12-01T13:31:22.123456789Z text\n") as it arrives, from a
 * read that started at `sinceTimeOf(from)`: it drops what the copy has already (the lines before
 * `from`, and the first `from.sameTime` lines of that very instant), then passes every line on,
 * without its timestamp, and keeps the position after the last one.
 *
 * A read without `follow` sees only the log's current file: once the kubelet has rotated it
 * (containerLogMaxSize, 10Mi by default) what the rotated files held is in no read. The last line
 * kept is in every read that starts at its second while it is in the current file, so a read that
 * goes past `from` without it started in a file begun since: whatever was written after `from`
 * and before the read's first line went with the rotation. The copy gets `rotationGapNote` there,
 * so it says what it lacks rather than joining the two ends as if they met. (A follow goes on
 * across a rotation, so only its first read can meet this.)
 */
export class LogLines {
  private rest = '';
  private skipping: boolean;
  private skip: number;
  private readonly from: bigint | undefined;
  private readonly fromStamp: string;
  private last: { position: LogPosition; nanos: bigint } | undefined;

  constructor(from: LogPosition | undefined) {
    this.from = from ? nanosOf(from.lastTime) : undefined;
    this.fromStamp = from?.lastTime ?? '';
    this.skipping = this.from !== undefined;
    this.skip = from?.sameTime ?? 0;
    if (from && this.from !== undefined) this.last = { position: from, nanos: this.from };
  }

  /** The position after the last line passed on (the one given, before any). */
  get position(): LogPosition | undefined {
    return this.last?.position;
  }

  /** More of the read; the whole lines in it that are new. An unterminated line waits for its end. */
  push(data: string): string {
    const text = this.rest + data;
    const cut = text.lastIndexOf('\n');
    this.rest = text.slice(cut + 1);
    return this.lines(text.slice(0, cut + 1));
  }

  /** The read has ended: an unterminated last line is whole. */
  end(): string {
    const rest = this.rest;
    this.rest = '';
    return rest === '' ? '' : this.lines(`${rest}\n`);
  }

  private lines(whole: string): string {
    let kept = '';
    for (const line of whole.split(/(?<=\n)/)) {
      if (line === '') continue;
      const space = line.indexOf(' ');
      const stamp = space === -1 ? '' : line.slice(0, space);
      const time = nanosOf(stamp);
      // Not what the API sends; kept as it is, at the last position.
      if (time === undefined) {
        kept += line;
        continue;
      }
      if (this.skipping && this.from !== undefined) {
        if (time < this.from || (time === this.from && this.skip-- > 0)) continue;
        this.skipping = false;
        // Past `from` with lines of that instant still to skip: the read began in a newer file.
        if (time > this.from && this.skip > 0) kept += rotationGapNote(this.fromStamp, stamp);
      }
      const same = this.last && this.last.nanos === time;
      this.last = { position: same ? { lastTime: this.last!.position.lastTime, sameTime: this.last!.position.sameTime + 1 } : { lastTime: stamp, sameTime: 1 }, nanos: time };
      kept += line.slice(space + 1);
    }
    return kept;
  }
}

/**
 * The line a copy of a log gets where the kubelet's rotation took lines it had not read: between
 * the last line kept (`after`) and the first of the file the next read found (`before`), both the
 * kubelet's timestamps. How many bytes that was is in no API answer; the two times say where.
 */
export function rotationGapNote(after: string, before: string): string {
  return `[step-runner: the kubelet rotated this log between two reads; whatever the step printed after ${after} and before ${before} is not in this copy]\n`;
}

/** One whole read after `from`: its new lines and the position after them. */
export function linesAfter(timestamped: string, from: LogPosition | undefined): { text: string; position: LogPosition | undefined } {
  const reader = new LogLines(from);
  const text = reader.push(timestamped) + reader.end();
  return { text, position: reader.position };
}

/** The `sinceTime` a read after `position` starts at: its whole second (undefined: from the start). */
export function sinceTimeOf(position: LogPosition | undefined): string | undefined {
  if (!position) return undefined;
  const whole = position.lastTime.replace(/\.\d+/, '');
  const ms = Date.parse(whole);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** An RFC 3339 timestamp as nanoseconds since the epoch; undefined when it is not one. */
function nanosOf(stamp: string): bigint | undefined {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(stamp);
  if (!match) return undefined;
  const seconds = Date.parse(`${match[1]}${match[3]}`);
  if (Number.isNaN(seconds)) return undefined;
  return BigInt(seconds) * 1_000_000n + BigInt((match[2] ?? '').padEnd(9, '0'));
}
