import { describe, expect, it } from '@jest/globals';
import { rerunName } from './rerun-name.js';

describe('rerunName', () => {
  it('numbers re-runs of one original, a re-run of a re-run included', () => {
    const taken = new Set(['gh-app-1', 'gh-app-1-rerun-1']);
    expect(rerunName('gh-app-1', (n) => taken.has(n))).toBe('gh-app-1-rerun-2');
    expect(rerunName('gh-app-1-rerun-1', (n) => taken.has(n))).toBe('gh-app-1-rerun-2');
  });

  it('stays within Step Functions\' 80 characters', () => {
    const long = 'x'.repeat(80);
    const name = rerunName(long, () => false);
    expect(name).toHaveLength(80);
    expect(name.endsWith('-rerun-1')).toBe(true);
  });
});
