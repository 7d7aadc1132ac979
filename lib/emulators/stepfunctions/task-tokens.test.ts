/**
 * The task tokens' answers, as SendTaskSuccess and SendTaskFailure give them (task-tokens.ts cites
 * the API Reference): what a waiting task ends with, and the error of each call that cannot be made.
 */
import { TaskTokens, type TaskOutcome } from './task-tokens.js';

const ARN = 'arn:aws:states:local:000000000000:execution:build:b1';

describe('a waiting task', () => {
  it.each<[string, (tokens: TaskTokens, token: string) => void, TaskOutcome]>([
    ['SendTaskSuccess: its output, parsed', (tokens, token) => tokens.sendTaskSuccess(token, '{"decision":"approved"}'), { output: { decision: 'approved' } }],
    ['SendTaskFailure: its error and cause', (tokens, token) => tokens.sendTaskFailure(token, 'ApprovalRejected', 'no'), { error: 'ApprovalRejected', cause: 'no' }],
    ['SendTaskFailure without either: empty ones', (tokens, token) => tokens.sendTaskFailure(token), { error: '', cause: '' }],
    ['its execution ended', (tokens) => tokens.closeExecution(ARN), { closed: true }],
  ])('%s', async (_, answer, expected) => {
    const tokens = new TaskTokens();
    const { token, outcome } = tokens.issue(ARN);
    answer(tokens, token);
    await expect(outcome).resolves.toEqual(expected);
  });

  it('has a token of its own each time', () => {
    const tokens = new TaskTokens();
    expect(tokens.issue(ARN).token).not.toBe(tokens.issue(ARN).token);
  });
});

describe('an answer that cannot be given', () => {
  it.each<[string, (tokens: TaskTokens, token: string) => void, string]>([
    ['a token never issued: InvalidToken', (tokens) => tokens.sendTaskSuccess('made-up', '{}'), 'InvalidToken'],
    ['output that is not JSON: InvalidOutput', (tokens, token) => tokens.sendTaskSuccess(token, 'approved'), 'InvalidOutput'],
    ['a task answered already: TaskTimedOut', (tokens, token) => (tokens.sendTaskSuccess(token, '{}'), tokens.sendTaskFailure(token, 'ApprovalRejected')), 'TaskTimedOut'],
    ['a task past its timeout: TaskTimedOut', (tokens, token) => (tokens.expire(token), tokens.sendTaskSuccess(token, '{}')), 'TaskTimedOut'],
    ['a task whose execution ended: TaskTimedOut', (tokens, token) => (tokens.closeExecution(ARN), tokens.sendTaskSuccess(token, '{}')), 'TaskTimedOut'],
  ])('%s', (_, answer, name) => {
    const tokens = new TaskTokens();
    const { token } = tokens.issue(ARN);
    expect(() => answer(tokens, token)).toThrow(expect.objectContaining({ name }) as Error);
  });

  it("leaves another execution's tasks waiting", async () => {
    const tokens = new TaskTokens();
    const other = tokens.issue(`${ARN}-2`);
    tokens.closeExecution(ARN);
    tokens.sendTaskSuccess(other.token, '1');
    await expect(other.outcome).resolves.toEqual({ output: 1 });
  });
});
