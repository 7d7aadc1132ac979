import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { identitiesManifest } from '../../scripts/identities.js';
import { IDENTITY_SERVICE_ACCOUNT_PREFIX } from '../pipeline/names.js';
import { checkIdentities } from '../workflow/identities.js';

// CommonJS, for the Framework (see the file); no types.
type Identity = { name: string; roleArn: string };
type Rules = { checkIdentities: typeof checkIdentities; prefix: string };
// The plugin loads these through tsx, which jest's module loader does not take: the same modules, given.
const rules = () => ({ checkIdentities, prefix: IDENTITY_SERVICE_ACCOUNT_PREFIX });
const plugin = createRequire(import.meta.url)('./identities.cjs') as {
  readIdentities(file: string, options?: { serviceDir?: string; rules?: () => Rules }): Promise<{ declared: unknown; identities: Identity[] }>;
  associations(identities: Identity[], where: { clusterName: string; namespace: string; prefix: string }): Record<string, unknown>;
};

const FIXTURE = 'test/fixtures/deploy/identities.yml';

describe('the deployment\'s identities file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'identities-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('reads the file beside serverless.yml, checked by the runner\'s rules; no file, no identities', async () => {
    const { identities } = await plugin.readIdentities(FIXTURE, { rules });
    expect(identities.map((i) => [i.name, i.roleArn])).toEqual([
      ['deploy', 'arn:aws:iam::123456789012:role/step-runner-deploy'],
      ['publish-docs', 'arn:aws:iam::123456789012:role/ci/publish-docs'],
    ]);
    expect(await plugin.readIdentities('no-such-identities.yml', { serviceDir: dir, rules })).toEqual({ declared: {}, identities: [] });
  });

  it('stops packaging on a bad file, naming the file, the identity and the field', async () => {
    await writeFile(path.join(dir, 'bad.yml'), 'deploy:\n  role: arn:aws:iam::123456789012:role/d\n  repositories: [acme/site]\n  events: [push]\n');
    await expect(plugin.readIdentities('bad.yml', { serviceDir: dir, rules })).rejects.toThrow('bad.yml: identity "deploy", refs: must list at least one ref glob');
  });

  it('makes one association per identity, of its service account in the namespace to its role', async () => {
    const { identities } = await plugin.readIdentities(FIXTURE, { rules });
    expect(plugin.associations(identities, { clusterName: 'ci', namespace: 'step-runner', prefix: 'step-runner-id-' })).toEqual({
      IdentityAssociationDeploy: {
        Type: 'AWS::EKS::PodIdentityAssociation',
        Properties: { ClusterName: 'ci', Namespace: 'step-runner', ServiceAccount: 'step-runner-id-deploy', RoleArn: 'arn:aws:iam::123456789012:role/step-runner-deploy' },
      },
      IdentityAssociationPublishDocs: {
        Type: 'AWS::EKS::PodIdentityAssociation',
        Properties: { ClusterName: 'ci', Namespace: 'step-runner', ServiceAccount: 'step-runner-id-publish-docs', RoleArn: 'arn:aws:iam::123456789012:role/ci/publish-docs' },
      },
    });
  });

  it('gives `npm run identities` one ServiceAccount per identity, no namespace (kubectl apply -n names it), no token, and the runner the right to make tokens of those accounts only', async () => {
    const { declared } = await plugin.readIdentities(FIXTURE, { rules });
    const documents = YAML.parseAllDocuments(identitiesManifest(declared, FIXTURE)).map((d) => d.toJS() as Record<string, unknown>);
    const accounts = ['step-runner-id-deploy', 'step-runner-id-publish-docs'];
    expect(documents).toEqual([
      ...['deploy', 'publish-docs'].map((name) => ({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: `step-runner-id-${name}`, labels: { 'app.kubernetes.io/managed-by': 'serverless-step-runner', 'step-runner/identity': name } },
        automountServiceAccountToken: false,
      })),
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'step-runner-identity-tokens' },
        rules: [{ apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'], resourceNames: accounts }],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'step-runner-identity-tokens' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'step-runner-identity-tokens' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'step-runner' }],
      },
    ]);
  });
});
