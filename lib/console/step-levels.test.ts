import { describe, expect, it } from '@jest/globals';
import { needsLevels, usesNeeds, type LeveledStep } from './step-levels.js';

const names = (steps: LeveledStep[]) => needsLevels(steps).map((level) => level.map((position) => steps[position]!.name));

describe('needsLevels', () => {
  it('puts the steps that need the same steps side by side: a diamond after the checkout', () => {
    const steps: LeveledStep[] = [
      { name: 'clone' },
      { name: 'deps', needs: ['clone'] },
      { name: 'unit', needs: ['deps'] },
      { name: 'lint', needs: ['deps'] },
      { name: 'e2e', needs: ['unit', 'lint'] },
    ];
    expect(names(steps)).toEqual([['clone'], ['deps'], ['unit', 'lint'], ['e2e']]);
    expect(usesNeeds(steps)).toBe(true);
  });

  it('places a step by its longest chain of needs, not its shortest', () => {
    const steps: LeveledStep[] = [
      { name: 'clone' },
      { name: 'build', needs: ['clone'] },
      { name: 'docs', needs: ['clone'] },
      { name: 'test', needs: ['build'] },
      { name: 'package', needs: ['docs', 'test'] },
    ];
    expect(names(steps)).toEqual([['clone'], ['build', 'docs'], ['test'], ['package']]);
  });

  it('gives a sequential pipeline (no needs) one step per row, in its order', () => {
    const steps: LeveledStep[] = [{ name: 'clone' }, { name: 'a' }, { name: 'b' }, { name: 'c' }];
    expect(names(steps)).toEqual([['clone'], ['a'], ['b'], ['c']]);
    expect(usesNeeds(steps)).toBe(false);
  });

  it('draws a skipped step (no needs kept) after the entry above it, and needs: [] at the top', () => {
    const steps: LeveledStep[] = [
      { name: 'clone' },
      { name: 'build', needs: ['clone'] },
      { name: 'deploy' },
      { name: 'report', needs: ['build'] },
      { name: 'lonely', needs: [] },
    ];
    expect(names(steps)).toEqual([['clone', 'lonely'], ['build'], ['deploy', 'report']]);
  });

  it('counts unknown names as met and does not loop on a cycle', () => {
    const steps: LeveledStep[] = [
      { name: 'a', needs: ['b', 'gone'] },
      { name: 'b', needs: ['a'] },
      { name: 'c', needs: ['c'] },
    ];
    expect(needsLevels(steps).flat().sort()).toEqual([0, 1, 2]);
    expect(needsLevels([])).toEqual([]);
  });
});
