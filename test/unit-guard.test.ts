/** The unit project keeps its promise: a unit test that reaches for a server or a process fails. */
import { execFile, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';

const MOVE_IT = /A unit test .*name the file \*\.integration\.test\.ts/;

describe('a unit test', () => {
  it('cannot start a server', () => {
    expect(() => createServer().listen(0)).toThrow(MOVE_IT);
  });

  it('cannot start a child process, synchronously or not', () => {
    expect(() => spawnSync('true')).toThrow(MOVE_IT);
    expect(() => execFile('true')).toThrow(MOVE_IT);
  });
});
