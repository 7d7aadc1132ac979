/**
 * An approval decided through the signed generic webhook (issue 40): whoever holds the generic
 * secret approves or rejects a waiting step by its execution and name, as the local server's
 * approve and reject routes are protected by that secret. `by` is who the record names; no forge
 * vouches for it, so the step's `approvers` and `self-approval` (GitHub identities, approver-rule.ts)
 * are not checked here: the secret's holder may already start any build of the deployment.
 *
 *   { "approval": { "execution": "<name>", "step": "production", "decision": "approve",
 *                   "by": "release-bot", "comment": "ship it" } }
 */
import * as z from 'zod';
import type { ApprovalDesk } from './approval-delivery.js';
import { ApprovalNotWaitingHere, InvalidPayload } from './errors.js';

const MODULE = 'generic-approval';

const printable = (max: number) =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .regex(/^\P{Cc}+$/u, 'must be one line of text, without control characters');

const approvalPayload = z.object({
  approval: z.object({
    execution: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, 'must be an execution name (1 to 80 of A-Z a-z 0-9 _ -)'),
    step: printable(100),
    decision: z.enum(['approve', 'reject'], 'must be approve or reject'),
    by: printable(100),
    comment: z.string().max(2000, 'must be at most 2000 characters').optional(),
  }),
});

/** Whether a generic payload decides an approval rather than starting a build. */
export function isGenericApproval(payload: unknown): boolean {
  return typeof payload === 'object' && payload !== null && 'approval' in payload;
}

export async function answerGenericApproval(payload: unknown, desk: ApprovalDesk, now: () => Date = () => new Date()): Promise<{ statusCode: number; body: Record<string, unknown> }> {
  const parsed = approvalPayload.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidPayload(`A generic approval is {"approval": {"execution", "step", "decision": "approve" or "reject", "by", "comment"?}}: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}.`, MODULE);
  }
  const { execution, step, decision, by, comment } = parsed.data.approval;
  const notWaiting = () => new ApprovalNotWaitingHere(`Step ${JSON.stringify(step)} of execution ${execution} is not waiting for an approval.`, MODULE);
  const waiting = await desk.waiting(execution, { step });
  if (!waiting) throw notWaiting();
  const decided = await waiting.decide({ action: decision, by, at: now(), ...(comment !== undefined ? { comment } : {}) });
  if (!decided) throw notWaiting();
  return { statusCode: 200, body: { [decision === 'approve' ? 'approved' : 'rejected']: step, by, executionName: execution } };
}
