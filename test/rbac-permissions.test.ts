import { grantedPermissions, ManifestShapeError, requiredPermission } from './fixtures/rbac-permissions.js';

describe('the RBAC permission a request needs', () => {
  const ns = '/api/v1/namespaces/ci';
  it.each([
    ['GET', `${ns}/pods/p1`, '', 'pods:get'],
    ['GET', `${ns}/pods`, 'labelSelector=a%3Db', 'pods:list'],
    ['GET', `${ns}/pods`, 'watch=true&fieldSelector=metadata.name%3Dp1', 'pods:watch'],
    ['GET', `${ns}/pods`, 'watch=1', 'pods:watch'],
    ['GET', `${ns}/pods`, 'watch=false', 'pods:list'],
    ['POST', `${ns}/pods`, '', 'pods:create'],
    ['DELETE', `${ns}/pods/p1`, 'propagationPolicy=Background', 'pods:delete'],
    ['DELETE', `${ns}/pods`, 'labelSelector=a%3Db', 'pods:deletecollection'],
    ['PUT', `${ns}/secrets/s1`, '', 'secrets:update'],
    ['PATCH', `${ns}/secrets/s1`, '', 'secrets:patch'],
    ['GET', `${ns}/pods/p1/log`, 'container=step&follow=true', 'pods/log:get'],
    ['GET', `${ns}/pods/p1/exec`, 'command=sh', 'pods/exec:create'],
    ['POST', `${ns}/pods/p1/exec`, 'command=sh', 'pods/exec:create'],
    ['GET', `${ns}/serviceaccounts/default`, '', 'serviceaccounts:get'],
    ['GET', '/apis/apps/v1/namespaces/ci/deployments', '', 'apps/deployments:list'],
    ['GET', '/api/v1/namespaces/ci', '', 'namespaces:get'],
    ['GET', '/api/v1/nodes', '', 'nodes:list'],
    ['GET', '/version', '', 'url:/version'],
    ['GET', '/api', '', 'url:/api'],
  ])('%s %s?%s needs %s', (method, path, query, expected) => {
    expect(requiredPermission({ method, path, query: new URLSearchParams(query) })).toBe(expected);
  });
});

describe('the permissions a manifest grants', () => {
  it('expands each Role rule into group, resource and verb, and ignores other kinds', () => {
    const manifest = `kind: Role
rules:
  - apiGroups: ['']
    resources: [pods, pods/log]
    verbs: [get, list]
  - apiGroups: [apps]
    resources: [deployments]
    verbs: [get]
---
kind: RoleBinding
roleRef: { kind: Role, name: r }
`;
    expect([...grantedPermissions(manifest)].sort()).toEqual(['apps/deployments:get', 'pods/log:get', 'pods/log:list', 'pods:get', 'pods:list']);
  });

  it.each([
    ['a wildcard verb', "kind: Role\nrules:\n  - { apiGroups: [''], resources: [pods], verbs: ['*'] }\n"],
    ['resourceNames', "kind: Role\nrules:\n  - { apiGroups: [''], resources: [secrets], verbs: [get], resourceNames: [a] }\n"],
  ])('refuses %s, which an exact comparison cannot hold', (_what, manifest) => {
    expect(() => grantedPermissions(manifest)).toThrow(ManifestShapeError);
  });
});
