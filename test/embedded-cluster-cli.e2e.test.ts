/**
 * The launcher (bin/step-runner.js) as a user starts it, once per command that serves: with no
 * command (`serve` with the example build) and `cluster`, each on its own stdout and stderr and
 * stopped by a real SIGINT with exit 0. Usage mistakes and their exit 2 are asserted in-process
 * (test/cli-help.test.ts): a spawn costs seconds and proves nothing more there.
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { waitFor } from './fixtures/wait-for.js';

const launcher = join(process.cwd(), 'bin', 'step-runner.js');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'step-runner-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The launcher started as a user starts it, with what it has written so far and its exit code. */
function launch(args: string[], options: SpawnOptions = {}) {
  const child = spawn(process.execPath, [launcher, ...args], { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { out: '', err: '' };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output.out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output.err += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

test('with no command it runs the example build like the console shows it, then keeps serving the page', async () => {
  // Process mode by the variable (with no command there is no flag to give): what the checks below read.
  // No log level, as a user's shell has none: the tests' SILENT (test/setup/quiet-handlers.ts) would
  // hide the handlers' JSON lines that the command itself must keep off the terminal.
  const { child, output, exited } = launch([], { cwd: dir, env: { ...process.env, PORT: '0', STEP_RUNNER_RUNTIME: 'process', POWERTOOLS_LOG_LEVEL: undefined } });
  try {
    const ended = await waitFor(() => (child.exitCode !== null ? 'exited' : /Execution (SUCCEEDED|FAILED)/.test(output.out)), { timeoutMs: 50_000, intervalMs: 100, what: 'the example build to end' });
    if (ended === 'exited') throw new Error(`exited early: ${output.out}${output.err}`);
    expect(output.out).toContain('not inside their images');
    // The checkout of this repository first, then the example's steps working in it.
    expect(output.out).toMatch(/Example build source: .* at [0-9a-f]{7}/);
    expect(output.out).toMatch(/▶ \[1\/4\] clone[\s\S]*checked out [0-9a-f]{40}[\s\S]*▶ \[2\/4\] greet[\s\S]*│ Hello from step one[\s\S]*│ made by greet[\s\S]*✓ \[4\/4\] inspect succeeded/);
    expect(output.out).toMatch(/Execution SUCCEEDED in \d+\.\ds/);
    expect(output.out).not.toContain('"level"');
    const page = /Example build .*: (http:\/\/127\.0\.0\.1:\d+\/executions\/\S+)/.exec(output.out)?.[1];
    expect(page).toBeDefined();
    const html = await fetch(page!, { headers: { accept: 'text/html' } });
    expect(html.headers.get('content-type')).toContain('text/html');
    expect(await html.text()).toContain('SUCCEEDED');
  } finally {
    child.kill('SIGINT');
  }
  expect(await exited).toBe(0);
  expect(output.err).toBe('');
}, 60_000);

test('cluster serves the API, writes a kubeconfig, and stops cleanly on SIGINT', async () => {
  const kubeconfig = join(dir, 'nested', 'kubeconfig');
  const { child, output, exited } = launch(['cluster', '--runtime', 'process', '--kubeconfig-out', kubeconfig, '--workspace', dir]);
  try {
    const ready = await waitFor(() => (child.exitCode !== null ? 'exited' : output.out.includes('Ctrl-C')), { timeoutMs: 20_000, intervalMs: 50, what: 'the cluster to say it is ready' });
    if (ready === 'exited') throw new Error(`exited early: ${output.out}${output.err}`);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output.out)?.[1];
    expect(url).toBeDefined();
    expect(output.out).toContain('not inside their images');
    expect(output.out).toContain(`export KUBECONFIG=${kubeconfig}`);
    const config = parse(readFileSync(kubeconfig, 'utf8')) as { clusters: { cluster: { server: string } }[]; 'current-context': string };
    expect(config.clusters[0]?.cluster.server).toBe(url);
    const version = (await (await fetch(`${url}/version`)).json()) as { major: string };
    expect(version.major).toBe('1');
  } finally {
    child.kill('SIGINT');
  }
  expect(await exited).toBe(0);
  expect(output.err).toBe('');
});
