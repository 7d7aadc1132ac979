/**
 * A failed Engine API call in the words Docker's Go client gives it, which are the words
 * cri-dockerd passes to the kubelet: `Error response from daemon: <message>` for a refusal, and
 * `Cannot connect to the Docker daemon at unix://<socket>. Is the docker daemon running?` when
 * nothing answers on the socket. Pure.
 */

interface ModemError {
  statusCode?: number;
  json?: unknown;
  code?: string;
  message?: string;
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOENT', 'EACCES', 'ECONNRESET', 'EPIPE']);

/** Nothing answers on the daemon's socket any more (or never did). */
export function isDaemonUnreachable(error: unknown): boolean {
  const e = error as ModemError;
  return (e.code !== undefined && UNREACHABLE.has(e.code)) || e.message === 'socket hang up';
}

/**
 * docker-modem's message for a refusal: `(HTTP code 404) <its reason> - <the daemon's message> `.
 * A streamed request (a pull, an attach) keeps the daemon's message only there, not in `json`.
 */
const MODEM_MESSAGE = /^\(HTTP code \d+\) .*? - ([\s\S]*?) ?$/;

/** The daemon's own message in a refusal: the JSON body's `message`, else what docker-modem quoted of it. */
function refusalMessage(e: ModemError): string {
  const body = e.json;
  if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { message?: unknown }).message === 'string') {
    return (body as { message: string }).message;
  }
  const quoted = MODEM_MESSAGE.exec(e.message ?? '');
  if (quoted) return quoted[1]!;
  if (Buffer.isBuffer(body) && body.length > 0) return body.toString('utf8').trim();
  return e.message ?? String(e);
}

export function daemonError(error: unknown, socketPath: string): string {
  const e = (error ?? {}) as ModemError;
  if (typeof e.statusCode === 'number') return `Error response from daemon: ${refusalMessage(e)}`;
  if (isDaemonUnreachable(error)) return `Cannot connect to the Docker daemon at unix://${socketPath}. Is the docker daemon running?`;
  return e.message ?? String(error);
}
