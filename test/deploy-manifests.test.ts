/**
 * The Kubernetes manifests under deploy/ that a deployer applies by hand (deploy/rbac.yaml has a
 * test of its own, test/rbac-manifest.integration.test.ts): valid objects, the same as the pages
 * they follow, and what docs/deploy.md tells the deployer to do with them.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { StorageClass } from 'kubernetes-models/storage.k8s.io/v1/StorageClass';
import { parse } from 'yaml';
import { workspaceClaimManifest } from '../lib/kube/index.js';
import { runnerSettings } from '../lib/lambda/settings.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (file: string) => readFile(path.join(ROOT, file), 'utf8');

describe('deploy/storageclass-auto-mode.yaml', () => {
  let manifest: StorageClass;
  beforeAll(async () => {
    manifest = new StorageClass(parse(await read('deploy/storageclass-auto-mode.yaml')) as ConstructorParameters<typeof StorageClass>[0]);
  });

  it('is a valid StorageClass by the Kubernetes schema', () => {
    expect(() => manifest.validate()).not.toThrow();
  });

  it("is the EKS user guide's Auto Mode class (\"Create a storage class\"): Auto Mode's EBS driver, gp3, encrypted, on Auto Mode nodes", () => {
    expect({
      name: manifest.metadata?.name,
      provisioner: manifest.provisioner,
      parameters: manifest.parameters,
      allowedTopologies: manifest.allowedTopologies,
    }).toEqual({
      name: 'auto-ebs-sc',
      provisioner: 'ebs.csi.eks.amazonaws.com',
      parameters: { type: 'gp3', encrypted: 'true' },
      allowedTopologies: [{ matchLabelExpressions: [{ key: 'eks.amazonaws.com/compute-type', values: ['auto'] }] }],
    });
    // Not the cluster's default: the runner names its class, and other workloads keep theirs.
    expect(manifest.metadata?.annotations?.['storageclass.kubernetes.io/is-default-class']).toBeUndefined();
  });

  it("binds when the build's first pod is scheduled, which the workspace's placement relies on", () => {
    // The volume is made in that pod's zone; LaunchStep pins the later pods to its node.
    expect(manifest.volumeBindingMode).toBe('WaitForFirstConsumer');
  });

  it('is the class docs/deploy.md deploys with, and the one each build\'s claim then names', async () => {
    const readme = await read('docs/deploy.md');
    const name = manifest.metadata!.name!;
    expect(readme).toContain('kubectl apply -f deploy/storageclass-auto-mode.yaml');
    expect(readme).toContain(`--param="workspaceStorageClass=${name}"`);
    // serverless.yml hands the param to the functions as WORKSPACE_STORAGE_CLASS.
    const serverless = await read('serverless.yml');
    expect(serverless).toContain('WORKSPACE_STORAGE_CLASS: ${param:workspaceStorageClass}');
    const { workflow } = runnerSettings({ EKS_CLUSTER_NAME: 'ci', AWS_REGION: 'eu-west-1', STEP_RUNNER_NAMESPACE: 'ci', STEP_LOGS_BUCKET: 'logs', WORKSPACE_STORAGE_CLASS: name });
    const claim = workspaceClaimManifest({ buildId: 'b1', namespace: 'ci', settings: workflow.workspace, deadlineSeconds: 3600 });
    expect(claim.spec?.storageClassName).toBe(name);
  });
});
