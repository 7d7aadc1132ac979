import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stepPodManifest } from './pod-manifest.js';
import { stepScript } from './step-script.js';
import { parseImageReference } from '../pipeline/index.js';

/** Runs the script the way the pod does: `/bin/sh -c <script>`. */
function run(commands: string[], cwd = tmpdir()) {
  const result = spawnSync('/bin/sh', ['-c', stepScript(commands)], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/home/somebody' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('stepScript', () => {
  const scratch: string[] = [];
  const scratchDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'step-script-'));
    scratch.push(dir);
    return dir;
  };
  afterAll(() => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('echoes each command before running it', () => {
    const { status, stdout } = run(['echo hello', 'echo world']);
    expect(status).toBe(0);
    expect(stdout).toBe('+ echo hello\nhello\n+ echo world\nworld\n');
  });

  it("shows the runner's own commands as what they do, and runs them whole", () => {
    const result = spawnSync('/bin/sh', ['-c', stepScript(['i=0; until [ $i -ge 2 ]; do i=$((i+1)); done; echo waited $i', 'echo done'], { shownAs: { 0: 'wait for the source' } })], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('+ wait for the source\nwaited 2\n+ echo done\ndone\n');
  });

  it('stops at the first failing command and exits with its code', () => {
    const { status, stdout } = run(['echo one', 'exit 7', 'echo never']);
    expect(status).toBe(7);
    expect(stdout).toBe('+ echo one\none\n+ exit 7\n');
  });

  it('keeps the exit code of a failing program, not just 1', () => {
    const { status, stdout } = run(['sh -c "exit 42"', 'echo never']);
    expect(status).toBe(42);
    expect(stdout).not.toContain('never');
  });

  it('fails on a command whose final status is non-zero even where set -e would not stop', () => {
    const { status, stdout } = run(['test -e /definitely/not/here && echo present', 'echo never']);
    expect(status).toBe(1);
    expect(stdout).not.toContain('never');
  });

  it('is not fooled by a command that ends with a comment', () => {
    const { status } = run(['false # expected to fail', 'echo never']);
    expect(status).toBe(1);
  });

  it('runs commands in one shell, so cd and export carry over', () => {
    const dir = scratchDir();
    writeFileSync(join(dir, 'marker.txt'), 'found\n');
    const { status, stdout } = run([`cd ${dir}`, 'export GREETING=hi', 'cat marker.txt', 'echo "$GREETING"']);
    expect(status).toBe(0);
    expect(stdout).toContain('found\n');
    expect(stdout).toContain('\nhi\n');
  });

  it('runs a multi-line command whole and stops inside it at a failing line', () => {
    const ok = run(['for i in 1 2; do\n  echo "n=$i"\ndone']);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toBe('+ for i in 1 2; do\n  echo "n=$i"\ndone\nn=1\nn=2\n');

    const failing = run(['echo first\nexit 3\necho second', 'echo never']);
    expect(failing.status).toBe(3);
    expect(failing.stdout).toBe('+ echo first\nexit 3\necho second\nfirst\n');
  });

  it('echoes quotes, $HOME, backticks and newlines literally while still running them', () => {
    const commands = [`echo 'it'"'"'s' "$HOME"`, 'echo `echo tick`', 'printf "%s\\n" "a\nb"'];
    const { status, stdout } = run(commands);
    expect(status).toBe(0);
    expect(stdout).toBe(
      [
        `+ echo 'it'"'"'s' "$HOME"`,
        `it's /home/somebody`,
        '+ echo `echo tick`',
        'tick',
        '+ printf "%s\\n" "a',
        'b"',
        'a',
        'b',
        '',
      ].join('\n'),
    );
  });

  it('echoes a command that would be dangerous if unquoted without running it twice', () => {
    const dir = scratchDir();
    const { status, stdout } = run(['echo x >> count.txt; cat count.txt'], dir);
    expect(status).toBe(0);
    expect(stdout).toBe('+ echo x >> count.txt; cat count.txt\nx\n');
  });

  it('prints the runner\'s notes first, as they are, in the step\'s own log', () => {
    const note = 'cache: this step runs without its cache: it\'s $HOME `x`';
    const result = spawnSync('/bin/sh', ['-c', stepScript(['echo hi'], { notes: [note] })], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    expect(result).toMatchObject({ status: 0, stdout: `${note}\n+ echo hi\nhi\n` });
  });

  it('succeeds with no commands', () => {
    expect(run([]).status).toBe(0);
  });
});

describe('the step pod\'s container command', () => {
  it('echoes and runs each command in order', () => {
    // Run here as the container would run it (with harmless commands): what it does, not what text it is.
    const step = { name: 'unit-tests', image: 'node:22-alpine', imageRef: parseImageReference('node:22-alpine'), commands: ['echo one', 'echo "two  spaces"'], env: {}, pull: 'if-not-present' as const, timeoutSeconds: 600, secrets: [] };
    const [shell, ...args] = stepPodManifest({ buildId: 'b1', step, namespace: 'ci' }).spec!.containers[0]!.command!;
    const result = spawnSync(shell!, args, { encoding: 'utf8' });
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 0, stdout: '+ echo one\none\n+ echo "two  spaces"\ntwo  spaces\n' });
  });
});
