import { InvalidPipeline } from './errors.js';
import { resolveNeeds, runOrder, runsSideBySide, type NeedsOf } from './needs.js';
import { parsePipeline } from './parse.js';

const step = (name: string, needs?: string[]): NeedsOf => (needs === undefined ? { name } : { name, needs });

describe('resolving needs', () => {
  test.each<[string, NeedsOf[], string | undefined, string[][]]>([
    ['no needs: one after another, the first after the checkout', [step('a'), step('b'), step('c')], 'clone', [['clone'], ['a'], ['b']]],
    ['no needs and no checkout', [step('a'), step('b')], undefined, [[], ['a']]],
    ['needs: [] starts with the build (after the checkout)', [step('a'), step('b', [])], 'clone', [['clone'], ['clone']]],
    ['a diamond', [step('deps'), step('unit', ['deps']), step('lint', ['deps']), step('e2e', ['unit', 'lint'])], 'clone', [['clone'], ['deps'], ['deps'], ['unit', 'lint']]],
    ['naming the checkout is the same as needing nothing else', [step('a', ['clone']), step('b', ['clone', 'a'])], 'clone', [['clone'], ['a']]],
    ['a step without needs after one with needs waits for the step above it', [step('a', []), step('b', []), step('c')], 'clone', [['clone'], ['clone'], ['b']]],
  ])('%s', (_, steps, checkout, expected) => {
    expect(resolveNeeds(steps, checkout)).toEqual(expected);
  });
});

describe('the order steps are handed to the Map in', () => {
  test.each<[string, NeedsOf[], string[]]>([
    ['the file\'s order when the needs allow it', [step('deps'), step('unit', ['deps']), step('lint', ['deps']), step('e2e', ['unit', 'lint'])], ['deps', 'unit', 'lint', 'e2e']],
    ['a step that needs one further down moves just below it', [step('report', ['test']), step('build', []), step('test', ['build'])], ['build', 'test', 'report']],
    ['independent steps keep their places', [step('a', []), step('b', []), step('c', [])], ['a', 'b', 'c']],
  ])('%s', (_, steps, expected) => {
    const order = runOrder(steps, resolveNeeds(steps));
    expect(order.map((index) => steps[index]!.name)).toEqual(expected);
  });

  test('only a file that says needs runs steps side by side', () => {
    expect(runsSideBySide([step('a'), step('b')])).toBe(false);
    expect(runsSideBySide([step('a'), step('b', ['a'])])).toBe(true);
  });
});

const pipeline = (steps: string) => `version: 1\ncheckout: false\nsteps:\n${steps}`;
const problemOf = (text: string) => {
  try {
    parsePipeline(text, 'ci.yml');
  } catch (error) {
    if (error instanceof InvalidPipeline) return error.message;
    throw error;
  }
  throw new Error('the pipeline was accepted');
};

describe('needs that cannot be met are refused, with the line', () => {
  test.each([
    [
      'an unknown name, with the closest one',
      pipeline('  - name: unit\n    image: alpine\n    commands: [echo]\n  - name: e2e\n    image: alpine\n    commands: [echo]\n    needs: [unti]\n'),
      'ci.yml line 10: step "e2e": needs[0]: no step is named "unti" (did you mean "unit"?)',
    ],
    [
      'a step needing itself',
      pipeline('  - name: unit\n    image: alpine\n    commands: [echo]\n    needs: [unit]\n'),
      'ci.yml line 7: step "unit": needs[0]: "unit" is this step itself: a step cannot wait for itself',
    ],
    [
      'a name listed twice',
      pipeline('  - name: a\n    image: alpine\n    commands: [echo]\n  - name: b\n    image: alpine\n    commands: [echo]\n    needs: [a, a]\n'),
      'ci.yml line 10: step "b": needs[1]: "a" is listed twice',
    ],
    [
      'a cycle, spelled out',
      pipeline(
        '  - name: a\n    image: alpine\n    commands: [echo]\n    needs: [c]\n' +
          '  - name: b\n    image: alpine\n    commands: [echo]\n    needs: [a]\n' +
          '  - name: c\n    image: alpine\n    commands: [echo]\n    needs: [b]\n',
      ),
      'ci.yml line 7: step "a": needs: the steps wait for each other in a circle, so none of them could start: "a" needs "c", "c" needs "b", "b" needs "a"',
    ],
    [
      'a cycle through a step without needs',
      pipeline('  - name: a\n    image: alpine\n    commands: [echo]\n    needs: [b]\n  - name: b\n    image: alpine\n    commands: [echo]\n'),
      'ci.yml line 7: step "a": needs: the steps wait for each other in a circle, so none of them could start: "a" needs "b", "b" comes after "a" (no needs: the step above it)',
    ],
    [
      'needs that is not a list of names',
      pipeline('  - name: a\n    image: alpine\n    commands: [echo]\n    needs: {b: 1}\n'),
      'ci.yml line 7: step "a": needs: must be a list of step names (or [] to start with the build), not a map',
    ],
    [
      'needs on a step that runs after a failure',
      pipeline('  - name: a\n    image: alpine\n    commands: [echo]\n  - name: report\n    image: alpine\n    commands: [echo]\n    needs: [a]\n    when: {status: [failure]}\n'),
      'ci.yml line 10: step "report": needs: a step with "when: {status: [failure]}" runs once the build has failed, after the steps before it of that kind, so it takes no needs',
    ],
    [
      'a step that needs one that runs after a failure',
      pipeline('  - name: report\n    image: alpine\n    commands: [echo]\n    when: {status: failure}\n  - name: b\n    image: alpine\n    commands: [echo]\n    needs: [report]\n'),
      'ci.yml line 11: step "b": needs[0]: "report" runs only after the build has failed ("when: {status: [failure]}"), so no step can wait for it',
    ],
    [
      'max-parallel of 0',
      'version: 1\ncheckout: false\nmax-parallel: 0\nsteps:\n  - name: a\n    image: alpine\n    commands: [echo]\n',
      'ci.yml line 3: max-parallel: must be 1 or more',
    ],
  ])('%s', (_, text, message) => {
    expect(problemOf(text)).toBe(message);
  });

  test('a single name is a list of one, and the checkout may be named', () => {
    const parsed = parsePipeline(
      'version: 1\nmax-parallel: 2\nsteps:\n  - name: a\n    image: alpine\n    commands: [echo]\n    needs: clone\n  - name: b\n    image: alpine\n    commands: [echo]\n    needs: a\n',
      'ci.yml',
    );
    expect(parsed.steps.map((s) => s.needs)).toEqual([['clone'], ['a']]);
    expect(parsed.maxParallel).toBe(2);
  });
});
