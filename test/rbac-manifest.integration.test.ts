/**
 * deploy/rbac.yaml grants exactly what the runner uses: builds run through the real definition on
 * the embedded cluster while every API request is recorded (the cluster's `faults` hook sees each
 * one and lets it through), the permission each request needs is derived as the apiserver's RBAC
 * would (fixtures/rbac-permissions.ts), and the set is compared with the manifest's Role both ways.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_DEADLINE_ANNOTATION, ensureGitCredentials, gitCredentialsManifest, gitTokenExpiry, Labels, MANAGED_BY, pullSecretsReader, renewGitCredentials } from '../lib/kube/index.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import type { WorkflowSettings } from '../lib/workflow/settings.js';
import { cleanupOrphans } from '../lib/workflow/tasks/cleanup-orphans.js';
import { localBuildsForFile } from './fixtures/local-builds.js';
import { grantedPermissions, requiredPermission, roleBindings, type Permission, type RecordedRequest } from './fixtures/rbac-permissions.js';

const MANIFEST = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));
const NAMESPACE = 'default';
const MISSING_IMAGE = 'registry.example.test/ci/not-there:1';

/** Which request needed which permission: the first of each is kept, to name it when one is refused. */
const used = new Map<Permission, RecordedRequest>();
/** Off while the test itself sets the scene (its Secrets, the orphans), which the runner never does. */
let recording = true;

/** The deployment's settings for the next build. */
let settings: Partial<WorkflowSettings> = {};

const builds = localBuildsForFile({
  prefix: 'rbac-manifest',
  repository: true,
  // The image check would refuse the missing image before any pod exists; the kubelet's pull failure is the path wanted.
  settings: () => ({ imageCheck: false, imagePullGraceSeconds: 1, ...settings }),
  faults: (request) => {
    if (recording) {
      const needed = requiredPermission(request);
      if (!used.has(needed)) used.set(needed, { ...request, query: new URLSearchParams(request.query) });
    }
    return undefined;
  },
});

/** The runner's own client of the cluster, as each task gets it (localTaskRuntime, as `run` builds it). */
const runnerDeps = (now: () => Date = () => new Date()) => {
  const { deps } = localTaskRuntime({ kubeconfig: path.join(builds.root, 'kubeconfig'), namespace: NAMESPACE, logsDir: path.join(builds.root, 'logs') });
  return { ...deps, now };
};

async function unrecorded<T>(setup: () => Promise<T>): Promise<T> {
  recording = false;
  try {
    return await setup();
  } finally {
    recording = true;
  }
}

const runnerLabels = { [Labels.managedBy]: MANAGED_BY, [Labels.build]: 'rbac-orphan' };

