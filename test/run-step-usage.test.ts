/**
 * `run --step` mistakes, in-process: refused with exit 2 before anything starts (no cluster, no
 * source snapshot: the unit guard would fail a test that started either).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../lib/cli/main.js';
import { capturedIO } from './fixtures/captured-io.js';

let dir: string;
let file: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'run-step-usage-'));
  file = join(dir, 'ci.yml');
  writeFileSync(file, 'version: 1\nsteps:\n  - {name: build, image: alpine:3.20, commands: [echo]}\n  - {name: test, image: alpine:3.20, commands: [echo]}\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a --step that is no step of the file: exit 2, naming the steps there are', async () => {
  const io = capturedIO();
  expect(await main(['run', file, '--step', 'tests', '--json'], io)).toBe(2);
  expect(io.errLines).toEqual(['step-runner run: --step: no step is named "tests" (did you mean "test"?); the steps are: build, test']);
  expect(JSON.parse(io.outLines.at(-1)!)).toMatchObject({ status: 'FAILED', name: null, steps: [] });
});

test('--no-needs without --step: exit 2', async () => {
  const io = capturedIO();
  expect(await main(['run', file, '--no-needs'], io)).toBe(2);
  expect(io.errLines[0]).toBe('step-runner run: --no-needs goes with --step NAME');
});

test('an approval step, which run has no server to decide: exit 2, unless --step leaves it out', async () => {
  const approvals = join(dir, 'approvals.yml');
  writeFileSync(approvals, 'version: 1\nsteps:\n  - {name: build, image: alpine:3.20, commands: [echo]}\n  - {name: production, approval: {}}\n');
  const io = capturedIO();
  expect(await main(['run', approvals], io)).toBe(2);
  expect(io.errLines).toEqual([
    'step-runner run: step "production" is an approval step, and run has no server to approve it through: build this pipeline with step-runner serve (then step-runner approve), or leave the step out with --step',
  ]);
  expect(await main(['run', approvals, '--step', 'production', '--no-needs', '--json'], capturedIO())).toBe(2);
});
