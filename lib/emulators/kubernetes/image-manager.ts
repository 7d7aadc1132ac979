/**
 * Gets a container's image onto the node as the kubelet's image manager does: the pull policy says
 * whether an image already present will do, a failed pull shows as ErrImagePull and, from the next
 * sync, ImagePullBackOff, and the wait between pulls doubles up to a ceiling.
 */
import { parseImageReference } from './image-catalog.js';
import type { NodeContext } from './node-context.js';
import type { Container, Secret } from './objects.js';
import { defaultPullPolicy } from './pod-defaults.js';
import type { PodHandle } from './pod-handle.js';
import { pullAuth } from './pull-credentials.js';
import { invalidReferenceMessage } from './pull-errors.js';
import type { RuntimeImage } from './runtime/container-runtime.js';
import { goDuration } from './time-format.js';

/** The container's image once it is on the node; undefined when it never can be (or the pod stops first). */
export async function ensureImage(
  pod: PodHandle,
  container: Container,
  node: Pick<NodeContext, 'runtime' | 'store' | 'timings' | 'now'>,
): Promise<RuntimeImage | undefined> {
  const { image, name } = container;
  const parsed = parseImageReference(image);
  if (!parsed.ok) {
    const message = invalidReferenceMessage(image, parsed.message);
    pod.setContainerState(name, { waiting: { reason: 'InvalidImageName', message } });
    pod.event({ type: 'Warning', reason: 'InspectFailed', message, container: name });
    pod.event({ type: 'Warning', reason: 'Failed', message: 'Error: InvalidImageName', container: name });
    return undefined;
  }
  const policy = container.imagePullPolicy ?? defaultPullPolicy(image);
  const { timings, runtime } = node;
  let backoff = timings.backoffInitialMs;
  for (;;) {
    // A runtime that cannot say (its daemon away) has it not: the pull then says why, and backs off.
    const present = policy === 'Always' ? undefined : await runtime.presentImage(image).catch(() => undefined);
    if (present !== undefined) {
      pod.event({ type: 'Normal', reason: 'Pulled', message: `Container image "${image}" already present on machine`, container: name });
      return present;
    }
    if (policy === 'Never') {
      const message = `Container image "${image}" is not present with pull policy of Never`;
      pod.setContainerState(name, { waiting: { reason: 'ErrImageNeverPull', message } });
      pod.event({ type: 'Warning', reason: 'ErrImageNeverPull', message, container: name });
      pod.event({ type: 'Warning', reason: 'Failed', message: 'Error: ErrImageNeverPull', container: name });
      return undefined;
    }
    pod.event({ type: 'Normal', reason: 'Pulling', message: `Pulling image "${image}"`, container: name });
    const began = node.now().getTime();
    const spec = pod.current();
    if (spec === undefined) return undefined;
    const auth = pullAuth(spec, parsed.reference, (secret) => node.store.get('secrets', pod.namespace, secret) as Secret | undefined);
    const outcome = await runtime.pullImage(image, auth);
    if (pod.stopping) return undefined;
    if (outcome.ok) {
      const took = goDuration(node.now().getTime() - began);
      pod.event({
        type: 'Normal',
        reason: 'Pulled',
        message: `Successfully pulled image "${image}" in ${took} (${took} including waiting). Image size: ${outcome.image.size} bytes.`,
        container: name,
      });
      return outcome.image;
    }
    pod.event({ type: 'Warning', reason: 'Failed', message: `Failed to pull image "${image}": ${outcome.error}`, container: name });
    pod.event({ type: 'Warning', reason: 'Failed', message: 'Error: ErrImagePull', container: name });
    pod.setContainerState(name, { waiting: { reason: 'ErrImagePull', message: outcome.error } });
    // The kubelet's next sync (or the end of a shorter back-off) is when ImagePullBackOff shows.
    await pod.wait(Math.min(timings.syncMs, backoff));
    pod.setContainerState(name, { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}": ErrImagePull: ${outcome.error}` } });
    pod.event({ type: 'Normal', reason: 'BackOff', message: `Back-off pulling image "${image}"`, container: name });
    pod.event({ type: 'Warning', reason: 'Failed', message: 'Error: ImagePullBackOff', container: name });
    await pod.wait(Math.max(0, backoff - timings.syncMs));
    backoff = Math.min(backoff * 2, timings.backoffMaxMs);
  }
}
