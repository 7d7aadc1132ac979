/**
 * `step-runner serve --example FILE --branch B --event E`: the example build serve starts (and
 * the page shows) decides its steps' `when` by them, as `run --branch/--event` does.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { run as serve } from '../lib/cli/commands/serve.js';
import { waitFor } from './fixtures/wait-for.js';

const PIPELINE = `version: 1
steps:
  - name: build
    image: alpine:3.20
    commands: [echo build]
  - name: deploy
    image: alpine:3.20
    commands: [echo deploy]
    when: {branch: production}
  - name: release
    image: alpine:3.20
    commands: [echo release]
    when: {event: tag}
`;

let repo: string;

beforeAll(async () => {
  repo = await mkdtemp(path.join(tmpdir(), 'serve-when-'));
  const git = (...args: string[]) => promisify(execFile)('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', ...args], { cwd: repo });
  await git('init', '-q', '-b', 'main');
  await writeFile(path.join(repo, 'ci.yml'), PIPELINE);
  await git('add', '.');
  await git('commit', '-q', '-m', 'pipeline');
});

afterAll(() => rm(repo, { recursive: true, force: true }));

test('the example build sees --branch and --event: a step for that branch runs, one for another event is skipped', async () => {
  const out: string[] = [];
  const err: string[] = [];
  let stop = (_signal: string) => {};
  const stopSignal = new Promise<string>((resolve) => (stop = resolve));
  const exited = serve(['--port', '0', '--example', path.join(repo, 'ci.yml'), '--source', repo, '--branch', 'production', '--event', 'push'], {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    stopSignal,
  });
  try {
    const page = await waitFor(() => out.map((line) => /^Example build .*: (http:\/\/\S+)$/.exec(line)?.[1]).find(Boolean), {
      timeoutMs: 30_000,
      intervalMs: 50,
      what: `the example build's address (printed: ${out.join('\n')} ${err.join('\n')})`,
    });
    const ended = await waitFor(
      async () => {
        const execution = (await (await fetch(page)).json()) as { status: string; steps: { name: string; status: string; reason?: string }[] };
        return execution.status !== 'RUNNING' && execution;
      },
      { timeoutMs: 45_000, intervalMs: 200, what: 'the example build to end' },
    );
    expect(ended.status).toBe('SUCCEEDED');
    expect(ended.steps.map((s) => [s.name, s.status, s.reason])).toEqual([
      ['clone', 'succeeded', undefined],
      ['build', 'succeeded', undefined],
      ['deploy', 'succeeded', undefined],
      ['release', 'skipped', 'event push is not tag'],
    ]);
    // The page lists the skipped step as one to select, with its reason.
    const html = await (await fetch(page, { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('data-step="skipped-2"');
    expect(html).toContain('Skipped: event push is not tag');
  } finally {
    stop('SIGINT');
  }
  expect(await exited).toBe(0);
  expect(err).toEqual([]);
}, 90_000);
