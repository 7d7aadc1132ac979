/**
 * A build of a real git repository, as a user tries one before committing: `run` checks the work
 * tree out as it is on disk into the build's workspace, every step works there and sees what the
 * steps before it wrote, and the user's repository is exactly as it was afterwards.
 * On the process runtime: the clone runs this machine's git, the steps this machine's shell.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api } from '@kubernetes/client-node';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { runBuild } from '../lib/cli/commands/run.js';
import { startLocalExecution, type ExecutionSummary } from '../lib/emulators/stepfunctions/executor.js';
import { kubeConfigFromFile } from '../lib/local/kube-config-file.js';
import { localSource } from '../lib/local/source/local-source.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { cleanupBuild } from '../lib/workflow/tasks/cleanup-build.js';
import { prepareBuild } from '../lib/workflow/tasks/prepare-build.js';
import type { WorkflowSettings } from '../lib/workflow/settings.js';
import { launchedPods } from './fixtures/launched-pods.js';

const run = promisify(execFile);
let root: string;
let repo: string;
let git: (...args: string[]) => Promise<string>;

const PIPELINE = `version: 1
steps:
  - name: read
    image: alpine:3.20
    commands:
      - cat committed.txt draft.txt
      - test ! -e local.env
      - echo "built from $CI_COMMIT_SHA" > artifact.txt
  - name: use
    image: busybox:1.37
    commands:
      - cat artifact.txt
      - test "$PWD" = "$CI_WORKSPACE"
`;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'checkout-'));
  repo = path.join(root, 'app');
  git = (...args: string[]) =>
    run('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', ...args], { cwd: repo }).then((r) => r.stdout);
  await run('git', ['init', '-q', '-b', 'main', repo]);
  await writeFile(path.join(repo, 'committed.txt'), 'committed line\n');
  await writeFile(path.join(repo, '.gitignore'), 'local.env\n');
  await writeFile(path.join(repo, '.step-runner.yml'), PIPELINE);
  await git('add', '.');
  await git('commit', '-q', '-m', 'first');
  // What a user has on disk before committing: an edit, a new file, and an ignored one.
  await writeFile(path.join(repo, 'committed.txt'), 'committed line, edited\n');
  await writeFile(path.join(repo, 'draft.txt'), 'not committed yet\n');
  await writeFile(path.join(repo, 'local.env'), 'TOKEN=never-shipped\n');
});
afterAll(() => rm(root, { recursive: true, force: true }));

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (line: string) => out.push(line), err: (line: string) => err.push(line) } };
}

describe('run on a git work tree', () => {
  it('checks out the work tree as it is on disk, shares the workspace between steps, and leaves the repository untouched', async () => {
    const statusBefore = await git('status', '--porcelain=v2', '--branch');
    const headBefore = await git('rev-parse', 'HEAD');
    const { out, err, io: streams } = io();
    const code = await runBuild({ file: path.join(repo, '.step-runner.yml'), json: true }, streams);
    const summary = JSON.parse(out.at(-1)!) as ExecutionSummary;

    expect({ code, status: summary.status, error: summary.error, cause: summary.cause }).toEqual({ code: 0, status: 'SUCCEEDED', error: null, cause: null });
    expect(summary.steps.map((s) => [s.name, s.status])).toEqual([
      ['clone', 'succeeded'],
      ['read', 'succeeded'],
      ['use', 'succeeded'],
    ]);
    const printed = err.join('\n');
    expect(printed).toMatch(/Source: .*app at [0-9a-f]{7} with uncommitted changes/);
    expect(printed).toContain('committed line, edited');
    expect(printed).toContain('not committed yet');
    expect(printed).toMatch(/built from [0-9a-f]{40}/);

    expect(await git('status', '--porcelain=v2', '--branch')).toBe(statusBefore);
    expect(await git('rev-parse', 'HEAD')).toBe(headBefore);
    expect((await readdir(repo)).sort()).toEqual(['.git', '.gitignore', '.step-runner.yml', 'committed.txt', 'draft.txt', 'local.env']);
  }, 60_000);

  it('builds the commit named by --commit instead of the work tree', async () => {
    const { out, io: streams } = io();
    const code = await runBuild({ file: path.join(repo, '.step-runner.yml'), commit: 'HEAD', json: true }, streams);
    const summary = JSON.parse(out.at(-1)!) as ExecutionSummary;
    // The committed tree has no draft.txt: the read step fails on it, as it would on EKS.
    expect({ code, status: summary.status, error: summary.error }).toEqual({ code: 1, status: 'FAILED', error: 'StepFailed' });
    expect(summary.cause).toContain('draft.txt');
    expect(summary.steps.map((s) => s.status)).toEqual(['succeeded', 'failed', 'not-run']);
  }, 60_000);
});

describe('the build workspace on the cluster', () => {
  let cluster: EmbeddedCluster;
  let api: CoreV1Api;
  let kubeconfig: string;

  beforeAll(async () => {
    cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS });
    kubeconfig = path.join(root, 'kubeconfig');
    await writeFile(kubeconfig, cluster.kubeconfigYaml());
    api = kubeConfigFromFile(kubeconfig).makeApiClient(CoreV1Api);
  });
  afterAll(() => cluster.stop());

  async function build(id: string, pipeline: string, settings: Partial<WorkflowSettings> = {}, commit?: string) {
    const found = await localSource(path.join(repo, '.step-runner.yml'));
    const source = commit && found.source ? { ...found, source: { ...found.source, commit } } : found;
    const launched = launchedPods(api, 'default');
    try {
      const execution = startLocalExecution(
        { build: { id, trigger: 'test', ...source.build }, pipeline: { file: '.step-runner.yml', text: pipeline }, ...(source.source ? { source: source.source } : {}) },
        {
          runtime: localTaskRuntime({ kubeconfig, namespace: 'default', logsDir: path.join(root, 'logs'), settings }),
          overrides: { waitMs: 50, retryMs: 10 },
          onEvent: launched.onEvent,
        },
      );
      const summary = await execution.result;
      const pods = await launched.pods();
      return {
        summary,
        pods,
        claims: pods.map((p) => p.spec?.volumes?.[0]?.persistentVolumeClaim?.claimName),
        nodes: pods.map((p) => p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchExpressions?.[0]?.values?.[0]),
      };
    } finally {
      await found.dispose();
    }
  }

  // A pod whose deletion was asked for may show as Terminating for a moment: it is not left behind.
  const leftOf = async (id: string) => ({
    pods: (await api.listNamespacedPod({ namespace: 'default', labelSelector: `step-runner.dev/build=${id}` })).items.filter((p) => !p.metadata?.deletionTimestamp).length,
    claims: (await api.listNamespacedPersistentVolumeClaim({ namespace: 'default', labelSelector: `step-runner.dev/build=${id}` })).items.length,
  });

  it('mounts one claim in every pod, pins later pods to the first pod\'s node, and deletes the claim after success', async () => {
    const { summary, claims, nodes } = await build('ws-success', PIPELINE);
    expect(summary.status).toBe('SUCCEEDED');
    expect(claims).toEqual(Array(3).fill(expect.stringMatching(/^ws-success-workspace-[0-9a-f]{8}$/)));
    expect(new Set(claims).size).toBe(1);
    // The clone's pod goes anywhere; the ones after it go where the volume went.
    expect(nodes[0]).toBeUndefined();
    expect(nodes.slice(1).every((node) => node !== undefined && node === nodes[1])).toBe(true);
    expect(await leftOf('ws-success')).toEqual({ pods: 0, claims: 0 });
  }, 60_000);

  it('hands a private repository\'s clone the token through a Secret of the build, deleted with the build', async () => {
    const runtime = localTaskRuntime({ kubeconfig, namespace: 'default', logsDir: path.join(root, 'logs') });
    const token = 'ghs_buildToken0123456789abcdef';
    const prepared = await prepareBuild(
      {
        build: { id: 'ws-private', trigger: 'github push' },
        pipeline: { file: '.step-runner.yml', text: PIPELINE },
        source: { url: 'https://github.com/team/private.git', commit: 'a'.repeat(40), credentials: 'github' },
      },
      runtime.settings,
      runtime.deps,
      { githubToken: token },
    );
    const [clone] = prepared.steps;
    expect(clone!.secrets).toEqual([{ env: 'GIT_TOKEN', secret: expect.stringMatching(/^ws-private-git-credentials-/), key: 'token' }]);
    expect(JSON.stringify(prepared)).not.toContain(token);
    const secret = await api.readNamespacedSecret({ namespace: 'default', name: clone!.secrets[0]!.secret });
    expect(Buffer.from(secret.data!.token!, 'base64').toString()).toBe(token);

    expect(await cleanupBuild({ build: prepared.build, namespace: 'default' }, 'default', runtime.deps)).toEqual({
      deletedPods: 0,
      deletedClaims: 1,
      deletedSecrets: 1,
    });
    const left = await api.listNamespacedSecret({ namespace: 'default', labelSelector: 'step-runner.dev/build=ws-private' });
    expect(left.items).toEqual([]);
  });

  it('keeps the claim of a failed build for a re-run of its failed steps, a day by default; deletes it when the deployment keeps none', async () => {
    const { summary } = await build('ws-failure', PIPELINE.replace('cat artifact.txt', 'exit 4'));
    expect(summary).toMatchObject({ status: 'FAILED', error: 'StepFailed' });
    expect(await leftOf('ws-failure')).toEqual({ pods: 0, claims: 1 });
    const [claim] = (await api.listNamespacedPersistentVolumeClaim({ namespace: 'default', labelSelector: 'step-runner.dev/build=ws-failure' })).items;
    expect(Number(claim?.metadata?.annotations?.['step-runner.dev/active-deadline-seconds'])).toBeGreaterThanOrEqual(86_400);

    const { summary: unkept } = await build('ws-failure-unkept', PIPELINE.replace('cat artifact.txt', 'exit 4'), { failedWorkspaceKeepSeconds: 0 });
    expect(unkept).toMatchObject({ status: 'FAILED', error: 'StepFailed' });
    expect(await leftOf('ws-failure-unkept')).toEqual({ pods: 0, claims: 0 });
  }, 60_000);

  describe('a cluster given by --kubeconfig, which cannot reach this machine', () => {
    it('sends the work tree into the clone\'s container through the API, and builds it as on the embedded cluster', async () => {
      const statusBefore = await git('status', '--porcelain=v2', '--branch');
      const { out, err, io: streams } = io();
      const code = await runBuild({ file: path.join(repo, '.step-runner.yml'), kubeconfig, json: true }, streams);
      const summary = JSON.parse(out.at(-1)!) as ExecutionSummary;

      expect({ code, status: summary.status, cause: summary.cause }).toEqual({ code: 0, status: 'SUCCEEDED', cause: null });
      expect(summary.steps.map((step) => step.name)).toEqual(['clone', 'read', 'use']);
      const printed = err.join('\n');
      expect(printed).toMatch(/Sent the source to pod local-step-runner-[\w-]+-clone-/);
      expect(printed).toContain('not committed yet');
      expect(await git('status', '--porcelain=v2', '--branch')).toBe(statusBefore);
    }, 60_000);

    it('leaves nothing of a failed build on the cluster; with --keep, its claim, and the kubectl command that deletes it', async () => {
      // In the work tree, for the checkout and its credentials; removed at the end.
      const failing = path.join(repo, 'failing.yml');
      await writeFile(failing, PIPELINE.replace('cat artifact.txt', 'exit 4'));
      try {
      // What the build made, by its label (the build id is printed in its first line).
      const left = async (printed: string[]) => {
        const build = /Execution (local-[\w-]+) /.exec(printed.join('\n'))?.[1];
        const selector = `step-runner.dev/build=${build}`;
        return {
          claims: (await api.listNamespacedPersistentVolumeClaim({ namespace: 'default', labelSelector: selector })).items.filter((c) => !c.metadata?.deletionTimestamp).length,
          secrets: (await api.listNamespacedSecret({ namespace: 'default', labelSelector: selector })).items.length,
        };
      };

      const plain = io();
      expect(await runBuild({ file: failing, kubeconfig }, plain.io)).toBe(1);
      expect(plain.out).toContain('  ✓ CleanupBuild: deleted 0 pod(s), its workspace claim');
      expect(plain.out.join('\n')).not.toMatch(/re-run|Kept on the cluster/i);
      expect(await left(plain.out)).toEqual({ claims: 0, secrets: 0 });

      const kept = io();
      expect(await runBuild({ file: failing, kubeconfig, keep: true }, kept.io)).toBe(1);
      expect(kept.out).toContain('  ✓ CleanupBuild: deleted 0 pod(s); kept its workspace claim');
      expect(kept.out.join('\n')).not.toContain('Re-run failed steps');
      // The source was sent through the API: no clone credentials, only the claim.
      expect(await left(kept.out)).toEqual({ claims: 1, secrets: 0 });
      const command = kept.out.at(-1)!.trim();
      expect(kept.out.at(-2)).toMatch(/^Kept on the cluster \(--keep\): workspace claim [\w-]+, for you to look at \(run cannot re-run the build/);
      expect(command).toMatch(/^kubectl --kubeconfig \S+ --namespace default delete pvc --selector '/);
      await run('sh', ['-c', command]);
      expect(await left(kept.out)).toEqual({ claims: 0, secrets: 0 });
      } finally {
        await rm(failing);
      }
    }, 90_000);

    it('sends it to every step\'s pod when each checks out for itself (ephemeral)', async () => {
      const { out, err, io: streams } = io();
      const code = await runBuild({ file: path.join(repo, '.step-runner.yml'), kubeconfig, workspaceMode: 'ephemeral', json: true }, streams);
      const summary = JSON.parse(out.at(-1)!) as ExecutionSummary;
      // The pipeline's second step reads what the first wrote: an ephemeral workspace loses it, as on Fargate.
      expect({ code, status: summary.status, error: summary.error }).toEqual({ code: 1, status: 'FAILED', error: 'StepFailed' });
      expect(summary.steps.map((step) => [step.name, step.status])).toEqual([
        ['read', 'succeeded'],
        ['use', 'failed'],
      ]);
      expect(err.filter((line) => line.startsWith('Sent the source to pod'))).toHaveLength(2);
      expect(summary.cause).toContain('artifact.txt');
    }, 60_000);
  });

  describe('ephemeral, as on Fargate', () => {
    const ephemeral = { workspaceMode: 'ephemeral' } as const;
    const SEPARATE = `version: 1
steps:
  - name: read
    image: alpine:3.20
    commands:
      - cat committed.txt draft.txt
      - echo made here > artifact.txt
  - name: use
    image: busybox:1.37
    commands:
      - cat committed.txt
      - test ! -e artifact.txt
`;

    it('checks out in each step pod, in an init container, on an emptyDir, with no claim and no clone step', async () => {
      const { summary, pods } = await build('eph-success', SEPARATE, ephemeral);
      expect({ status: summary.status, error: summary.error, cause: summary.cause }).toEqual({ status: 'SUCCEEDED', error: null, cause: null });
      expect(summary.steps.map((step) => [step.name, step.status])).toEqual([
        ['read', 'succeeded'],
        ['use', 'succeeded'],
      ]);
      for (const pod of pods) {
        expect(pod.spec?.volumes).toEqual([{ name: 'workspace', emptyDir: {} }]);
        expect(pod.spec?.initContainers?.map((c) => [c.name, c.image, c.workingDir])).toEqual([['clone', 'alpine/git:v2.54.0', '/workspace']]);
        expect(pod.spec?.affinity).toBeUndefined();
      }
      // The checkout's log comes first in the step's.
      const log = await readFile(path.join(root, 'logs', 'eph-success', 'read.log'), 'utf8');
      expect(log.indexOf('checked out')).toBeGreaterThanOrEqual(0);
      expect(log.indexOf('checked out')).toBeLessThan(log.indexOf('not committed yet'));
      expect(await leftOf('eph-success')).toEqual({ pods: 0, claims: 0 });
    }, 60_000);

    it('fails the step whose checkout fails as CheckoutFailed, naming it, with git\'s words', async () => {
      const { summary } = await build('eph-checkout', SEPARATE, ephemeral, 'b'.repeat(40));
      expect(summary).toMatchObject({ status: 'FAILED', error: 'CheckoutFailed' });
      expect(summary.cause).toContain('The checkout of step "read" (init container "clone") failed with exit code');
      expect(summary.cause).toMatch(/Last lines of the log:[\s\S]*(not our ref|remote ref|bbbbbbbb)/);
      expect(summary.steps.map((step) => step.status)).toEqual(['failed', 'not-run']);
      expect(await leftOf('eph-checkout')).toEqual({ pods: 0, claims: 0 });
    }, 60_000);

    it('fails at once when the clone image cannot be pulled, naming the init container and the image', async () => {
      const { summary } = await build('eph-pull', SEPARATE, { ...ephemeral, cloneImage: 'alpine/git:v0.0.0-nope', imageCheck: false });
      expect(summary).toMatchObject({ status: 'FAILED', error: 'ImagePullFailed' });
      expect(summary.cause).toContain('Step "read" could not start: the image "alpine/git:v0.0.0-nope" of its checkout (init container "clone") could not be pulled');
      expect(await leftOf('eph-pull')).toEqual({ pods: 0, claims: 0 });
    }, 60_000);
  });
});
