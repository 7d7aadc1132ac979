/**
 * Which container runtime the embedded cluster's kubelet uses: Docker when a daemon answers on a
 * local socket (steps run in their real images), else the process runner. The candidates and the
 * decision are pure; only findDockerDaemon touches sockets.
 */
import { request } from 'node:http';
import { homedir as userHome } from 'node:os';
import { posix } from 'node:path';
import { RuntimeKinds, type RuntimeKind } from './container-runtime.js';

export type RuntimeChoice = { kind: 'process' } | { kind: 'docker'; socketPath: string; sandboxImage?: string };

/** The pod sandbox's image on Docker, for a registry mirror or a machine without registry.k8s.io (tests). */
export const SANDBOX_IMAGE_ENV = 'STEP_RUNNER_SANDBOX_IMAGE';

/** Read when no `--runtime` is given (the flag wins), by users and by tests that pin a runtime. */
export const RUNTIME_ENV = 'STEP_RUNNER_RUNTIME';

/** Printed first in process mode: what a user would otherwise take for containers are not. */
export const PROCESS_RUNTIME_NOTICE =
  "Steps run as local processes in the build's workspace, not inside their images: an image only has to exist in the image catalog (--runtime docker runs them in their images).";

/** The line a run, serve or cluster prints first: what the steps run in. */
export function runtimeNotice(choice: RuntimeChoice): string {
  return choice.kind === RuntimeKinds.docker ? `Steps run in their images through Docker at ${choice.socketPath}.` : PROCESS_RUNTIME_NOTICE;
}

export interface SocketCandidate {
  socketPath: string;
  /** Why it is tried, for the error: `DOCKER_HOST`, `Docker Desktop`, ... */
  source: string;
}

export interface SocketAttempt extends SocketCandidate {
  /** Why it was not used: `no such file`, `connection refused`, `no answer within 1500 ms`, ... */
  reason: string;
}

export interface DaemonSearch {
  /** The first candidate, in their order, whose /_ping answered OK. */
  found?: SocketCandidate;
  /** Every candidate whose /_ping failed, in their order, with why. */
  failed: SocketAttempt[];
}

/** `--runtime` or STEP_RUNNER_RUNTIME names no runtime. */
export class UnknownRuntime extends Error {
  override readonly name = 'UnknownRuntime';
}

/** `--runtime docker` (or STEP_RUNNER_RUNTIME=docker) and no daemon answered. */
export class DockerUnavailable extends Error {
  override readonly name = 'DockerUnavailable';
  constructor(
    readonly failed: readonly SocketAttempt[],
    readonly unusableHost?: string,
    /** What asked for Docker: `--runtime docker` or `STEP_RUNNER_RUNTIME=docker`. */
    askedBy = '--runtime docker',
  ) {
    const tried = failed.map((attempt) => `${attempt.socketPath} (${attempt.reason})`);
    super(
      [
        `${askedBy}: no Docker daemon answered${tried.length > 0 ? ` at ${tried.join(', ')}` : ' (no socket to try on this system)'}.`,
        ...(unusableHost ? [unusableHost] : []),
        'Start Docker, set DOCKER_HOST=unix://..., or use --runtime process.',
      ].join(' '),
    );
  }
}

const RUNTIME_VALUES: readonly string[] = Object.values(RuntimeKinds);

/** A `--runtime` or STEP_RUNNER_RUNTIME value as a runtime kind; `what` names where it came from. */
export function runtimeKind(value: string, what: string): RuntimeKind {
  if (!RUNTIME_VALUES.includes(value)) throw new UnknownRuntime(`${what} must be one of ${RUNTIME_VALUES.join(', ')}, got "${value}"`);
  return value as RuntimeKind;
}

/** What was asked for: the flag, else STEP_RUNNER_RUNTIME (empty counts as unset), else nothing (auto). */
export function requestedRuntime(flag: RuntimeKind | undefined, env: NodeJS.ProcessEnv): RuntimeKind | undefined {
  if (flag !== undefined) return flag;
  const value = env[RUNTIME_ENV];
  return value === undefined || value === '' ? undefined : runtimeKind(value, RUNTIME_ENV);
}

/**
 * Why DOCKER_HOST, when set to something other than a unix socket, is not used. The kubelet
 * bind-mounts the node's folders (volumes, the workspace) into containers, so the daemon must
 * see this machine's filesystem: a daemon reached over TCP or SSH may be elsewhere.
 */
export function unusableDockerHost(env: NodeJS.ProcessEnv): string | undefined {
  const host = env.DOCKER_HOST;
  if (host === undefined || host === '' || host.startsWith('unix://')) return undefined;
  return `DOCKER_HOST=${host} cannot be used: the kubelet bind-mounts this machine's folders into containers, so only a local unix:// socket will do.`;
}

/**
 * The sockets to try, in order, without duplicates: DOCKER_HOST (unix:// only), the system
 * daemon's, then where Docker Desktop, rootless Docker, colima and Podman's Docker-compatible
 * service put theirs. Windows has none (its daemon is a named pipe, and the kubelet's mounts are
 * POSIX paths).
 */
