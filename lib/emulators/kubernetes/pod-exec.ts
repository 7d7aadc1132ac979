/**
 * `GET|POST .../pods/NAME/exec` as a real cluster answers it. First the apiserver's checks (the
 * pod, the container, a node, an upgrade), refused with Status errors before any upgrade. Then,
 * over a WebSocket, the command runs in the container with its streams on the remote-command
 * channels, and its end arrives as a Status. Over v5.channel.k8s.io (kubectl 1.30+, client-node)
 * the apiserver's stream translator answers, so the kubelet's refusals (no streams, container not
 * running) come after the upgrade, on the error channel; over v4.channel.k8s.io the kubelet
 * answers and refuses in plain text before it. SPDY is not served.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { badRequest, notFound } from './api-errors.js';
import { execOptions, execStreams, type ExecOptions, type ExecStreams } from './exec-options.js';
import type { ContainerExec } from './exec-process.js';
import { execStatus, type ChannelProtocol } from './exec-status.js';
import type { Pod } from './objects.js';
import { requestedContainer } from './pod-container.js';
import { chooseProtocol, offeredProtocols, RemoteCommandChannels, STDERR, STDOUT } from './remote-command.js';
import type { ObjectStore } from './store.js';

/** Starts commands in a pod's running container (by pod uid); undefined when it is not running. */
export type ExecSource = (podUid: string, container: string) => ContainerExec | undefined;

/** The socket of a request that asks for an upgrade, and what was read past its headers. */
export interface UpgradeSocket {
  socket: Socket;
  head: Buffer;
}

const NOT_SERVED =
  'the embedded cluster serves pods/exec over WebSocket only, with the v5.channel.k8s.io or v4.channel.k8s.io subprotocol; ' +
  'SPDY and older subprotocols are not served (kubectl uses WebSocket unless KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false)';

function isWebSocket(req: IncomingMessage): boolean {
  return req.headers.upgrade?.toLowerCase() === 'websocket';
}

/** How the kubelet answers before any upgrade, in plain text, as its HTTP server writes errors. */
function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function endWritable(stream: Writable): Promise<void> {
  return new Promise((resolve) => stream.end(() => resolve()));
}

interface Session {
  protocol: ChannelProtocol;
  options: ExecOptions;
  streams: ExecStreams | { refusal: string };
  exec: ContainerExec | undefined;
  container: string;
}

/** One exec over an open WebSocket, from the kubelet's checks to the status. */
async function runSession(ws: WebSocket, session: Session): Promise<void> {
  const { protocol, options, streams, exec, container } = session;
  const channels = new RemoteCommandChannels(ws, protocol, options);
  const end = (outcome: Parameters<typeof execStatus>[0]) => channels.finish(execStatus(outcome, protocol, options.command));
  if ('refusal' in streams) return end({ kind: 'refused', message: streams.refusal });
  if (exec === undefined) return end({ kind: 'refused', message: `container not found ("${container}")` });

  // A tty session's process writes its stderr to its terminal, whose one output is stdout: "If
  // tty is true, stderr MUST be false ... The output of stdout and stderr will be combined to a
  // single stream" (cri-api pkg/apis/runtime/v1/api.proto, ExecRequest).
  const started = await exec(options.command, { stdin: streams.stdin, stdout: streams.stdout, stderr: streams.stderr, tty: streams.tty });
  if (!started.ok) return end({ kind: 'failed', message: started.message });
  const { stdin, stdout, stderr, exited, resize } = started.process;

  const stdoutSink = channels.writable(STDOUT);
  const stderrSink = channels.writable(STDERR);
  const pipes: [Readable | null, Writable][] = [
    [stdout, stdoutSink],
    [stderr, stderrSink],
  ];
  for (const [source, sink] of pipes) source?.pipe(sink, { end: false });
  channels.startInput({
    stdin: (data, resume) => {
      if (stdin === null || stdin.write(data)) return true;
      stdin.once('drain', resume);
      return false;
    },
    stdinEnd: () => stdin?.end(),
    ...(resize ? { resize: (size) => resize(size) } : {}),
  });
  const exitCode = await exited;
  // Everything the process wrote is in the sinks by now; the status must come after it.
  await Promise.all([stdoutSink, stderrSink].map(endWritable));
  end({ kind: 'exited', exitCode });
}

export class PodExecServer {
  private readonly sockets = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (offered) => chooseProtocol(offered) ?? false,
  });

  constructor(
    private readonly store: ObjectStore,
    private readonly source: ExecSource,
  ) {}

  /** Answers one exec request: an error, or an upgrade whose session then runs on its own. */
  serve(namespace: string, name: string, query: URLSearchParams, req: IncomingMessage, res: ServerResponse, upgrade: UpgradeSocket | undefined): void {
    const options = execOptions(query);
    const pod = this.store.get('pods', namespace, name) as Pod | undefined;
    if (pod === undefined) throw notFound('pods', name);
    const container = requestedContainer(pod, options.container);
    if (!pod.spec.nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
    if (upgrade === undefined) throw badRequest('Upgrade request required');

    const protocol = isWebSocket(req) ? chooseProtocol(offeredProtocols(req.headers['sec-websocket-protocol'])) : undefined;
    const session = { options, streams: execStreams(options), exec: this.source(pod.metadata.uid ?? '', container), container };
    if (protocol === 'v5.channel.k8s.io') return this.upgrade(req, res, upgrade, { ...session, protocol });
    const { streams, exec } = session;
    if ('refusal' in streams) return sendText(res, 400, streams.refusal);
    if (exec === undefined) return sendText(res, 500, `container not found ("${container}")`);
    if (protocol === undefined) throw badRequest(NOT_SERVED);
    this.upgrade(req, res, upgrade, { ...session, protocol });
  }

  /** Ends every session at once (the cluster is stopping). */
  closeAll(): void {
    for (const ws of this.sockets.clients) ws.terminate();
  }

  private upgrade(req: IncomingMessage, res: ServerResponse, upgrade: UpgradeSocket, session: Session): void {
    // The WebSocket takes the socket over; the plain response that would have carried an error lets go of it.
    res.detachSocket(upgrade.socket);
    this.sockets.handleUpgrade(req, upgrade.socket, upgrade.head, (ws) => {
      runSession(ws, session).catch(() => ws.terminate());
    });
  }
}
