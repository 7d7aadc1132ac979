/**
 * A container's security settings as the kubelet applies them: the pod's securityContext under the
 * container's own (DetermineEffectiveSecurityContext: each field the container sets wins), and the
 * kubelet's runAsNonRoot check against the user the image runs as, with its words.
 */
import type { Container, Pod } from './objects.js';

export interface ContainerSecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  privileged?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type?: string; localhostProfile?: string };
}

export interface PodSecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  fsGroup?: number;
  /** `Always` (the default) or `OnRootMismatch`. */
  fsGroupChangePolicy?: string;
  supplementalGroups?: number[];
  seccompProfile?: { type?: string; localhostProfile?: string };
}

/** What a container runs with once the pod's defaults are applied under its own settings. */
export interface EffectiveSecurityContext extends ContainerSecurityContext {
  fsGroup?: number;
  supplementalGroups?: number[];
}

export function podSecurityContext(pod: Pod): PodSecurityContext {
  return (pod.spec.securityContext ?? {}) as PodSecurityContext;
}

export function effectiveSecurityContext(pod: Pod, container: Container): EffectiveSecurityContext {
  const podContext = podSecurityContext(pod);
  const own = (container.securityContext ?? {}) as ContainerSecurityContext;
  const inherited = Object.fromEntries(
    (['runAsUser', 'runAsGroup', 'runAsNonRoot', 'seccompProfile'] as const).filter((key) => podContext[key] !== undefined).map((key) => [key, podContext[key]]),
  ) as ContainerSecurityContext;
  return {
    ...inherited,
    ...own,
    ...(podContext.fsGroup !== undefined ? { fsGroup: podContext.fsGroup } : {}),
    ...(podContext.supplementalGroups ? { supplementalGroups: podContext.supplementalGroups } : {}),
  };
}

/**
 * The user part of an image's USER (`1000`, `1000:1000`, `nobody`, `nobody:nogroup`): a uid, a
 * name, or root when the image sets none (the kubelet treats an image without a user as root).
 */
function imageUser(user: string): { uid: number } | { name: string } {
  const part = user.split(':')[0] ?? '';
  if (part === '') return { uid: 0 };
  return /^\d+$/.test(part) ? { uid: Number(part) } : { name: part };
}

/**
 * The kubelet's verifyRunAsNonRoot: undefined when the container may start, else the
 * CreateContainerConfigError message. `imageUserSpec` undefined: the image's user is not known
 * (the process runner's catalog), so only the pod's own settings are judged.
 */
export function runAsNonRootViolation(pod: Pod, container: Container, imageUserSpec: string | undefined): string | undefined {
  const context = effectiveSecurityContext(pod, container);
  if (context.runAsNonRoot !== true) return undefined;
  const who = `(pod: "${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})", container: ${container.name})`;
  if (context.runAsUser !== undefined) return context.runAsUser === 0 ? `container's runAsUser breaks non-root policy ${who}` : undefined;
  if (imageUserSpec === undefined) return undefined;
  const user = imageUser(imageUserSpec);
  if ('uid' in user) return user.uid === 0 ? `container has runAsNonRoot and image will run as root ${who}` : undefined;
  return `container has runAsNonRoot and image has non-numeric user (${user.name}), cannot verify user is non-root ${who}`;
}
