import { describe, expect, it } from '@jest/globals';
import { endedOutside } from './ended-execution-rule.js';

const START = '2026-03-14T10:00:00.000Z';
const t = (seconds: number) => Date.parse(START) + seconds * 1000;
const NOW = t(99);

/** Histories as aws-local-stepfunctions reports their ends (dispatchExecutionAbortedEvent, dispatchExecutionTimeoutEvent), and what EventBridge would then be told. */
const cases: [string, boolean, { type: string; timestamp: number }[], ReturnType<typeof endedOutside>][] = [
  ['stopped: ABORTED at its ExecutionAborted', true, [{ type: 'ExecutionStarted', timestamp: t(0) }, { type: 'ExecutionAborted', timestamp: t(30) }], { status: 'ABORTED', startDate: t(0), stopDate: t(30) }],
  ['past its TimeoutSeconds: TIMED_OUT at its ExecutionTimeout', false, [{ type: 'ExecutionStarted', timestamp: t(0) }, { type: 'ExecutionTimeout', timestamp: t(60) }], { status: 'TIMED_OUT', startDate: t(0), stopDate: t(60) }],
  // A redrive's history holds the end it was redriven from: not this end's.
  ['a redrive stopped before its end was recorded: now', true, [{ type: 'ExecutionFailed', timestamp: t(20) }, { type: 'ExecutionRedriven', timestamp: t(40) }], { status: 'ABORTED', startDate: t(0), stopDate: NOW }],
  ['failed through its definition: no cleanup of its own', false, [{ type: 'ExecutionFailed', timestamp: t(20) }], undefined],
  ['succeeded', false, [{ type: 'ExecutionSucceeded', timestamp: t(20) }], undefined],
];

describe('endedOutside', () => {
  it.each(cases)('%s', (_name, aborted, history, expected) => {
    expect(endedOutside(aborted, history, START, () => NOW)).toEqual(expected);
  });
});
