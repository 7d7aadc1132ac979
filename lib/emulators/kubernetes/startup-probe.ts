/**
 * A container's startupProbe as the kubelet runs it, for the `tcpSocket` handler (the one the
 * runner's services use): connect to the pod's IP and port every periodSeconds; the first success
 * marks the container started (and, with no readinessProbe, ready), which is what lets the next
 * init container start after a sidecar; failureThreshold failures in a row make the kubelet kill
 * it ("Init container db failed startup probe"), to be restarted like any sidecar that ends.
 * Each failure is a Warning `Unhealthy` event in the prober's words ("Startup probe failed: dial
 * tcp 127.0.0.1:5432: connect: connection refused"). Processes here share the host's network, so
 * the pod's IP is loopback and a port is open when a local process listens on it.
 *
 * Other handlers (exec, httpGet, grpc) are refused when the pod is created (validation.ts), not
 * run otherwise than they say.
 */
import { connect } from 'node:net';

export interface TcpSocketAction {
  port: number | string;
  host?: string;
}

export interface Probe {
  tcpSocket?: TcpSocketAction;
  exec?: unknown;
  httpGet?: unknown;
  grpc?: unknown;
  initialDelaySeconds?: number;
  periodSeconds?: number;
  timeoutSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

/** The API's defaults for a probe's timing. */
export const PROBE_DEFAULTS = { initialDelaySeconds: 0, periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 3 } as const;

export type DialResult = { ok: true } | { ok: false; output: string };

/** Go's net.Dial error text, as the kubelet's TCP prober reports it. */
export function dialFailure(address: string, error: NodeJS.ErrnoException | 'timeout'): string {
  if (error === 'timeout') return `dial tcp ${address}: i/o timeout`;
  switch (error.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${address}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${address}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${address}: connect: network is unreachable`;
    default:
      return `dial tcp ${address}: ${error.message}`;
  }
}

/** One TCP connection attempt, closed again at once, as the kubelet's prober makes it. */
export function dialTcp(host: string, port: number, timeoutMs: number): Promise<DialResult> {
  const address = `${host}:${port}`;
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const finish = (result: DialResult) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ ok: false, output: dialFailure(address, 'timeout') }), timeoutMs);
    socket.once('connect', () => finish({ ok: true }));
    socket.once('error', (error: NodeJS.ErrnoException) => finish({ ok: false, output: dialFailure(address, error) }));
  });
}

/** The port a tcpSocket probe connects to: a number, or the name of one of the container's ports. */
export function probePort(container: { ports?: unknown }, port: number | string): number | undefined {
  if (typeof port === 'number') return port;
  if (/^\d+$/.test(port)) return Number(port);
  const ports = (container.ports ?? []) as { name?: string; containerPort?: number }[];
  return ports.find((p) => p.name === port)?.containerPort;
}

export interface StartupProbeRun {
  probe: Probe;
  container: { name: string; ports?: unknown };
  podIP: string;
  /** Waits between attempts; rejects (AbortError) once the pod is stopping. */
  wait: (ms: number) => Promise<void>;
  /** Whether the container's process has ended (the probe stops with it). */
  ended: () => boolean;
  /** A failed attempt's output, for the `Unhealthy` event. */
  failed: (output: string) => void;
  dial?: typeof dialTcp;
}

/**
 * Probes until the first success ('passed'), failureThreshold failures in a row ('failed'), or
 * the container's end ('ended').
 */
export async function runStartupProbe({ probe, container, podIP, wait, ended, failed, dial = dialTcp }: StartupProbeRun): Promise<'passed' | 'failed' | 'ended'> {
  const periodMs = (probe.periodSeconds ?? PROBE_DEFAULTS.periodSeconds) * 1000;
  const timeoutMs = (probe.timeoutSeconds ?? PROBE_DEFAULTS.timeoutSeconds) * 1000;
  const threshold = probe.failureThreshold ?? PROBE_DEFAULTS.failureThreshold;
  const target = probe.tcpSocket;
  await wait((probe.initialDelaySeconds ?? PROBE_DEFAULTS.initialDelaySeconds) * 1000);
  for (let failures = 0; ; ) {
    if (ended()) return 'ended';
    const port = target ? probePort(container, target.port) : undefined;
    const result: DialResult =
      port === undefined ? { ok: false, output: `couldn't find port: ${String(target?.port)} in ${container.name}` } : await dial(target?.host || podIP, port, timeoutMs);
    if (ended()) return 'ended';
    if (result.ok) return 'passed';
    failed(result.output);
    failures += 1;
    if (failures >= threshold) return 'failed';
    await wait(periodMs);
  }
}
