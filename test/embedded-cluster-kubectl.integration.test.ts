/**
 * A real kubectl against the embedded cluster. It needs kubectl on PATH: CI installs Debian's
 * kubectl (.ci/run), and under CI=true a missing kubectl fails this test; on a developer machine
 * without it the test is skipped, with the reason printed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { KUBECTL_ON_PATH, kubectlIn } from './fixtures/kubectl.js';
import { describeRequiring } from './fixtures/requirements.js';
import { waitFor } from './fixtures/wait-for.js';


let cluster: EmbeddedCluster;
let dir: string;

const kubectl = kubectlIn(() => dir);

describeRequiring('kubectl', KUBECTL_ON_PATH, () => {
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

  test('get pvc and storageclass: a claim Pending until its first pod, then Bound; describe shows why; delete', async () => {
    writeFileSync(
      join(dir, 'workspace.yaml'),
      `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ws, labels: {step-runner.dev/build: "42"}}
spec: {accessModes: [ReadWriteOnce], storageClassName: gp2, resources: {requests: {storage: 10Gi}}}
`,
    );
    expect(await kubectl('create', '-f', join(dir, 'workspace.yaml'))).toMatchObject({ code: 0, stdout: 'persistentvolumeclaim/ws created\n' });
    const pending = await kubectl('get', 'pvc');
    expect(pending.stdout).toMatch(/^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE\nws\s+Pending\s+gp2\s+<unset>\s+\d+s\n$/);

    const described = await waitFor(
      async () => {
        const shown = await kubectl('describe', 'pvc', 'ws');
        return shown.stdout.includes('WaitForFirstConsumer') && shown;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'kubectl describe pvc to show the WaitForFirstConsumer event' },
    );
    expect(described.stdout).toMatch(/Status:\s+Pending/);
    expect(described.stdout).toMatch(/Normal\s+WaitForFirstConsumer\s+\S+\s+persistentvolume-controller\s+waiting for first consumer to be created before binding/);

    const pod = `apiVersion: v1
kind: Pod
metadata: {name: uses-ws}
spec:
  restartPolicy: Never
  volumes: [{name: workspace, persistentVolumeClaim: {claimName: ws}}]
  containers:
  - {name: step, image: alpine:3.20, workingDir: /workspace, volumeMounts: [{name: workspace, mountPath: /workspace}], command: [/bin/sh, -c, "echo hi > out.txt"]}
`;
    writeFileSync(join(dir, 'uses-ws.yaml'), pod);
    expect(await kubectl('create', '-f', join(dir, 'uses-ws.yaml'))).toMatchObject({ code: 0 });
    const bound = await waitFor(
      async () => {
        const shown = await kubectl('get', 'pvc', '-l', 'step-runner.dev/build=42');
        return /\sBound\s/.test(shown.stdout) && shown;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'kubectl get pvc to show the claim Bound' },
    );
    expect(bound.stdout).toMatch(/\nws\s+Bound\s+pvc-[0-9a-f-]{36}\s+10Gi\s+RWO\s+gp2\s+<unset>\s+\d+s\n$/);
    expect((await kubectl('get', 'pvc', 'ws', '-o', 'jsonpath={.metadata.annotations.volume\\.kubernetes\\.io/selected-node}')).stdout).toBe('embedded-node');

    const classes = await kubectl('get', 'storageclass');
    expect(classes.stdout).toMatch(/^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE\n/);
    expect(classes.stdout).toMatch(/\ngp2\s+ebs\.csi\.aws\.com\s+Delete\s+WaitForFirstConsumer\s+false\s+\d+s\n/);
    expect(classes.stdout).toMatch(/\nstandard \(default\)\s+step-runner\.dev\/host-path\s+Delete\s+WaitForFirstConsumer\s+false\s+\d+s\n/);
    expect((await kubectl('get', 'sc', 'gp3', '-o', 'jsonpath={.parameters.type}')).stdout).toBe('gp3');

    // The pod holds the claim: deleting the claim does not finish until the pod is gone.
    expect(await kubectl('delete', 'pvc', 'ws', '--wait=false')).toMatchObject({ code: 0, stdout: 'persistentvolumeclaim "ws" deleted\n' });
    expect((await kubectl('get', 'pvc', 'ws')).stdout).toMatch(/\nws\s+Terminating\s+pvc-/);
    expect(await kubectl('delete', 'pod', 'uses-ws')).toMatchObject({ code: 0 });
    await waitFor(async () => (await kubectl('get', 'pvc')).stderr.includes('No resources found in default namespace.'), {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the claim to go once its pod is deleted',
    });
  });

  // kubectl logs --previous reads the run the kubelet restarted after (lastState), as it does on a
  // node: a sidecar that exits the first time and sleeps the second (its runs counted in an emptyDir).
  test('logs --previous: the run before the restart, or the kubelet\'s refusal when there was none', async () => {
    writeFileSync(
      join(dir, 'restarted.yaml'),
      `apiVersion: v1
kind: Pod
metadata: {name: restarted}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  volumes: [{name: runs, emptyDir: {}}]
  initContainers:
  - name: side
    image: alpine:3.20
    restartPolicy: Always
    env: [{name: RUNS, value: /runs}]
    volumeMounts: [{name: runs, mountPath: /runs}]
    command: [/bin/sh, -c, 'echo x >> "$RUNS/n"; n=$(wc -l < "$RUNS/n"); echo "run $n"; [ "$n" -ge 2 ] && exec sleep 60; exit 3']
  containers:
  - {name: step, image: alpine:3.20, command: [/bin/sh, -c, "exec sleep 60"]}
`,
    );
    expect(await kubectl('create', '-f', join(dir, 'restarted.yaml'))).toMatchObject({ code: 0 });
    await waitFor(async () => (await kubectl('logs', 'restarted', '-c', 'side')).stdout.includes('run 2'), {
      timeoutMs: 15_000,
      intervalMs: 100,
      what: 'the sidecar to print its second run',
    });
    expect(await kubectl('logs', 'restarted', '-c', 'side', '--previous')).toMatchObject({ code: 0, stdout: 'run 1\n' });
    expect(await kubectl('logs', 'restarted', '-c', 'side')).toMatchObject({ code: 0, stdout: 'run 2\n' });
    const never = await kubectl('logs', 'restarted', '-c', 'step', '--previous');
    expect(never.code).not.toBe(0);
    expect(never.stderr).toBe('Error from server (BadRequest): previous terminated container "step" in pod "restarted" not found\n');
    expect(await kubectl('delete', 'pod', 'restarted')).toMatchObject({ code: 0 });
  });
});
