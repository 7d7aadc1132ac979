import { types } from 'node:util';
import { plainCause } from '../../contract/lambda-error.js';
import { awaitRerun, InvalidAwaitRerunInput, UNNAMED_FAILURE } from './await-rerun.js';

const FAILURE = { Error: 'StepFailed', Cause: 'Step "test" exited with code 1\nLast lines of the log:\nnot ok 3 - adds\n  expected 4, got 5' };

/**
 * What Lambda's Node.js runtime hands Step Functions for a thrown error: its Error is errorType,
 * its Cause this JSON (aws-lambda-nodejs-runtime-interface-client src/Errors.js, toRapidResponse).
 */
function asLambdaReportsIt(thrown: unknown): { Error: string; Cause: string } {
  const error = thrown as Error;
  expect(types.isNativeError(error)).toBe(true);
  const payload = { errorType: error.name, errorMessage: error.message, trace: error.stack!.split('\n') };
  return { Error: payload.errorType, Cause: JSON.stringify(payload) };
}

function thrownBy(input: Parameters<typeof awaitRerun>[0]): unknown {
  try {
    awaitRerun(input);
  } catch (error) {
    return error;
  }
  throw new Error('awaitRerun returned');
}

describe('AwaitRerun', () => {
  it.each([
    { case: 'the first run', failedAt: 0, redrive: 0 },
    { case: 'a redrive that failed again', failedAt: 2, redrive: 2 },
  ])('fails $case with the build\'s own Error, and its Cause reads back as the build\'s', ({ failedAt, redrive }) => {
    const reported = asLambdaReportsIt(thrownBy({ failedAt, redrive, failure: FAILURE }));
    expect(reported.Error).toBe('StepFailed');
    expect(plainCause(reported.Cause)).toBe(FAILURE.Cause);
    // The trace is the one line that says where the JSON comes from.
    expect(JSON.parse(reported.Cause).trace).toEqual([expect.stringMatching(/^StepFailed: the build's failure, ended again by AwaitRerun/)]);
  });

  it.each([
    { case: 'the first redrive', failedAt: 0, redrive: 1 },
    { case: 'a redrive after one that failed again', failedAt: 1, redrive: 2 },
  ])('lets the build go on on $case', ({ failedAt, redrive }) => {
    expect(awaitRerun({ failedAt, redrive, failure: FAILURE })).toEqual({ redriven: redrive });
  });

  it('passes on any Error the build failed with, a service error\'s too, and a failure without a Cause', () => {
    expect(asLambdaReportsIt(thrownBy({ failedAt: 0, redrive: 0, failure: { Error: 'Lambda.Unknown', Cause: 'The cause could not be determined' } }))).toMatchObject({ Error: 'Lambda.Unknown' });
    const bare = asLambdaReportsIt(thrownBy({ failedAt: 0, redrive: 0, failure: {} }));
    expect({ error: bare.Error, cause: plainCause(bare.Cause) }).toEqual({ error: UNNAMED_FAILURE, cause: '' });
  });

  it('refuses Parameters that are not redrive counts, naming them', () => {
    expect(() => awaitRerun({ failedAt: undefined, redrive: 1, failure: FAILURE } as never)).toThrow(InvalidAwaitRerunInput);
    expect(() => awaitRerun({ failedAt: 0, redrive: '1', failure: FAILURE } as never)).toThrow(/failedAt and redrive must be redrive counts.*"redrive":"1"/);
  });
});

describe('plainCause', () => {
  it.each([
    ['a Fail state\'s text', 'Step "test" exited with code 1', 'Step "test" exited with code 1'],
    ['a task\'s error JSON', JSON.stringify({ errorType: 'InvalidPipeline', errorMessage: '.step-runner.yml line 6: bad', trace: ['at x'] }), '.step-runner.yml line 6: bad'],
    ['Lambda\'s timeout, its fields the other way round', JSON.stringify({ errorMessage: 'RequestId: 1 Error: Task timed out after 30.00 seconds', errorType: 'Sandbox.Timedout' }), 'RequestId: 1 Error: Task timed out after 30.00 seconds'],
    ['JSON that is no Lambda error', '{"step":"test"}', '{"step":"test"}'],
    ['text that only starts like JSON', '{not json', '{not json'],
  ])('reads %s', (_, cause, shown) => {
    expect(plainCause(cause)).toBe(shown);
  });
});
