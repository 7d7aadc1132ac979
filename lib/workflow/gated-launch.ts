/**
 * LaunchStep's order for a step whose identity reads AWS before the step runs (its AWS secrets,
 * aws-secrets.ts; its ECR login, registry-login.ts): the step's pod first, held by a scheduling gate
 * (lib/kube/scheduling-gate.ts), so that a token of its identity's service account can be bound to
 * it, which EKS Pod Identity requires (lib/lambda/pod-identity-credentials.ts says why); then the
 * reads with that token, and the Secrets they fill; then the gate removed, and the pod scheduled.
 * One code for AWS and for a local run: only the token's exchange differs (IdentityCredentials).
 *
 * Anything that fails on the way deletes the gated pod (no half-made pod is left for the next
 * attempt to adopt) and is thrown as it was: SecretUnavailable, ImagePushFailed with AWS's words.
 * A gated pod never reached a kubelet, so its secretKeyRefs to a Secret not made yet are never
 * reported (no CreateContainerConfigError, which lib/kube/classify.ts would end PodConfigError).
 */
import { identityServiceAccount, isGated, withSchedulingGate, type BoundPod, type LaunchResult, type StepCluster } from '../kube/index.js';
import type { Step } from '../pipeline/index.js';
import { ecrLoginRegistries } from './registry-login.js';
import type { TaskLog } from './task-log.js';

/** Whether the step's identity reads AWS before it runs, so its pod is made gated. Pure. */
export function readsAsIdentity(step: Pick<Step, 'awsSecrets' | 'build' | 'identity'>): boolean {
  // AWS secrets without an identity too: their read refuses it, SecretUnavailable (aws-secrets.ts), before any token.
  return (step.awsSecrets?.length ?? 0) > 0 || ecrLoginRegistries(step).length > 0;
}

/** What is read with the pod's identity, once the gated pod exists: its token is bound to `pod`. */
export type IdentityReads = (pod: BoundPod, podToken: () => Promise<string>) => Promise<void>;

/**
 * Creates the pod gated, runs `reads` with tokens bound to it, then removes the gate. An adopted
 * pod already ungated (an earlier LaunchStep got that far) has had its reads: it is returned as it
 * is; one still gated has them again (their Secrets are replaced).
 */
export async function launchGated(input: {
  cluster: Pick<StepCluster, 'launchPod' | 'ungatePod' | 'deletePod' | 'podIdentityToken'>;
  manifest: Parameters<StepCluster['launchPod']>[0];
  step: Pick<Step, 'name' | 'identity'>;
  reads: IdentityReads;
  log: Pick<TaskLog, 'info' | 'warn'>;
}): Promise<LaunchResult> {
  const { cluster, step } = input;
  const launched = await cluster.launchPod(withSchedulingGate(input.manifest));
  const namespace = launched.pod.metadata?.namespace ?? input.manifest.metadata!.namespace!;
  const name = launched.pod.metadata?.name ?? input.manifest.metadata!.name!;
  if (launched.adopted && !isGated(launched.pod)) return launched;
  const pod = { name, uid: launched.pod.metadata?.uid ?? '' };
  const identity = step.identity;
  const podToken = async () => {
    if (identity === undefined) throw new Error(`step "${step.name}" has no identity to ask a token for`);
    return cluster.podIdentityToken(namespace, identityServiceAccount(identity), pod);
  };
  try {
    await input.reads(pod, podToken);
    await cluster.ungatePod(namespace, name);
  } catch (error) {
    // Deleted before the error ends the step: never a gated pod left behind (an unscheduled pod goes at once).
    await cluster.deletePod(namespace, name).catch((failure: unknown) => {
      input.log.warn(`Could not delete the gated pod ${namespace}/${name} of step "${step.name}": ${(failure as Error).message}`, { pod: name });
    });
    throw error;
  }
  input.log.info(`Step "${step.name}": pod ${name} ungated, what its identity "${step.identity}" read made first`, { pod: name });
  return launched;
}
