import { containerArgv, expandReferences } from './container-command.js';

const image = { entrypoint: ['/entry.sh'], cmd: ['serve', '--port=80'] };

test.each([
  ['neither: the image entrypoint and cmd', {}, ['/entry.sh', 'serve', '--port=80']],
  ['command: replaces entrypoint and drops cmd', { command: ['/bin/sh', '-c', 'make'] }, ['/bin/sh', '-c', 'make']],
  ['args: replace cmd, keep entrypoint', { args: ['test'] }, ['/entry.sh', 'test']],
  ['command and args: both from the pod', { command: ['make'], args: ['test'] }, ['make', 'test']],
])('%s', (_case, container, expected) => {
  expect(containerArgv(container, image)).toEqual(expected);
});

test('an image without entrypoint or cmd and a container without command gives nothing to run', () => {
  expect(containerArgv({}, {})).toEqual([]);
  expect(containerArgv({ args: ['x'] }, {})).toEqual(['x']);
});

describe('$(VAR) expansion, as the kubelet does it in command, args and env values', () => {
  const variables = { CI: 'true', EMPTY: '', NESTED: '$(CI)' };
  test.each([
    ['a defined variable', 'echo $(CI)', 'echo true'],
    ['an undefined one stays as written', 'echo $(MISSING)', 'echo $(MISSING)'],
    ['a defined empty one', 'x$(EMPTY)y', 'xy'],
    ['$$ is a literal $', 'kill $$', 'kill $'],
    ['$$(VAR) is never expanded', 'echo $$(CI)', 'echo $(CI)'],
    ['doubled, a script reaches the shell as written', 'kill $$$$; echo $$(date)', 'kill $$; echo $(date)'],
    ['a lone $ and shell variables are kept', 'echo $HOME ${PATH} $', 'echo $HOME ${PATH} $'],
    ['an unterminated reference is kept', 'echo $(CI', 'echo $(CI'],
    ['a value is not expanded again', '$(NESTED)', '$(CI)'],
  ])('%s', (_case, input, expected) => {
    expect(expandReferences(input, variables)).toBe(expected);
  });
});
