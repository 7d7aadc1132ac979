/**
 * A container's log as the node keeps it: stdout and stderr interleaved line by line in arrival
 * order, each line with the time it was written, bounded in memory (oldest lines dropped first).
 */
import type { Clock } from './clock.js';
import { rfc3339Nano } from './time-format.js';

export const DEFAULT_LOG_LIMIT_BYTES = 10 * 1024 * 1024;

interface LogLine {
  time: Date;
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

export class LogBuffer {
  private readonly lines: LogLine[] = [];
  private bytes = 0;
  private readonly partial = new Map<string, string>();
  private readonly followers = new Set<Follower>();
  private finished = false;

  constructor(
    private readonly now: Clock,
    private readonly limitBytes = DEFAULT_LOG_LIMIT_BYTES,
  ) {}

  get ended(): boolean {
    return this.finished;
  }

  write(stream: string, chunk: string): void {
    const text = (this.partial.get(stream) ?? '') + chunk;
    const cut = text.lastIndexOf('\n');
    if (cut === -1) {
      this.partial.set(stream, text);
      return;
    }
    this.partial.set(stream, text.slice(cut + 1));
    for (const line of text.slice(0, cut + 1).split(/(?<=\n)/)) this.push(line);
  }

  /** The container has exited: flush unterminated lines and release followers. */
  end(): void {
    if (this.finished) return;
    for (const rest of this.partial.values()) if (rest !== '') this.push(rest);
    this.partial.clear();
    this.finished = true;
    for (const follower of [...this.followers]) follower.onEnd();
    this.followers.clear();
  }

  read(options: LogReadOptions = {}): string {
    let selected = this.lines;
    const { since } = options;
    if (since) selected = selected.filter((line) => line.time.getTime() >= since.getTime());
    if (options.tailLines !== undefined) selected = options.tailLines <= 0 ? [] : selected.slice(-options.tailLines);
    const text = selected.map((l) => this.format(l, options.timestamps ?? false)).join('');
    if (options.limitBytes === undefined) return text;
    return Buffer.from(text, 'utf8').subarray(0, options.limitBytes).toString('utf8');
  }

  /** Calls onText for every new line until the log ends; returns a function that stops following. */
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
    return timestamps ? `${rfc3339Nano(line.time)} ${line.text}` : line.text;
  }

  private push(text: string): void {
    const line = { time: this.now(), text };
    this.lines.push(line);
    this.bytes += Buffer.byteLength(text);
    while (this.bytes > this.limitBytes && this.lines.length > 1) {
      const dropped = this.lines.shift();
      this.bytes -= Buffer.byteLength(dropped?.text ?? '');
    }
    for (const follower of this.followers) follower.onText(this.format(line, follower.timestamps));
  }
}
