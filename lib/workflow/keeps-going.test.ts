import { keepsFailedPod } from './keeps-going.js';

describe('the failed pods FinishFailedStep leaves to the cleanup', () => {
  it.each([
    ['a combination of a fail-fast: false matrix', { matrix: { of: 'test', values: { v: '1' }, failFast: false as const } }, true],
    ['a combination of a matrix that fails fast', { matrix: { of: 'test', values: { v: '1' } } }, false],
    ['a step of no matrix', {}, false],
  ])('%s: %s', (_, step, kept) => {
    expect(keepsFailedPod(step)).toBe(kept);
  });
});
