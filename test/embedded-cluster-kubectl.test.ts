/**
 * A real kubectl against the embedded cluster. It needs kubectl on PATH: CI installs Debian's
 * kubectl (.ci/run), and under CI=true a missing kubectl fails this test; on a developer machine
 * without it the test is skipped, with the reason printed.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/local/cluster/index.js';
import { describeRequiring } from './fixtures/requirements.js';
import { waitFor } from './fixtures/wait-for.js';

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

const kubectlOnPath = {
  present: hasKubectl,
  missing: 'kubectl is not on PATH',
  remedy: "Install Debian's kubectl package (apt-get install kubectl), as .ci/run does",
};

describeRequiring('kubectl', kubectlOnPath, () => {
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
    // The kubelet needs a moment to run one pod and fail the other's pull: wait for what kubectl
    // shows to get there (both statuses and the pull failure's event), then check it in full.
    const listing = await waitFor(
      async () => {
        const shown = await kubectl('get', 'pods,events');
        const settled = /pod\/hello\s+0\/1\s+Completed/.test(shown.stdout) && /pod\/nope\s+0\/1\s+(ErrImagePull|ImagePullBackOff)/.test(shown.stdout) && shown.stdout.includes('Failed to pull image "alpine:3.99-nope"');
        return settled && shown;
      },
      { timeoutMs: 15_000, intervalMs: 100, what: 'kubectl get pods,events to show hello Completed and nope failing its pull' },
    );
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
