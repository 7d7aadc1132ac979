/** `step-runner cluster` as a user starts it: the launcher, flags, kubeconfig, and a clean stop. */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { parse } from 'yaml';
import { main } from '../lib/local/cli.js';

const launcher = join(process.cwd(), 'bin', 'step-runner.js');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'step-runner-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each([
  [['bogus'], /unknown command "bogus"[\s\S]*Usage: step-runner <command>/],
  [['cluster', '--bogus'], /Unknown option '--bogus'[\s\S]*Usage: step-runner cluster/],
  [['cluster', '--port', 'many'], /--port must be a port number, got "many"/],
])('step-runner %j exits 2 with usage', async (args, message) => {
  const errors: string[] = [];
  const spy = jest.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
  try {
    expect(await main(args)).toBe(2);
  } finally {
    spy.mockRestore();
  }
  expect(errors.join('\n')).toMatch(message);
});

test('the launcher runs the TypeScript CLI (usage, exit 2)', () => {
  const result = spawnSync(process.execPath, [launcher, 'bogus'], { encoding: 'utf8', timeout: 20_000 });
  expect(result.status).toBe(2);
  expect(result.stderr).toMatch(/Usage: step-runner <command>[\s\S]*run[\s\S]*cluster/);
});

test('with no command it runs the example build like the console shows it, then keeps serving the page', async () => {
  const child = spawn(process.execPath, [launcher], { cwd: dir, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    while (!/Execution (SUCCEEDED|FAILED)/.test(out)) {
      if (child.exitCode !== null) throw new Error(`exited early: ${out}${err}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(out).toContain('not inside their images');
    // The checkout of this repository first, then the example's steps working in it.
    expect(out).toMatch(/Example build source: .* at [0-9a-f]{7}/);
    expect(out).toMatch(/▶ \[1\/4\] clone[\s\S]*checked out [0-9a-f]{40}[\s\S]*▶ \[2\/4\] greet[\s\S]*│ Hello from step one[\s\S]*│ made by greet[\s\S]*✓ \[4\/4\] inspect succeeded/);
    expect(out).toMatch(/Execution SUCCEEDED in \d+\.\ds/);
    expect(out).not.toContain('"level"');
    const page = /Example build .*: (http:\/\/127\.0\.0\.1:\d+\/executions\/\S+)/.exec(out)?.[1];
    expect(page).toBeDefined();
    const html = await fetch(page!, { headers: { accept: 'text/html' } });
    expect(html.headers.get('content-type')).toContain('text/html');
    expect(await html.text()).toContain('SUCCEEDED');
  } finally {
    child.kill('SIGINT');
  }
  expect(await exited).toBe(0);
  expect(err).toBe('');
}, 60_000);

test('cluster serves the API, writes a kubeconfig, and stops cleanly on SIGINT', async () => {
  const kubeconfig = join(dir, 'nested', 'kubeconfig');
  const child = spawn(process.execPath, [launcher, 'cluster', '--kubeconfig-out', kubeconfig, '--workspace', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    while (!out.includes('Ctrl-C')) {
      if (child.exitCode !== null) throw new Error(`exited early: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    expect(url).toBeDefined();
    expect(out).toContain('not inside their images');
    expect(out).toContain(`export KUBECONFIG=${kubeconfig}`);
    const config = parse(readFileSync(kubeconfig, 'utf8')) as { clusters: { cluster: { server: string } }[]; 'current-context': string };
    expect(config.clusters[0]?.cluster.server).toBe(url);
    const version = (await (await fetch(`${url}/version`)).json()) as { major: string };
    expect(version.major).toBe('1');
  } finally {
    child.kill('SIGINT');
  }
  expect(await exited).toBe(0);
});
