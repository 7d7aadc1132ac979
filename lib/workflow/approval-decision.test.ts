/** A decision sent to Step Functions and read back from what the build keeps of it. */
import { approvalOfFailure, approvedOf, approvedResult, rejection } from './approval-decision.js';

const AT = new Date('2026-12-06T06:00:00.000Z');

describe('an approval decision', () => {
  it('approved: the step succeeds with the record', () => {
    expect(approvedResult('production', 'octocat', AT, 'ship it')).toEqual({
      step: 'production',
      status: 'succeeded',
      approval: { decision: 'approved', by: 'octocat', at: '2026-12-06T06:00:00.000Z', comment: 'ship it' },
    });
    expect(approvedResult('production', 'octocat', AT).approval.comment).toBeNull();
  });

  it.each([
    ['with a comment', 'not on a Friday: wait', 'Step "production" was rejected by octocat at 2026-12-06T06:00:00.000Z: not on a Friday: wait', 'not on a Friday: wait'],
    ['a comment of lines', 'no\nnot yet', 'Step "production" was rejected by octocat at 2026-12-06T06:00:00.000Z: no\nnot yet', 'no\nnot yet'],
    ['without one', undefined, 'Step "production" was rejected by octocat at 2026-12-06T06:00:00.000Z.', null],
  ])('rejected %s: a readable Cause, read back as the record', (_, comment, cause, kept) => {
    const sent = rejection('production', 'octocat', AT, comment);
    expect(sent).toEqual({ error: 'ApprovalRejected', cause });
    expect(approvalOfFailure(sent.error, sent.cause, 'later')).toEqual({ decision: 'rejected', by: 'octocat', at: '2026-12-06T06:00:00.000Z', comment: kept });
  });

  it.each([
    ['timed out: nobody, when it ended', 'ApprovalTimedOut', 'Nobody approved...', { decision: 'timed-out', by: null, at: 'END', comment: null }],
    ['another failure: none', 'StepFailed', 'exit 1', undefined],
    ['a rejection whose Cause is not ours: who is unknown', 'ApprovalRejected', 'rejected', { decision: 'rejected', by: null, at: 'END', comment: null }],
  ])('%s', (_, error, cause, expected) => {
    expect(approvalOfFailure(error, cause, 'END')).toEqual(expected);
  });

  it.each([
    ['what the runner sends, read back for ReportDecision', approvedResult('production', 'octocat', AT, 'ship it'), { step: 'production', by: 'octocat', at: '2026-12-06T06:00:00.000Z', comment: 'ship it' }],
    ['without a comment', approvedResult('production', 'octocat', AT), { step: 'production', by: 'octocat', at: '2026-12-06T06:00:00.000Z', comment: null }],
    ['an answer that is no approval (a step given to those that await it)', { approved: true }, undefined],
    ['a record with no one named', { step: 'production', approval: { decision: 'approved', by: null, at: 'T' } }, undefined],
    ['nothing', null, undefined],
  ])('approved: %s', (_, result, expected) => {
    expect(approvedOf(result)).toEqual(expected);
  });
});
