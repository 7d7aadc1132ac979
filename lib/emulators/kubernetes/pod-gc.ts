/**
 * The pod garbage collector's orphan sweep (pkg/controller/podgc, gcOrphaned): once a deleted node
 * has stayed gone for the quarantine, each pod bound to it gets DisruptionTarget (DeletionByPodGC),
 * phase Failed if it had not ended, and is deleted at once (grace period 0: no kubelet is left to
 * stop it gracefully). The kubelet here, which outlives its node, then kills what the pod still
 * ran, as the machine going away would have.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from './clock.js';
import { startController, type Controller } from './controller.js';
import { Disruptions, withDisruptionTarget } from './disruption.js';
import { formatTime, type Pod } from './objects.js';
import type { ObjectStore } from './store.js';

export interface PodGcContext {
  store: ObjectStore;
  now: Clock;
  quarantineMs: number;
}

/** Marks and deletes the pods bound to `nodeName`, if that node is (still) gone. */
export function collectOrphans(ctx: Omit<PodGcContext, 'quarantineMs'>, nodeName: string): void {
  const { store } = ctx;
  if (store.get('nodes', undefined, nodeName) !== undefined) return;
  for (const object of store.list('pods')) {
    const pod = object as Pod;
    if (pod.spec.nodeName !== nodeName) continue;
    const { namespace, name = '', uid } = pod.metadata;
    const phase = pod.status?.phase;
    if (phase !== 'Succeeded' && phase !== 'Failed') {
      const now = formatTime(ctx.now());
      store.update(
        'pods',
        namespace,
        name,
        (draft) => {
          const p = draft as Pod;
          p.status = { ...p.status, phase: 'Failed', conditions: withDisruptionTarget(p.status?.conditions ?? [], Disruptions.podGC, now) };
        },
        uid,
      );
    }
    store.remove('pods', namespace, name, uid);
  }
}

export function startPodGc(ctx: PodGcContext): Controller {
  return startController(ctx.store, async (event, signal) => {
    if (event.resource !== 'nodes' || event.type !== 'DELETED') return;
    await delay(ctx.quarantineMs, undefined, { signal });
    collectOrphans(ctx, event.object.metadata.name ?? '');
  });
}
