import { EXECUTION_TIME_LIMIT_SECONDS } from '../../pipeline/index.js';
import { stoppedBecause, type ExecutionStatusChange } from './cleanup-ended-execution.js';

const started = Date.parse('2026-12-01T09:00:00Z');
const detail = (fields: ExecutionStatusChange['detail']): ExecutionStatusChange => ({ 'detail-type': 'Step Functions Execution Status Change', detail: fields });

describe('why an execution ended outside the definition, as its commit status and trace say', () => {
  it.each([
    ['stopped by StopExecution, no reason', { status: 'ABORTED', error: null, cause: null }, { Error: 'ExecutionAborted', Cause: 'The execution was stopped before the build ended; its pods were deleted' }],
    ['superseded by a newer build', { status: 'ABORTED', error: 'Superseded', cause: 'Superseded by abc1234' }, { Error: 'Superseded', Cause: 'Superseded by abc1234' }],
    [
      'timed out, the event giving both dates: how long it ran',
      { status: 'TIMED_OUT', startDate: started, stopDate: started + EXECUTION_TIME_LIMIT_SECONDS * 1000 + 400 },
      {
        Error: 'ExecutionTimedOut',
        Cause: "The execution ran 192h, past the state machine's time limit, and Step Functions ended it; its pods were deleted. Its steps' and approvals' own timeouts should have ended it first: look at the step still running then",
      },
    ],
    ['timed out, no dates: the limit itself', { status: 'TIMED_OUT', startDate: null, stopDate: null }, { Error: 'ExecutionTimedOut', Cause: expect.stringMatching(/^The execution ran 192h, past/) }],
    ['failed with an error no Catch takes', { status: 'FAILED', error: 'States.DataLimitExceeded', cause: 'The state/task returned a result with a size exceeding the maximum' }, { Error: 'States.DataLimitExceeded', Cause: 'The state/task returned a result with a size exceeding the maximum' }],
    ['failed through the definition (its Catch reported)', { status: 'FAILED', error: 'StepFailed', cause: 'exited with 1' }, undefined],
    ['succeeded', { status: 'SUCCEEDED' }, undefined],
  ] as const)('%s', (_case, fields, expected) => {
    expect(stoppedBecause(detail(fields))).toEqual(expected);
  });

  it('a timed-out execution of a few seconds says so, not the 8 days', () => {
    expect(stoppedBecause(detail({ status: 'TIMED_OUT', startDate: started, stopDate: started + 4_200 }))?.Cause).toMatch(/^The execution ran 4s, past/);
  });
});
