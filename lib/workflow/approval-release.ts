/**
 * Which steps waiting for approvals may go on, from the build's Secrets (lib/kube/approval-token.ts):
 * an approval step's Secret marked given (Annotations.finished, as a needed step's kept pod is
 * marked once it has ended for the steps that need it), and a waiting step's Secret naming the
 * approvals it awaits beside its callback's token. A waiting step goes on once every approval it
 * awaits is given. Pure.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { Annotations, APPROVAL_TOKEN_KEY, AWAITS_ANNOTATION } from '../kube/index.js';

/** A waiting step whose approvals are all given, and the token that lets its AwaitApprovedNeeds go on. */
export interface Releasable {
  step: string;
  taskToken: string;
}

/** The approval steps the Secrets say were given. */
export function givenApprovals(secrets: readonly V1Secret[]): Set<string> {
  return new Set(
    secrets.flatMap((secret) => {
      const annotations = secret.metadata?.annotations ?? {};
      const step = annotations[Annotations.step];
      return step !== undefined && annotations[AWAITS_ANNOTATION] === undefined && annotations[Annotations.finished] !== undefined ? [step] : [];
    }),
  );
}

/** The waiting steps every approval of which is given, with their tokens. */
export function releasable(secrets: readonly V1Secret[]): Releasable[] {
  const given = givenApprovals(secrets);
  return secrets.flatMap((secret) => {
    const annotations = secret.metadata?.annotations ?? {};
    const awaits = annotations[AWAITS_ANNOTATION];
    const step = annotations[Annotations.step];
    const encoded = secret.data?.[APPROVAL_TOKEN_KEY];
    if (awaits === undefined || step === undefined || encoded === undefined) return [];
    if (!awaits.split(',').every((approval) => given.has(approval))) return [];
    return [{ step, taskToken: Buffer.from(encoded, 'base64').toString('utf8') }];
  });
}
