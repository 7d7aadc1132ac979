/**
 * `run FILE --json` for a pipeline rejected before anything starts, in-process through the CLI's
 * `main`: stdout is the summary object alone, every problem is on stderr and in the JSON as a
 * list, and the exit code is 2. test/run-json-pipe.e2e.test.ts proves the same streams through
 * `npm start` for a build that runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../lib/cli/main.js';
import { capturedIO } from './fixtures/captured-io.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'run-json-rejected-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a rejected pipeline: every problem on stderr, and in the JSON as a list, exit 2', async () => {
  const file = join(dir, 'four.yml');
  writeFileSync(
    file,
    'version: 1\ncheckout: false\nsteps:\n  - name: Build\n    image: alpine:3.20\n    commands: [echo ok]\n    timeout: soon\n  - name: two\n    image: Alpine\n    commands: []\n',
  );
  const io = capturedIO();
  expect(await main(['run', file, '--json'], io)).toBe(2);
  expect(io.outLines).toHaveLength(1);
  const summary = JSON.parse(io.outLines[0]!) as { status: string; error: string; cause: string; name: null; problems: { line: number; step: string; field: string; message: string }[] };
  expect(summary).toMatchObject({ status: 'FAILED', error: 'InvalidPipeline', name: null });
  expect(summary.cause).toMatch(/\(and 3 more problems\)$/);
  expect(summary.problems.map(({ line, step, field }) => ({ line, step, field }))).toEqual([
    { line: 4, step: 'Build', field: 'name' },
    { line: 7, step: 'Build', field: 'timeout' },
    { line: 9, step: 'two', field: 'image' },
    { line: 10, step: 'two', field: 'commands' },
  ]);
  expect(io.errLines).toContain(`InvalidPipeline: ${summary.cause}`);
  for (const problem of summary.problems) expect(io.errLines).toContain(`  - ${problem.message}`);
});

test('a build step with the local process runtime: refused before anything starts, saying it needs Docker, exit 2', async () => {
  const file = join(dir, 'build.yml');
  writeFileSync(file, 'version: 1\ncheckout: false\nsteps:\n  - name: image\n    build: {push: false}\n');
  const io = capturedIO();
  expect(await main(['run', file, '--runtime', 'process', '--json'], io)).toBe(2);
  expect(JSON.parse(io.outLines[0]!)).toMatchObject({ status: 'FAILED', cause: 'step "image" builds an image, which needs Docker' });
  expect(io.errLines).toContain(
    'step-runner run: step "image" builds an image (build:), which needs Docker: its builder (buildah) runs as the step\'s container, and local processes cannot run it; start Docker (or give --runtime docker), or run it on a cluster with --kubeconfig',
  );
});
