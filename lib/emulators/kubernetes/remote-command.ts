/**
 * The server's side of the Kubernetes remote-command channel protocol on a WebSocket
 * (v5.channel.k8s.io, v4.channel.k8s.io). Every binary message starts with its channel: 0 stdin,
 * 1 stdout, 2 stderr, 3 error (one JSON metav1.Status, last), 4 terminal resize. v5 adds the close
 * signal, [255, channel], by which a client says its stdin is done; over v4 only closing the
 * connection says so.
 */
import { Writable } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import type { ChannelProtocol, ExecStatus } from './exec-status.js';
import type { TerminalSize } from './exec-process.js';

export const STDIN = 0;
export const STDOUT = 1;
export const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;
const CLOSE_SIGNAL = 255;
const NORMAL_CLOSURE = 1000;

/** Served in this order of preference, whatever order the client lists them in. */
const SERVED: readonly ChannelProtocol[] = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

/** The subprotocols a handshake offers (Sec-WebSocket-Protocol). */
export function offeredProtocols(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

export function chooseProtocol(offered: Iterable<string>): ChannelProtocol | undefined {
  const set = new Set(offered);
  return SERVED.find((p) => set.has(p));
}

export interface ChannelInput {
  /** Data the client sent on stdin. Return false to stop reading until `resume` is called. */
  stdin(data: Buffer, resume: () => void): boolean;
  /** The client closed stdin (v5), or the connection went. */
  stdinEnd(): void;
  /** The client's terminal has this size now (a tty session's resize channel). */
  resize?(size: TerminalSize): void;
}

/**
 * The sizes in one resize frame. client-go writes each size with a json.Encoder
 * (tools/remotecommand/resize.go: `{"Width":80,"Height":24}` and a newline), client-node one
 * `{"height":24,"width":80}` per frame, and the kubelet reads them with a json.Decoder into
 * TerminalSize (kubelet/cri/streaming/remotecommand: handleResizeEvents), whose field names
 * encoding/json matches without regard to case. What is not such a size is skipped, as a frame
 * the decoder cannot read ends the kubelet's resizing, never the session.
 */
export function terminalSizes(frame: string): TerminalSize[] {
  const sizes: TerminalSize[] = [];
  for (const text of frame.split('\n')) {
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    const field = (name: string) => Object.entries(value).find(([key]) => key.toLowerCase() === name)?.[1];
    const width = field('width');
    const height = field('height');
    // uint16 in TerminalSize: anything else fails to decode.
    const valid = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 0xffff;
    if (valid(width) && valid(height)) sizes.push({ width, height });
  }
  return sizes;
}

function asBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

export class RemoteCommandChannels {
  private input: ChannelInput | undefined;
  /** The client is done with stdin, or gone. */
  private stdinDone = false;
  /** The session is over: whatever else arrives is dropped. */
  private finished = false;

  /**
   * Takes over `ws` with its input held back until `startInput`, so nothing the client sends
   * early is lost. `opened` says which output channels the client asked for.
   */
  constructor(
    private readonly ws: WebSocket,
    readonly protocol: ChannelProtocol,
    opened: { stdout: boolean; stderr: boolean },
  ) {
    ws.pause();
    // The close that follows an error is what ends the session.
    ws.on('error', () => {});
    ws.on('message', (data) => this.receive(asBuffer(data)));
    ws.once('close', () => this.endInput());
    // An empty frame on the lowest writable channel tells a v4 client the streams are up (the
    // kubelet's handshake). A v5 client (client-go, kubectl) starts reading before it has made its
    // streams, and would log an early frame as "Unknown stream id" on the user's stderr.
    if (protocol !== 'v5.channel.k8s.io') this.send(opened.stdout ? STDOUT : opened.stderr ? STDERR : ERROR, Buffer.alloc(0));
  }

  startInput(input: ChannelInput): void {
    this.input = input;
    if (this.stdinDone) input.stdinEnd();
    else this.ws.resume();
  }

  /**
   * A stream into one output channel. A write completes once its frame is on the socket, so a
   * slow client slows the writer down; once the client has gone, writes are dropped.
   */
  writable(channel: number): Writable {
    return new Writable({ write: (chunk: Buffer, _encoding, done) => this.send(channel, chunk, () => done()) });
  }

  /**
   * Ends the session as the apiserver does: further input is discarded, the status goes on the
   * error channel, then a normal close, and the client closes the connection once it has read
   * everything (closing it from here could drop output still on its way).
   */
  finish(status: ExecStatus): void {
    this.finished = true;
    this.endInput();
    this.ws.resume();
    this.send(ERROR, Buffer.from(JSON.stringify(status)));
    if (this.ws.readyState === this.ws.OPEN) this.ws.close(NORMAL_CLOSURE);
  }

  private send(channel: number, data: Buffer, done: () => void = () => {}): void {
    if (this.ws.readyState !== this.ws.OPEN) {
      done();
      return;
    }
    this.ws.send(Buffer.concat([Buffer.of(channel), data]), { binary: true }, () => done());
  }

  private receive(frame: Buffer): void {
    if (this.finished || frame.length === 0) return;
    const channel = frame[0];
    if (channel === CLOSE_SIGNAL && this.protocol === 'v5.channel.k8s.io') {
      if (frame[1] === STDIN) this.endInput();
      return;
    }
    if (channel === RESIZE) {
      // A process without a terminal has no size: its session's resizes have no reader.
      for (const size of terminalSizes(frame.subarray(1).toString('utf8'))) this.input?.resize?.(size);
      return;
    }
    // Unknown channels have no reader.
    if (channel !== STDIN || this.stdinDone || this.input === undefined) return;
    if (!this.input.stdin(frame.subarray(1), () => this.ws.resume())) this.ws.pause();
  }

  private endInput(): void {
    if (this.stdinDone) return;
    this.stdinDone = true;
    this.input?.stdinEnd();
  }
}
