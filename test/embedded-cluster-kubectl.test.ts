/**
 * A real kubectl against the embedded cluster. Runs only where kubectl is on PATH (the suite never
 * depends on it); elsewhere these tests are reported as skipped.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/local/cluster/index.js';

const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
const run = promisify(execFile);

let cluster: EmbeddedCluster;
let dir: string;

async function kubectl(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir };
  try {
    const { stdout, stderr } = await run('kubectl', [`--cache-dir=${join(dir, 'cache')}`, ...args], { env, timeout: 20_000 });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

(hasKubectl ? describe : describe.skip)(hasKubectl ? 'kubectl' : 'kubectl (skipped: kubectl is not on PATH)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'step-runner-kubectl-'));
    cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS, workspace: dir });
    writeFileSync(join(dir, 'kubeconfig'), cluster.kubeconfigYaml());
  });
  afterAll(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('create, get pods,events, describe, logs, delete', async () => {
    writeFileSync(
      join(dir, 'pods.yaml'),
      `apiVersion: v1
kind: Pod
metadata: {name: hello}
spec:
  restartPolicy: Never
  containers:
  - {name: step, image: alpine:3.20, command: [/bin/sh, -c, "echo hello from kubectl"]}
---
apiVersion: v1
kind: Pod
metadata: {name: nope}
spec:
  restartPolicy: Never
  containers:
  - {name: step, image: alpine:3.99-nope, command: ["true"]}
`,
    );
    expect(await kubectl('create', '-f', join(dir, 'pods.yaml'))).toMatchObject({ code: 0, stdout: 'pod/hello created\npod/nope created\n' });
    await new Promise((r) => setTimeout(r, 300));

    const listing = await kubectl('get', 'pods,events');
    expect(listing.stdout).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\npod\/hello\s+0\/1\s+Completed\s+0\s+\S+\npod\/nope\s+0\/1\s+(ErrImagePull|ImagePullBackOff)\s+0/);
    expect(listing.stdout).toMatch(/LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
    expect(listing.stdout).toContain('Warning   Failed      pod/nope    Failed to pull image "alpine:3.99-nope": rpc error: code = NotFound');

    const described = await kubectl('describe', 'pod', 'nope');
    expect(described.stdout).toMatch(/Node:\s+embedded-node/);
    expect(described.stdout).toMatch(/Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default\/nope to embedded-node/);

    expect(await kubectl('logs', 'hello')).toMatchObject({ code: 0, stdout: 'hello from kubectl\n' });
    const noLogs = await kubectl('logs', 'nope');
    expect(noLogs.code).not.toBe(0);
    expect(noLogs.stderr).toMatch(/container "step" in pod "nope" is waiting to start/);

    expect(await kubectl('create', 'secret', 'generic', 'db', '--from-literal=password=s3cret')).toMatchObject({ code: 0 });
    expect((await kubectl('get', 'secret', 'db', '-o', 'jsonpath={.data.password}')).stdout).toBe(Buffer.from('s3cret').toString('base64'));

    expect(await kubectl('delete', 'pod', 'hello', 'nope')).toMatchObject({ code: 0 });
    expect((await kubectl('get', 'pods')).stderr).toContain('No resources found in default namespace.');
  });
});
