/**
 * The scripted form docs/local.md shows, exactly as a user types it: `npm start --silent -- run FILE
 * --json` (npm's banner off stdout), whose whole stdout is the summary object, so `| jq` reads it.
 * `run`'s one spawned smoke test (a spawn costs seconds; the aborts of
 * test/reliability-abort.e2e.test.ts need a real signal): the rest of its output is asserted
 * in-process, e.g. a rejected pipeline's in test/run-json-rejected.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'run-json-pipe-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function npmStartSilent(...args: string[]) {
  const { NODE_OPTIONS: _jest, ...env } = process.env;
  return spawnSync('npm', ['start', '--silent', '--', ...args], { cwd: process.cwd(), env, encoding: 'utf8', timeout: 60_000 });
}

test('npm start --silent -- run FILE --json: stdout is the summary object and nothing else', () => {
  const file = join(dir, 'hello.yml');
  writeFileSync(file, 'version: 1\ncheckout: false\nsteps:\n  - name: hi\n    image: alpine:3.20\n    commands: [echo hi]\n');
  const result = npmStartSilent('run', file, '--json');
  expect(result.stderr).toContain('Execution SUCCEEDED');
  const summary = JSON.parse(result.stdout) as Record<string, unknown>;
  expect(summary).toMatchObject({
    status: 'SUCCEEDED',
    error: null,
    problems: [],
    trigger: 'local run',
    name: expect.stringMatching(/^local-hello-/),
    executionArn: expect.stringMatching(/:execution:step-runner-local:local-hello-/),
    startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    stoppedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    steps: [{ name: 'hi', status: 'succeeded', exitCode: 0, error: null }],
  });
  expect(summary.executionArn).toBe(`arn:aws:states:local:000000000000:execution:step-runner-local:${String(summary.name)}`);
  expect(Date.parse(String(summary.stoppedAt))).toBeGreaterThanOrEqual(Date.parse(String(summary.startedAt)));
  expect(result.status).toBe(0);
}, 70_000);

test('docs/local.md shows that form, as this file runs it', () => {
  const readme = readFileSync(new URL('../docs/local.md', import.meta.url), 'utf8');
  expect(readme).toContain('npm start --silent -- run examples/missing-image.yml --json | jq');
});
