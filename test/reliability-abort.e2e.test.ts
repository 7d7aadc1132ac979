/**
 * Ctrl-C and a polite kill of the real CLI: `node bin/step-runner.js run FILE --kubeconfig K`
 * against an embedded cluster of this test, with a step that would run for a minute. Once its
 * pod runs, SIGINT (or SIGTERM) must abort the execution, delete the pod and the build's workspace
 * claim, and exit 1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';

const BIN = fileURLToPath(new URL('../bin/step-runner.js', import.meta.url));
const NAMESPACE = 'default';

let cluster: EmbeddedCluster;
let api: CoreV1Api;
let scratch: string;
let kubeconfig: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'reliability-abort-'));
  cluster = await startEmbeddedCluster({ workspace: scratch, timings: FAST_TIMINGS });
  kubeconfig = path.join(scratch, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  api = kubeConfigFromFile(kubeconfig).makeApiClient(CoreV1Api);
  await writeFile(
    path.join(scratch, 'long.yml'),
    'version: 1\nsteps:\n  - name: long\n    image: alpine:3.20\n    commands: ["echo started", "sleep 60", "echo never"]\n  - name: after\n    image: alpine:3.20\n    commands: ["echo never"]\n',
  );
});

afterAll(async () => {
  await cluster.stop();
  await rm(scratch, { recursive: true, force: true });
});

async function runnerPods(): Promise<V1Pod[]> {
  const list = await api.listNamespacedPod({ namespace: NAMESPACE, labelSelector: 'app.kubernetes.io/managed-by=serverless-step-runner' });
  return list.items;
}

async function runnerClaims(): Promise<string[]> {
  const list = await api.listNamespacedPersistentVolumeClaim({ namespace: NAMESPACE, labelSelector: 'app.kubernetes.io/managed-by=serverless-step-runner' });
  return list.items.map((c) => c.metadata!.name!);
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** The exit code, or 'hung' after `ms`; the timer goes with the answer, so it holds the test run open no longer. */
async function exitWithin(exited: Promise<number | null>, ms: number): Promise<number | null | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), ms)));
  try {
    return await Promise.race([exited, hung]);
  } finally {
    clearTimeout(timer);
  }
}

describe.each(['SIGINT', 'SIGTERM'] as const)('step-runner run, sent %s while a step runs', (signal) => {
  it('aborts, deletes the pod and the workspace claim, and exits 1', async () => {
    const { NODE_OPTIONS: _ignored, ...env } = process.env;
    const child = spawn(process.execPath, [BIN, 'run', path.join(scratch, 'long.yml'), '--kubeconfig', kubeconfig, '--json'], {
      cwd: scratch,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = exitOf(child);
    try {
      const pod = await waitFor(
        'the step pod to run',
        async () => (await runnerPods()).find((p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp),
        20_000,
      );
      expect(pod.metadata?.annotations?.['step-runner.dev/step-name']).toBe('long');
      expect(await runnerClaims()).toHaveLength(1);

      child.kill(signal);
      const code = await exitWithin(exited, 15_000);
      expect({ code, stderr: code === 1 ? '' : stderr }).toEqual({ code: 1, stderr: '' });
      const summary = JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; steps: { name: string; status: string }[] };
      expect(summary.status).toBe('ABORTED');
      // The console lines say it once; the CLI adds only what the cleanup did.
      expect(stderr.match(/Execution ABORTED/g)).toHaveLength(1);
      expect(stderr).toContain('Its pods and workspace claim were deleted.');
      expect(summary.steps.map((s) => s.status)).toEqual(['aborted', 'not-run']);

      // Deleted pods stay Terminating for a moment; then nothing of the build is left.
      const left = await waitFor('the pods to go', async () => ((await runnerPods()).length === 0 ? [] : undefined), 5_000).catch(
        async () => (await runnerPods()).map((p) => p.metadata?.name),
      );
      expect(left).toEqual([]);
      // The build's workspace goes with its pods (it lingers while a pod still names it).
      const claimsLeft = await waitFor('the workspace claim to go', async () => ((await runnerClaims()).length === 0 ? [] : undefined), 5_000).catch(
        runnerClaims,
      );
      expect(claimsLeft).toEqual([]);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    }
  }, 45_000);
});
