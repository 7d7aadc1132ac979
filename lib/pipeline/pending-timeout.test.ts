import { describe, expect, it } from '@jest/globals';
import { validatePipelineData } from './validate.js';

const step = (name: string, extra: Record<string, unknown> = {}) => ({ name, image: 'alpine:3.20', commands: ['true'], ...extra });

function parsed(data: Record<string, unknown>) {
  const result = validatePipelineData({ version: 1, ...data });
  if (!result.ok) throw new Error(result.problems.map((p) => p.message).join('; '));
  return result.pipeline;
}

describe('pending-timeout', () => {
  it('is the step\'s own, else the pipeline\'s, as a number of seconds', () => {
    const pipeline = parsed({ 'pending-timeout': '2m', steps: [step('a', { 'pending-timeout': '30s' }), step('b')] });
    expect(pipeline.steps.map((s) => s.pendingTimeoutSeconds)).toEqual([30, 120]);
    expect(pipeline.pendingTimeoutSeconds).toBe(120);
  });

  it('is absent when the file says none: the default bounds a stall but not a wait for capacity', () => {
    const pipeline = parsed({ steps: [step('a')] });
    expect(pipeline.steps[0]).not.toHaveProperty('pendingTimeoutSeconds');
    expect(pipeline).not.toHaveProperty('pendingTimeoutSeconds');
  });

  it.each([
    [{ 'pending-timeout': 0 }, '"0" is zero'],
    [{ 'pending-timeout': 'soon' }, 'is not a duration'],
  ])('refuses %p', (value, words) => {
    const result = validatePipelineData({ version: 1, ...value, steps: [step('a')] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([expect.objectContaining({ path: ['pending-timeout'], message: expect.stringContaining(words) })]);
  });
});
