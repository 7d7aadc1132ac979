/**
 * What a person's decision on an approval step sends to Step Functions, and what the build's result
 * keeps of it (`steps[].approval` in run --json: decision, by, at, comment). Approved: SendTaskSuccess
 * with the iteration's output, the step's result as FinishStep's is, with the decision in it.
 * Rejected: SendTaskFailure with the Error ApprovalRejected and a Cause that names the step, who,
 * when and their comment; the Cause is the record (Step Functions keeps a failed task's error and
 * cause, nothing else), so approvalOfCause reads it back. Pure.
 */
import { ErrorNames, type ApprovedStepReport } from '../contract/index.js';

export const ApprovalDecisions = ['approved', 'rejected', 'timed-out'] as const;
export type ApprovalDecision = (typeof ApprovalDecisions)[number];

/** `steps[].approval`. */
export interface ApprovalRecord {
  decision: ApprovalDecision;
  /** Who decided (a GitHub login; locally, the local user); null when nobody did (timed out). */
  by: string | null;
  /** When (ISO 8601). */
  at: string;
  comment: string | null;
}

/** SendTaskSuccess's output: the approval step's result, the iteration's output. */
export interface ApprovedResult {
  step: string;
  status: 'succeeded';
  approval: ApprovalRecord;
}

export function approvedResult(step: string, by: string, at: Date, comment?: string): ApprovedResult {
  return { step, status: 'succeeded', approval: { decision: 'approved', by, at: at.toISOString(), comment: comment ?? null } };
}

/**
 * The approval ReportDecision reports, from AwaitApproval's result (`$.result`, the SendTaskSuccess
 * output the runner sent: approvedResult's); undefined for anything else, which no report then
 * claims to be a decision.
 */
export function approvedOf(result: unknown): ApprovedStepReport | undefined {
  const { step, approval } = (result ?? {}) as { step?: unknown; approval?: Partial<Record<keyof ApprovalRecord, unknown>> };
  if (typeof step !== 'string' || approval?.decision !== 'approved' || typeof approval.by !== 'string' || typeof approval.at !== 'string') return undefined;
  return { step, by: approval.by, at: approval.at, comment: typeof approval.comment === 'string' && approval.comment !== '' ? approval.comment : null };
}

/** SendTaskFailure's error and cause. */
export function rejection(step: string, by: string, at: Date, comment?: string): { error: typeof ErrorNames.ApprovalRejected; cause: string } {
  const said = comment !== undefined && comment !== '' ? `: ${comment}` : '.';
  return { error: ErrorNames.ApprovalRejected, cause: `Step ${JSON.stringify(step)} was rejected by ${by} at ${at.toISOString()}${said}` };
}

const REJECTED = /^Step "(?:[^"\\]|\\.)*" was rejected by (\S+) at (\S+?)(?:\.|: ([\s\S]*))$/;

/** The record of a decision, from the Error and Cause its step failed with; undefined for any other failure. */
export function approvalOfFailure(error: string | null | undefined, cause: string | null | undefined, at: string): ApprovalRecord | undefined {
  if (error === ErrorNames.ApprovalTimedOut) return { decision: 'timed-out', by: null, at, comment: null };
  if (error !== ErrorNames.ApprovalRejected) return undefined;
  const match = REJECTED.exec(cause ?? '');
  return match ? { decision: 'rejected', by: match[1]!, at: match[2]!, comment: match[3] ?? null } : { decision: 'rejected', by: null, at, comment: null };
}
