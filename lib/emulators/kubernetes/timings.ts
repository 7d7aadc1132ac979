/** How fast the simulated node moves. Defaults feel like a real node; tests pass small numbers. */
export interface KubeletTimings {
  /** Pod created -> scheduled onto the node (and again before each retry of a pod waiting for a claim). */
  scheduleMs: number;
  /** A claim's node selected -> its volume provisioned and the claim Bound. */
  provisionMs: number;
  /** One image pull (the Pulled event reports the time taken); the process runtime's only, Docker's pulls take what they take. */
  pullMs: number;
  /** Image ready -> container created and started; the process runtime's only. */
  createMs: number;
  /** ErrImagePull -> the next sync reports ImagePullBackOff. */
  syncMs: number;
  /** First image pull back-off; it doubles after each failed pull, up to backoffMaxMs (kubelet: 10 s .. 300 s). */
  backoffInitialMs: number;
  backoffMaxMs: number;
  /** How often a container that cannot be configured (missing Secret) is retried. */
  configRetryMs: number;
  /** How long a deleted pod with nothing running shows as Terminating before it disappears. */
  terminatingMs: number;
  /**
   * Node deleted -> the pod GC ends the pods bound to it. The controller's quarantine (40 s)
   * before it trusts that a node it no longer sees is gone.
   */
  podGcQuarantineMs: number;
}

export const DEFAULT_TIMINGS: KubeletTimings = {
  scheduleMs: 50,
  provisionMs: 1_000,
  pullMs: 800,
  createMs: 150,
  syncMs: 1_000,
  backoffInitialMs: 10_000,
  backoffMaxMs: 300_000,
  configRetryMs: 2_000,
  terminatingMs: 300,
  podGcQuarantineMs: 40_000,
};

/** A preset for tests: every transition within tens of milliseconds. */
export const FAST_TIMINGS: KubeletTimings = {
  scheduleMs: 2,
  provisionMs: 5,
  pullMs: 10,
  createMs: 2,
  syncMs: 15,
  backoffInitialMs: 40,
  backoffMaxMs: 160,
  configRetryMs: 30,
  terminatingMs: 20,
  podGcQuarantineMs: 20,
};
