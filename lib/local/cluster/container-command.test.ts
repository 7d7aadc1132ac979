import { containerArgv } from './container-command.js';

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
