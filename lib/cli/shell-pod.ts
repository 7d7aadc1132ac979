/**
 * `run --shell-on-failure`: which failed step gets a shell, and the pod it gets it in. Pure.
 *
 * A container that has exited cannot be exec'd into, and Kubernetes adds no container to a pod
 * that has ended (an ephemeral container runs only in a running pod). What `kubectl debug
 * --copy-to` does instead is what this does (kubernetes/kubectl pkg/cmd/debug/debug.go,
 * generatePodCopyWithDebugContainer): a copy of the failed pod, its container's command replaced,
 * here on the same node (`--same-node`: the build's claim has its volume there) and with the
 * same image, environment, mounts, security context and services, so that the shell sees the
 * workspace the step left.
 */
import type { V1Container, V1ObjectMeta, V1Pod } from '@kubernetes/client-node';
import { ErrorNames } from '../contract/index.js';
import { Annotations, CACHE_SCRATCH, CacheContainers, Labels, STEP_CONTAINER } from '../kube/index.js';
import type { StepInput } from '../workflow/state-data.js';
import { nextAttempt } from '../workflow/step-retry.js';

/**
 * Keeps the copy's container running until its pod is deleted: the shell is an exec beside it.
 * TERM (the deletion) ends it at once; `sleep` runs in the background so that the shell's trap
 * runs when the signal comes, not when the sleep ends.
 */
export const HOLD_COMMAND = ['/bin/sh', '-c', "trap 'exit 0' TERM INT; sleep 2147483647 & wait"];

/** The shell: bash where the image has it (line editing, history), else the image's sh. */
export const SHELL_COMMAND = ['/bin/sh', '-c', 'if command -v bash >/dev/null 2>&1; then exec bash; fi; exec sh'];

/** The annotation that names the step whose failure the pod is a copy of. */
export const SHELL_OF_ANNOTATION = 'step-runner.dev/shell-of';

/**
 * Whether the step's FinishFailedStep ends it for good: a failure its retry covers starts another
 * attempt (RetryStep), and the shell is for the last one. FinishStep decides it the same way.
 */
export function failsForGood(input: StepInput): boolean {
  const poll = input.poll;
  if (poll?.phase !== 'failed') return false;
  const checkout = input.step.name === input.settings.checkoutStep;
  return nextAttempt(input.step, input.attempt ?? 0, poll.error ?? ErrorNames.StepFailed, checkout) === undefined;
}

/**
 * Why no shell opens in this pod, or undefined when one may: the step's commands must have run
 * (a pod whose image could not be pulled, or which no node took, has nothing to show), and the pod
 * must still be there to be copied.
 */
export function noShellBecause(pod: V1Pod | undefined): string | undefined {
  if (!pod) return 'its pod is gone';
  if (!pod.spec?.nodeName) return 'its pod never got a node';
  const step = pod.status?.containerStatuses?.find((status) => status.name === STEP_CONTAINER);
  if (!step?.state?.terminated && !step?.lastState?.terminated) return 'its commands never started';
  return undefined;
}

/** The copy's name: the failed pod's with a suffix, cut to the 63 characters a pod's hostname may have. */
export function shellPodName(podName: string): string {
  const suffix = '-shell';
  return `${podName.slice(0, 63 - suffix.length).replace(/-+$/, '')}${suffix}`;
}

/**
 * Whether the pod's workspace is its own emptyDir (`--workspace-mode ephemeral`): gone with the
 * pod, so the copy's starts again from the checkout, without what the step changed.
 */
export function ownWorkspace(pod: V1Pod): boolean {
  const step = pod.spec?.containers.find((c) => c.name === STEP_CONTAINER);
  const mounted = new Set((step?.volumeMounts ?? []).map((mount) => mount.name));
  return (pod.spec?.volumes ?? []).some((volume) => mounted.has(volume.name) && volume.emptyDir !== undefined && volume.name !== CACHE_SCRATCH.volume);
}

/**
 * The copy of the failed pod the shell runs in.
 * - Its labels keep the build's (the build's cleanup, and an abort's, delete it with the others)
 *   but not the step's, and its annotations not the step's or the attempt's: no step waiting for
 *   this one (WaitForNeeds) and no LaunchStep adopting a pod takes it for the step's.
 * - On the failed pod's node (kubectl debug `--same-node`: NodeName set, no scheduling).
 * - No deadline: the step's timeout is for its commands, not for the person in the shell.
 * - Its init containers are the services (native sidecars, restarted: the step's services run
 *   again beside the shell); the one-shot ones (checkout, cache restore) and the cache's save
 *   sidecar are left out, since what they did is in the claim and must not be done over it. With
 *   the pod's own workspace, the checkout and the restore run again, or the shell would see none.
 */
export function shellPodCopy(pod: V1Pod): V1Pod {
  const meta = pod.metadata ?? {};
  const spec = pod.spec!;
  const dropped = new Set<string>([Annotations.step, Annotations.attempt, Annotations.attemptsLeft, Annotations.retryOn]);
  const annotations = Object.fromEntries(Object.entries(meta.annotations ?? {}).filter(([key]) => !dropped.has(key)));
  const labels = Object.fromEntries(Object.entries(meta.labels ?? {}).filter(([key]) => key !== Labels.step));
  const own = ownWorkspace(pod);
  const initContainers = (spec.initContainers ?? []).filter(
    (c) => c.name !== CacheContainers.save && (own || c.restartPolicy === 'Always'),
  );
  const metadata: V1ObjectMeta = {
    name: shellPodName(meta.name ?? 'step'),
    ...(meta.namespace ? { namespace: meta.namespace } : {}),
    labels,
    annotations: { ...annotations, [SHELL_OF_ANNOTATION]: meta.annotations?.[Annotations.step] ?? meta.name ?? '' },
  };
  const { activeDeadlineSeconds: _deadline, initContainers: _init, ...kept } = spec;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata,
    spec: {
      ...kept,
      nodeName: spec.nodeName,
      ...(initContainers.length > 0 ? { initContainers } : {}),
      containers: spec.containers.map((c) => (c.name === STEP_CONTAINER ? held(c) : c)),
    },
  };
}

function held(container: V1Container): V1Container {
  const { args: _args, ...rest } = container;
  return { ...rest, command: HOLD_COMMAND };
}
