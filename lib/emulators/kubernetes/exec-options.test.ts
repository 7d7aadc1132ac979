import { execOptions, execStreams } from './exec-options.js';

describe('PodExecOptions from the query', () => {
  test('command repeats in order; the container is empty when not named', () => {
    expect(execOptions(new URLSearchParams('command=sh&command=-c&command=echo%20a%20b&stdout=true'))).toEqual({
      command: ['sh', '-c', 'echo a b'],
      container: '',
      stdin: false,
      stdout: true,
      stderr: false,
      tty: false,
    });
  });

  test.each([
    ['true', true],
    ['1', true],
    ['', true],
    ['yes', true],
    ['false', false],
    ['FALSE', false],
    ['0', false],
  ])('a flag given as %j is %s, as the apiserver converts it', (value, expected) => {
    expect(execOptions(new URLSearchParams({ stdin: value })).stdin).toBe(expected);
  });
});

describe('the streams the kubelet opens', () => {
  const options = { command: ['true'], container: 'c', stdin: false, stdout: false, stderr: false, tty: false };

  test('none asked for: the kubelet refuses', () => {
    expect(execStreams(options)).toEqual({ refusal: 'you must specify at least 1 of stdin, stdout, stderr' });
  });

  test('a tty has no stderr of its own', () => {
    expect(execStreams({ ...options, stdout: true, stderr: true, tty: true })).toEqual({ stdin: false, stdout: true, stderr: false, tty: true });
    expect(execStreams({ ...options, stderr: true, tty: true })).toEqual({ refusal: 'you must specify at least 1 of stdin, stdout, stderr' });
  });
});
