import { NOT_ASKED_FOR, selectSteps, UnknownStep, type StepSelection } from './step-selection.js';
import type { NeedsOf } from './needs.js';

const step = (name: string, needs?: string[]): NeedsOf => (needs === undefined ? { name } : { name, needs });
const sequential = [step('deps'), step('build'), step('test'), step('deploy')];
const diamond = [step('deps', []), step('unit', ['deps']), step('lint', ['clone']), step('e2e', ['unit', 'lint']), step('docs', [])];

describe('choosing steps with --step', () => {
  test.each<[string, NeedsOf[], StepSelection, NeedsOf[]]>([
    ['without needs in the file, a step needs every step above it', sequential, { steps: ['test'], needs: true }, [step('deps'), step('build'), step('test')]],
    ['the first step needs nothing but the checkout', sequential, { steps: ['deps'], needs: true }, [step('deps')]],
    ['--no-needs keeps only the steps named, still one after another', sequential, { steps: ['deploy', 'build'], needs: false }, [step('build'), step('deploy')]],
    ['needs are followed transitively', diamond, { steps: ['e2e'], needs: true }, [step('deps', []), step('unit', ['deps']), step('lint', ['clone']), step('e2e', ['unit', 'lint'])]],
    ['a step that needs nothing brings nothing', diamond, { steps: ['docs'], needs: true }, [step('docs', [])]],
    ['--no-needs drops the needs left out, the checkout stays', diamond, { steps: ['e2e', 'lint'], needs: false }, [step('lint', ['clone']), step('e2e', ['lint'])]],
    [
      'a step without needs in a file with needs keeps waiting for the step above',
      [step('a', []), step('b', []), step('c')],
      { steps: ['c'], needs: true },
      [step('b', []), step('c', ['b'])],
    ],
    ['with --no-needs such a step no longer waits for it', [step('a', []), step('b', []), step('c')], { steps: ['c'], needs: false }, [step('c', [])]],
    ['a name given twice counts once', sequential, { steps: ['deps', 'deps'], needs: true }, [step('deps')]],
  ])('%s', (_, steps, selection, expected) => {
    expect(selectSteps(steps, selection).steps).toEqual(expected);
  });

  test('the steps left out are listed at their place in the file, with the reason', () => {
    const { kept, leftOut } = selectSteps(diamond, { steps: ['unit'], needs: true });
    expect(kept).toEqual([0, 1]);
    expect(leftOut).toEqual([
      { name: 'lint', index: 2, reason: NOT_ASKED_FOR },
      { name: 'e2e', index: 3, reason: NOT_ASKED_FOR },
      { name: 'docs', index: 4, reason: NOT_ASKED_FOR },
    ]);
  });

  test('a name that is no step is refused, naming the steps there are', () => {
    const choose = () => selectSteps(sequential, { steps: ['tset', 'nope'], needs: true });
    expect(choose).toThrow(UnknownStep);
    expect(choose).toThrow('no step is named "tset" (did you mean "test"?), "nope"; the steps are: deps, build, test, deploy');
  });
});
