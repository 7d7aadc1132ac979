/**
 * A container's log as the node keeps it: stdout and stderr interleaved line by line in arrival
 * order, each line with the time it was written, in files rotated at a size as the kubelet rotates
 * them (log-rotation.ts). A read sees only the current file; a follower sees every line.
 */
import type { Clock } from './clock.js';
import { RotatingLogFile } from './log-rotation.js';
import { rfc3339Nano } from './time-format.js';

/** The kubelet's containerLogMaxSize default. */
export const DEFAULT_LOG_LIMIT_BYTES = 10 * 1024 * 1024;

interface LogLine {
  time: Date;
  /** The RFC 3339 timestamp a `timestamps=true` read prints. */
  stamp: string;
  stream: string;
  text: string;
}

export interface LogReadOptions {
  /** Only lines written at or after this moment (sinceTime, sinceSeconds). */
  since?: Date;
  tailLines?: number;
  limitBytes?: number;
  timestamps?: boolean;
}

type Follower = { onText: (text: string) => void; onEnd: () => void; timestamps: boolean };

/** A line's size in the node's file: containerd writes `<time> <stream> F <text>` (F: a full line). */
function criBytes(line: LogLine): number {
  const newline = line.text.endsWith('\n') ? 0 : 1;
  return Buffer.byteLength(`${line.stamp} ${line.stream} F ${line.text}`) + newline;
}

export class LogBuffer {
  private readonly file: RotatingLogFile<LogLine>;
  private readonly partial = new Map<string, string>();
  private readonly followers = new Set<Follower>();
  private finished = false;
  private last = { ms: Number.NaN, nanos: 0 };

  constructor(
    private readonly now: Clock,
    limitBytes = DEFAULT_LOG_LIMIT_BYTES,
  ) {
    this.file = new RotatingLogFile(limitBytes, criBytes);
  }

  get ended(): boolean {
    return this.finished;
  }

  /** How many times the log has been rotated: what was before is in no read. */
  get rotations(): number {
    return this.file.rotations;
  }

  write(stream: string, chunk: string): void {
    const text = (this.partial.get(stream) ?? '') + chunk;
    const cut = text.lastIndexOf('\n');
    if (cut === -1) {
      this.partial.set(stream, text);
      return;
    }
    this.partial.set(stream, text.slice(cut + 1));
    for (const line of text.slice(0, cut + 1).split(/(?<=\n)/)) this.push(stream, line);
  }

  /** The container has exited: flush unterminated lines and release followers. */
  end(): void {
    if (this.finished) return;
    for (const [stream, rest] of this.partial) if (rest !== '') this.push(stream, rest);
    this.partial.clear();
    this.finished = true;
    for (const follower of [...this.followers]) follower.onEnd();
    this.followers.clear();
  }

  /** What a read without `follow` gets: the current file only, as the kubelet serves it. */
  read(options: LogReadOptions = {}): string {
    let selected = this.file.current;
    const { since } = options;
    if (since) selected = selected.filter((line) => line.time.getTime() >= since.getTime());
    if (options.tailLines !== undefined) selected = options.tailLines <= 0 ? [] : selected.slice(-options.tailLines);
    const text = selected.map((l) => this.format(l, options.timestamps ?? false)).join('');
    if (options.limitBytes === undefined) return text;
    return Buffer.from(text, 'utf8').subarray(0, options.limitBytes).toString('utf8');
  }

  /**
   * Calls onText for every new line until the log ends, across rotations (the kubelet's follow
   * reopens the new file); returns a function that stops following.
   */
  follow(onText: (text: string) => void, onEnd: () => void, timestamps = false): () => void {
    if (this.finished) {
      onEnd();
      return () => {};
    }
    const follower = { onText, onEnd, timestamps };
    this.followers.add(follower);
    return () => this.followers.delete(follower);
  }

  private format(line: LogLine, timestamps: boolean): string {
    return timestamps ? `${line.stamp} ${line.text}` : line.text;
  }

  private push(stream: string, text: string): void {
    const time = this.now();
    const line = { time, stamp: this.stamp(time), stream, text };
    this.file.append(line);
    for (const follower of this.followers) follower.onText(this.format(line, follower.timestamps));
  }

  /**
   * containerd stamps each line with the node's clock in nanoseconds, so two lines practically
   * never share a timestamp, and a reader that resumes after the last line it kept (by its time)
   * can tell whether that line is still in the file. A Date has milliseconds: lines within one get
   * successive nanoseconds.
   */
  private stamp(time: Date): string {
    const ms = time.getTime();
    this.last = { ms, nanos: ms === this.last.ms ? Math.min(this.last.nanos + 1, 999_999) : 0 };
    return rfc3339Nano(time, this.last.nanos);
  }
}
