/**
 * A started Docker container as the kubelet holds it: how it ended (wait, then inspect for the
 * exit code and the OOM killer's verdict), stop as the kubelet stops one (SIGTERM, SIGKILL after
 * the grace period), and exec. Once it has ended and its log is complete it is removed, as the
 * kubelet's garbage collection would; the kubelet keeps its status, not the container.
 */
import type Docker from 'dockerode';
import type { ExecStart, ExecStdio } from '../../exec-process.js';
import type { ContainerExit, RunningContainer } from '../container-runtime.js';
import { isDaemonUnreachable } from './daemon-errors.js';
import { startExec } from './docker-exec.js';
import { LATE_OOM_WAIT_MS, type OomEvents } from './oom-events.js';
import type { OpenHandles } from './open-handles.js';

/** A SIGKILLed process's code, which is what a container the runtime lost track of is taken to have. */
const SIGKILL_EXIT_CODE = 137;
/**
 * How long the attach stream may trail the container's end. The daemon closes it once the
 * container's processes are gone, which is at once; a stream still open after this is stuck, and
 * is ended so that `exited` settles.
 */
const LOG_DRAIN_MS = 5_000;

function statusOf(error: unknown): number | undefined {
  return (error as { statusCode?: number }).statusCode;
}

export interface ContainerContext {
  docker: Docker;
  socketPath: string;
  handles: OpenHandles;
  oom: OomEvents;
}

function lostReason(error: unknown, context: ContainerContext, id: string): string {
  if (context.handles.closed) return `the Docker runtime was closed while container ${id} ran`;
  if (isDaemonUnreachable(error)) return `the Docker daemon at unix://${context.socketPath} went away (${(error as Error).message})`;
  if (statusOf(error) === 404) return `container ${id} was removed from the Docker daemon at unix://${context.socketPath} behind the kubelet's back`;
  return `the Docker daemon at unix://${context.socketPath} could not say how container ${id} ended: ${(error as Error).message}`;
}

export class DockerContainer implements RunningContainer {
  readonly containerID: string;
  readonly exited: Promise<ContainerExit>;

  constructor(
    private readonly context: ContainerContext,
    private readonly container: Docker.Container,
    /** Settles once the container's output is all in its log. */
    logged: Promise<void>,
    /** Ends the attach stream, for a daemon that went away without closing it. */
    detach: () => void,
  ) {
    this.containerID = `docker://${container.id}`;
    this.exited = this.watch(logged, detach);
  }

  private async watch(logged: Promise<void>, detach: () => void): Promise<ContainerExit> {
    const abort = new AbortController();
    const forget = this.context.handles.add(() => abort.abort());
    let exit: ContainerExit;
    try {
      await this.container.wait({ abortSignal: abort.signal });
      const info = await this.container.inspect();
      // Only a container with a memory limit can be OOM killed by its cgroup: only its 137 waits.
      const mayBeOom = info.State.ExitCode === SIGKILL_EXIT_CODE && (info.HostConfig.Memory ?? 0) > 0 && !this.sigkilled;
      const oomKilled = info.State.OOMKilled || (await this.context.oom.killed(this.container.id, mayBeOom ? LATE_OOM_WAIT_MS : 0));
      exit = { exitCode: info.State.ExitCode, ...(oomKilled ? { reason: 'OOMKilled' as const } : {}) };
    } catch (error) {
      exit = { exitCode: SIGKILL_EXIT_CODE, lost: lostReason(error, this.context, this.container.id) };
      detach();
    } finally {
      forget();
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([logged, new Promise<void>((resolve) => (timer = setTimeout(resolve, LOG_DRAIN_MS)))]);
    clearTimeout(timer);
    detach();
    await logged;
    if (exit.lost === undefined) {
      await this.container.remove({ force: true }).catch(() => {});
    }
    this.context.oom.forget(this.container.id);
    return exit;
  }

  /** Whether stop() killed it: its 137 is then the kubelet's doing, not the OOM killer's. */
  private sigkilled = false;

  private async kill(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    if (signal === 'SIGKILL') this.sigkilled = true;
    // Not running (409) or gone (404) is what stop wants; a lost daemon shows in `exited`.
    await this.container.kill({ signal }).catch(() => {});
  }

  async stop(graceMs: number): Promise<ContainerExit> {
    await this.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'grace over'>((resolve) => (timer = setTimeout(() => resolve('grace over'), Math.max(0, graceMs))));
    const first = await Promise.race([this.exited, graceOver]);
    clearTimeout(timer);
    if (first === 'grace over') await this.kill('SIGKILL');
    return this.exited;
  }

  exec(argv: readonly string[], stdio: ExecStdio): Promise<ExecStart> {
    return startExec(this.context.docker, this.container.id, this.context.socketPath, argv, stdio, this.context.handles);
  }
}
