import { describe, expect, it } from '@jest/globals';
import { isNamedWait, pollOutcome } from './poll-words.js';

describe('how a poll reads in the run\'s output and on the console page', () => {
  it.each([
    [{ phase: 'pending', reason: 'WaitingForNode' }, 'waiting for a node', true],
    [{ phase: 'pending', reason: 'WaitingForCapacity' }, 'waiting for capacity', true],
    [{ phase: 'pending', reason: 'Unschedulable' }, 'pending (Unschedulable)', false],
    [{ phase: 'running', reason: 'Running' }, 'running (Running)', false],
  ] as const)('%p reads %p', (poll, words, named) => {
    expect(pollOutcome(poll)).toBe(words);
    expect(isNamedWait(poll)).toBe(named);
  });
});