beforeAll(async () => {
  // The builds' runs, each along the paths a deployed build takes: see the comment on each.
  await unrecorded(() => builds.api.createNamespacedSecret({ namespace: NAMESPACE, body: { metadata: { name: 'ci-db' }, stringData: { password: 'hunter22' } } }));

  // Checkout into a workspace claim, steps one after another and side by side (WaitForNeeds),
  // a step's `secrets:` (read back to mask them), a service, and steps after a failure.
  const plain = await builds.build(
    'rbac-plain',
    `version: 1
steps:
  - name: first
    image: alpine:3.20
    commands: ["echo first $DB_PASSWORD"]
    secrets:
      - { env: DB_PASSWORD, secret: ci-db, key: password }
  - name: second
    image: alpine:3.20
    needs: [first]
    commands: ["echo second"]
  - name: third
    image: alpine:3.20
    needs: [first]
    commands: ["echo third"]
`,
  );
  // A pull that fails: PollStep reads the pod's events to say why.
  expect(plain.summary.status).toBe('SUCCEEDED');
  const missing = await builds.build('rbac-missing-image', `version: 1\ncheckout: false\nsteps:\n  - name: pull\n    image: ${MISSING_IMAGE}\n    commands: ["true"]\n`);
  expect(missing.summary).toMatchObject({ status: 'FAILED', error: 'ImagePullFailed' });
  // A failing step with services, and a step that runs after the failure.
  const services = await builds.build(
    'rbac-services',
    `version: 1
checkout: false
steps:
  - name: test
    image: alpine:3.20
    commands: ["echo testing", "exit 3"]
    services:
      - name: cache
        image: alpine:3.20
        commands: ["sleep 30"]
  - name: report
    image: alpine:3.20
    when: failure
    commands: ["echo reporting"]
`,
  );

  expect(services.summary.status).toBe('FAILED');
  // PollStep without a watch, as for a step past runningWatchUntilSeconds (or a deployment with
  // pendingWatchSeconds 0): it reads the pod.
  settings = { pendingWatchSeconds: 0, runningWatchUntilSeconds: 0 };
  const unwatched = await builds.build('rbac-no-watch', 'version: 1\ncheckout: false\nsteps:\n  - name: slow\n    image: alpine:3.20\n    commands: ["sleep 1", "echo slow"]\n');
  settings = {};
  expect(unwatched.summary.status).toBe('SUCCEEDED');

  // The scheduled sweep (functions/cleanup-orphans.ts): a pod, a claim and a Secret of the
  // runner's, past their deadline as the sweep's clock tells it.
  await unrecorded(async () => {
    const metadata = (name: string) => ({ name, labels: runnerLabels, annotations: { [BUILD_DEADLINE_ANNOTATION]: '60' } });
    await builds.api.createNamespacedPod({
      namespace: NAMESPACE,
      body: { metadata: metadata('rbac-orphan'), spec: { activeDeadlineSeconds: 60, containers: [{ name: 'step', image: 'alpine:3.20', command: ['sleep', '30'] }] } },
    });
    await builds.api.createNamespacedPersistentVolumeClaim({
      namespace: NAMESPACE,
      body: { metadata: metadata('rbac-orphan'), spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    });
    await builds.api.createNamespacedSecret({ namespace: NAMESPACE, body: { metadata: metadata('rbac-orphan'), stringData: { token: 'x' } } });
  });
  // Two days on: past the day a failed build's claim is kept for a re-run, too.
  const swept = await cleanupOrphans(NAMESPACE, 0, runnerDeps(() => new Date(Date.now() + 2 * 86_400_000)));
  expect(swept).toMatchObject({ deletedPods: ['rbac-orphan'], deletedSecrets: expect.arrayContaining(['rbac-orphan']) });
  expect(swept.deletedClaims).toEqual(expect.arrayContaining(['rbac-orphan', expect.stringMatching(/^rbac-missing-image-workspace-/)]));

  // Paths a local build cannot reach, called with the runner's own client, as the named code calls them:
  const api = await localTaskRuntime({ kubeconfig: path.join(builds.root, 'kubeconfig'), namespace: NAMESPACE, logsDir: path.join(builds.root, 'logs') }).kube();
  // PrepareBuild (lib/workflow/tasks/prepare-build.ts) stores a GitHub token for the clone: only
  // with GitHub credentials, which a local build has none of.
  const manifest = gitCredentialsManifest({ buildId: 'rbac-token', namespace: NAMESPACE, token: 'old', deadlineSeconds: 60, expiresAt: new Date(0).toISOString() });
  const secret = await ensureGitCredentials(api, manifest);
  // LaunchStep's renewCheckoutToken (lib/workflow/tasks/launch-step.ts): an ephemeral workspace's
  // step starting after the token's hour.
  expect(await gitTokenExpiry(api, NAMESPACE, secret)).toBe(0);
  await renewGitCredentials(api, NAMESPACE, secret, { token: 'new' });
  // The image check's pull secrets (lib/kube/pull-secrets.ts, through lib/registry): only when a
  // registry asks for credentials, which the embedded cluster's catalog never does. Without pod
  // pull secrets it reads the default service account's; with them, the Secrets.
  await pullSecretsReader(async () => api)(NAMESPACE, []);
  await pullSecretsReader(async () => api)(NAMESPACE, [secret]);
}, 240_000);

describe('deploy/rbac.yaml', () => {
  it('grants every permission the runner used', async () => {
    const granted = grantedPermissions(await readFile(MANIFEST, 'utf8'));
    const refused = [...used].filter(([needed]) => !granted.has(needed)).map(([needed, r]) => `${needed} (${r.method} ${r.path}?${r.query.toString()})`);
    expect(refused).toEqual([]);
  });

  it('grants nothing the runner did not use', async () => {
    const granted = grantedPermissions(await readFile(MANIFEST, 'utf8'));
    expect([...granted].filter((permission) => !used.has(permission)).sort()).toEqual([]);
  });

  it('binds its Role to the group the EKS access entry names', async () => {
    expect(roleBindings(await readFile(MANIFEST, 'utf8'))).toEqual([{ role: 'step-runner', subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'step-runner' }] }]);
  });
});
