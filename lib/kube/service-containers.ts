/**
 * How a step's services become containers of its pod, named in one place for the manifest, the
 * classifier and the views.
 *
 * Each service is a Kubernetes native sidecar (KEP-753: an init container with `restartPolicy:
 * Always`, beta and on by default since 1.29), named after the service itself, so its events say
 * `spec.initContainers{db}` and `kubectl logs POD -c db` reads it. The pipeline refuses the names
 * the pod's other containers take (lib/pipeline/services.ts: `step`, `clone`, `port-N`).
 *
 * Ports: the kubelet starts the next init container only once a sidecar's startupProbe has
 * succeeded, and a probe checks one port. So a service's first port is its own startupProbe
 * (tcpSocket), and each further port gets a *port gate*: one more sidecar, named `port-N`, after
 * all the services, that only idles (in the step's image, which has /bin/sh for the step anyway)
 * and whose startupProbe is a tcpSocket on N. Containers share the pod's network, so the gate's
 * probe sees the service's port. No tool is needed in any image (an exec probe would need one),
 * nor any extra image: the step's is pulled for the step in any case.
 */
import type { V1Container, V1Pod, V1Probe } from '@kubernetes/client-node';
import type { Service } from '../pipeline/types.js';
import { CacheContainers } from './cache-containers.js';

/** The container of a service: named after it. */
export function serviceContainerName(service: Pick<Service, 'name'>): string {
  return service.name;
}

const PORT_GATE = /^port-(\d+)$/;

/** The sidecar that holds the step back until `port` accepts connections (a service's second port and on). */
export function portGateContainerName(port: number): string {
  return `port-${port}`;
}

/** The service a port gate waits for, by the pod's spec; undefined for any other container. */
export function portGateOf(pod: Pick<V1Pod, 'spec'>, container: string): { service: string; port: number } | undefined {
  const match = PORT_GATE.exec(container);
  if (!match) return undefined;
  const port = Number(match[1]);
  const service = (pod.spec?.initContainers ?? []).find((c) => c.restartPolicy === 'Always' && c.ports?.some((p) => p.containerPort === port) && !PORT_GATE.test(c.name));
  return service ? { service: service.name, port } : undefined;
}

/** Whether a sidecar of a step pod is a service's own container, not a port gate nor the cache's save sidecar. */
export function isServiceItself(container: Pick<V1Container, 'name' | 'restartPolicy'>): boolean {
  return container.restartPolicy === 'Always' && !PORT_GATE.test(container.name) && container.name !== CacheContainers.save;
}

/** Probe every second; the failures a probe may have in the grace before the kubelet restarts the container. */
export const SERVICE_PROBE_PERIOD_SECONDS = 1;

/**
 * A startup probe that connects to `port`, for as long as `graceSeconds`: past it the kubelet kills
 * and restarts the container ("Init container db failed startup probe"), and the classifier fails
 * the step naming the port.
 */
export function portProbe(port: number, graceSeconds: number): V1Probe {
  return {
    tcpSocket: { port },
    periodSeconds: SERVICE_PROBE_PERIOD_SECONDS,
    timeoutSeconds: 1,
    failureThreshold: Math.max(1, Math.ceil(graceSeconds / SERVICE_PROBE_PERIOD_SECONDS)),
  };
}

/**
 * What a port gate runs: nothing, until the kubelet stops it (SIGTERM ends the wait, and the gate
 * exits 0). POSIX sh only, since the step's image may have nothing more.
 */
export const PORT_GATE_SCRIPT = "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done";
