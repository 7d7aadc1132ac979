/**
 * `--runtime` and STEP_RUNNER_RUNTIME mistakes through the CLI's `main`, in-process: exit 2 with
 * the reason on stderr, before any cluster, socket probe or source snapshot (the unit guard would
 * fail a test that started one). The probe itself: test/docker-engine.integration.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../lib/cli/main.js';
import { capturedIO } from './fixtures/captured-io.js';

let dir: string;
let file: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cli-runtime-usage-'));
  file = join(dir, 'ci.yml');
  writeFileSync(file, 'version: 1\ncheckout: false\nsteps:\n  - {name: build, image: alpine:3.20, commands: [echo]}\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]) {
  const io = capturedIO();
  const code = await main(args, io);
  return { code, out: io.outLines, err: io.errLines };
}

describe.each([
  ['run', (...args: string[]) => ['run', file, ...args]],
  ['serve', (...args: string[]) => ['serve', ...args]],
  ['cluster', (...args: string[]) => ['cluster', ...args]],
])('step-runner %s', (command, argv) => {
  it('--runtime that is no runtime: exit 2, naming the runtimes there are, with the usage', async () => {
    const { code, out, err } = await cli(argv('--runtime', 'containerd'));
    expect({ code, out }).toEqual({ code: 2, out: [] });
    expect(err[0]).toBe(`step-runner ${command}: --runtime must be one of docker, process, got "containerd"`);
    expect(err[1]).toMatch(new RegExp(`^Usage: step-runner ${command} .*\\[--runtime docker\\|process\\]`));
  });

  it('a STEP_RUNNER_RUNTIME that is no runtime: exit 2 before anything starts, naming the variable', async () => {
    const before = process.env.STEP_RUNNER_RUNTIME;
    process.env.STEP_RUNNER_RUNTIME = 'fast';
    try {
      const { code, err } = await cli(argv());
      expect(code).toBe(2);
      expect(err[0]).toBe(`step-runner ${command}: STEP_RUNNER_RUNTIME must be one of docker, process, got "fast"`);
    } finally {
      if (before === undefined) delete process.env.STEP_RUNNER_RUNTIME;
      else process.env.STEP_RUNNER_RUNTIME = before;
    }
  });
});

test.each(['run', 'serve'])('%s --runtime with --kubeconfig: exit 2, naming both', async (command) => {
  const { code, err } = await cli([command, ...(command === 'run' ? [file] : []), '--runtime', 'docker', '--kubeconfig', join(dir, 'kubeconfig')]);
  expect(code).toBe(2);
  expect(err[0]).toMatch(/--runtime .*--kubeconfig/);
});
