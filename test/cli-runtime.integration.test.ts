/**
 * What the commands say first on the embedded cluster: in process mode, that steps are local
 * processes and not their images; in Docker mode, the runtime and its socket. In-process through
 * the CLI's `main`, with a stop signal that has already come (the command stops once it is up).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../lib/cli/main.js';
import type { CommandIO } from '../lib/cli/commands/cluster.js';
import { PROCESS_RUNTIME_NOTICE } from '../lib/emulators/kubernetes/runtime/runtime-choice.js';
import { dockerDaemonRequirement, dockerSocket } from './fixtures/docker/engine-api.js';
import { describeRequiring } from './fixtures/requirements.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cli-runtime-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIO = { out: (line) => void out.push(line), err: (line) => void err.push(line), stopSignal: Promise.resolve('SIGINT') };
  const code = await main(args, io);
  return { code, out, err };
}

test('cluster --runtime process: its first line says containers are local processes, not their images', async () => {
  const { code, out, err } = await cli(['cluster', '--runtime', 'process', '--kubeconfig-out', join(dir, 'kubeconfig')]);
  expect({ code, err }).toEqual({ code: 0, err: [] });
  expect(out[0]).toBe(PROCESS_RUNTIME_NOTICE);
  expect(out[1]).toMatch(/^Embedded Kubernetes API listening on http:/);
  expect(out.filter((line) => line === PROCESS_RUNTIME_NOTICE)).toHaveLength(1);
});

test('STEP_RUNNER_RUNTIME=process without a flag is process mode too', async () => {
  // The same value test/setup/runtime.ts gives every test, set here so that this test says it.
  const before = process.env.STEP_RUNNER_RUNTIME;
  process.env.STEP_RUNNER_RUNTIME = 'process';
  try {
    const { code, out } = await cli(['cluster', '--kubeconfig-out', join(dir, 'kubeconfig')]);
    expect(code).toBe(0);
    expect(out[0]).toBe(PROCESS_RUNTIME_NOTICE);
  } finally {
    if (before === undefined) delete process.env.STEP_RUNNER_RUNTIME;
    else process.env.STEP_RUNNER_RUNTIME = before;
  }
});

test('run --runtime process: the notice is the run\'s first line, before its source', async () => {
  const file = join(dir, 'ci.yml');
  writeFileSync(file, 'version: 1\ncheckout: false\nsteps:\n  - {name: build, image: alpine:3.20, commands: [echo built]}\n');
  const { code, out } = await cli(['run', file, '--runtime', 'process']);
  expect(out[0]).toBe(PROCESS_RUNTIME_NOTICE);
  expect(out[1]).toMatch(/^Source: /);
  expect(out.filter((line) => line.includes('not inside their images'))).toHaveLength(1);
  expect(code).toBe(0);
}, 30_000);

describeRequiring('on a machine with Docker', dockerDaemonRequirement(), () => {
  test('cluster --runtime docker: its first line names Docker and its socket', async () => {
    const { out } = await cli(['cluster', '--runtime', 'docker', '--kubeconfig-out', join(dir, 'kubeconfig')]);
    expect(out[0]).toBe(`Steps run in their images through Docker at ${dockerSocket()}.`);
    expect(out).not.toContain(PROCESS_RUNTIME_NOTICE);
  });
});
