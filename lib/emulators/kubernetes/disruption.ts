/**
 * The pod condition that says why the control plane is about to end a pod (k8s.io/api core/v1
 * `DisruptionTarget`, KEP-3329), with the reasons and messages its writers use, so that clients
 * (the runner's poll) can tell an interruption from a failure of the pod's own.
 */
import type { PodCondition } from './objects.js';
import { setCondition } from './pod-status.js';

export const DISRUPTION_TARGET = 'DisruptionTarget';

/** Who disrupted the pod, as the writer words it (pkg/registry/core/pod/storage/eviction.go, pkg/controller/podgc). */
export const Disruptions = {
  eviction: { reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' },
  podGC: { reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' },
} as const;

export type Disruption = (typeof Disruptions)[keyof typeof Disruptions];

/** The pod's conditions with DisruptionTarget True for `disruption` (others kept, as UpdatePodCondition keeps them). */
export function withDisruptionTarget(conditions: PodCondition[], disruption: Disruption, now: string): PodCondition[] {
  return setCondition(conditions, DISRUPTION_TARGET, 'True', now, disruption.reason, disruption.message);
}