export function dockerSocketCandidates(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, homedir: string): SocketCandidate[] {
  if (platform === 'win32') return [];
  const home = (...parts: string[]) => posix.join(homedir, ...parts);
  const host = env.DOCKER_HOST;
  const runtimeDir = env.XDG_RUNTIME_DIR;
  const all: (SocketCandidate | undefined)[] = [
    host?.startsWith('unix://') && host.length > 'unix://'.length ? { socketPath: host.slice('unix://'.length), source: 'DOCKER_HOST' } : undefined,
    { socketPath: '/var/run/docker.sock', source: 'the system Docker daemon' },
    { socketPath: home('.docker', 'run', 'docker.sock'), source: 'Docker Desktop' },
    { socketPath: home('.docker', 'desktop', 'docker.sock'), source: 'Docker Desktop' },
    runtimeDir ? { socketPath: posix.join(runtimeDir, 'docker.sock'), source: 'rootless Docker' } : undefined,
    { socketPath: home('.colima', 'default', 'docker.sock'), source: 'colima' },
    { socketPath: home('.colima', 'docker.sock'), source: 'colima' },
    runtimeDir ? { socketPath: posix.join(runtimeDir, 'podman', 'podman.sock'), source: 'Podman' } : undefined,
    { socketPath: '/run/podman/podman.sock', source: 'Podman' },
  ];
  const seen = new Set<string>();
  return all.filter((candidate): candidate is SocketCandidate => {
    if (candidate === undefined || seen.has(candidate.socketPath)) return false;
    seen.add(candidate.socketPath);
    return true;
  });
}

/** Words for why a socket did not answer, as a user would fix it. */
export function socketFailureReason(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return 'no such file';
    case 'ECONNREFUSED':
      return 'connection refused: nothing listening';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTSOCK':
      return 'not a socket';
    default:
      return error.code ? `${error.code}: ${error.message}` : error.message;
  }
}

export const DEFAULT_PING_TIMEOUT_MS = 1500;
// An answer to /_ping is two bytes; anything longer is not a Docker daemon.
const MAX_PING_BODY = 1024;

/** Why the daemon at socketPath is not usable, or undefined when its /_ping answers OK. */
export function pingDocker(socketPath: string, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (reason: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(reason);
    };
    // One timer for the whole exchange: a daemon that accepts and never answers must not hang the start.
    const timer = setTimeout(() => settle(`no answer within ${timeoutMs} ms`), timeoutMs);
    const req = request({ socketPath, path: '/_ping', method: 'GET', agent: false, headers: { connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (body.length > MAX_PING_BODY) settle(`answered ${body.length}+ bytes to /_ping, not OK`);
      });
      res.on('end', () => {
        const text = body.trim();
        if (res.statusCode === 200 && text === 'OK') settle(undefined);
        else settle(`answered HTTP ${res.statusCode} ${JSON.stringify(text.slice(0, 80))} to /_ping, not OK`);
      });
      res.on('error', (error) => settle(socketFailureReason(error)));
    });
    req.on('error', (error) => settle(socketFailureReason(error)));
    req.end();
  });
}

/** Every candidate pinged at once; the first in their order that answers wins. */
export async function findDockerDaemon(candidates: readonly SocketCandidate[], options: { timeoutMs?: number } = {}): Promise<DaemonSearch> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PING_TIMEOUT_MS;
  const reasons = await Promise.all(candidates.map((candidate) => pingDocker(candidate.socketPath, timeoutMs)));
  const index = reasons.findIndex((reason) => reason === undefined);
  const failed = candidates.flatMap((candidate, i) => (reasons[i] === undefined ? [] : [{ ...candidate, reason: reasons[i] }]));
  return index === -1 ? { failed } : { found: candidates[index]!, failed };
}

export interface ChooseOptions {
  platform?: NodeJS.Platform;
  homedir?: string;
  timeoutMs?: number;
}

/**
 * The runtime for an embedded cluster. `requested` is `--runtime` (it wins over STEP_RUNNER_RUNTIME):
 * process → process, without probing; docker → the first daemon that answers, else
 * DockerUnavailable; neither → Docker when a daemon answers, else process.
 * Throws UnknownRuntime for a STEP_RUNNER_RUNTIME that names no runtime.
 */
export async function chooseRuntime(requested: RuntimeKind | undefined, env: NodeJS.ProcessEnv = process.env, options: ChooseOptions = {}): Promise<RuntimeChoice> {
  const wanted = requestedRuntime(requested, env);
  const askedBy = requested === undefined ? `${RUNTIME_ENV}=docker` : '--runtime docker';
  if (wanted === RuntimeKinds.process) return { kind: RuntimeKinds.process };
  const candidates = dockerSocketCandidates(env, options.platform ?? process.platform, options.homedir ?? userHome());
  const search = await findDockerDaemon(candidates, options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
  const sandboxImage = env[SANDBOX_IMAGE_ENV]?.trim();
  if (search.found) return { kind: RuntimeKinds.docker, socketPath: search.found.socketPath, ...(sandboxImage ? { sandboxImage } : {}) };
  if (wanted === RuntimeKinds.docker) throw new DockerUnavailable(search.failed, unusableDockerHost(env), askedBy);
  return { kind: RuntimeKinds.process };
}
