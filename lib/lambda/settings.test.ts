import { describe, expect, it } from '@jest/globals';
import { runnerSettings } from './settings.js';

const deployed = { EKS_CLUSTER_NAME: 'ci', AWS_REGION: 'eu-west-1', STEP_RUNNER_NAMESPACE: 'builds', STEP_LOGS_BUCKET: 'logs' };

describe('runnerSettings: the workspace', () => {
  it('is a claim per build unless WORKSPACE_MODE says ephemeral', () => {
    expect(runnerSettings(deployed).workflow.workspaceMode).toBe('volume');
    expect(runnerSettings({ ...deployed, WORKSPACE_MODE: '' }).workflow.workspaceMode).toBe('volume');
    expect(runnerSettings({ ...deployed, WORKSPACE_MODE: 'ephemeral' }).workflow.workspaceMode).toBe('ephemeral');
  });

  it('stops the function at start on a mode that does not exist, with every wrong setting named', () => {
    expect(() => runnerSettings({ ...deployed, WORKSPACE_MODE: 'fargate', WORKSPACE_ACCESS_MODE: 'ReadOnlyMany' })).toThrow(
      expect.objectContaining({
        name: 'DeploymentSettingsError',
        message: expect.stringMatching(/WORKSPACE_MODE must be one of volume, ephemeral, got "fargate"[\s\S]*WORKSPACE_ACCESS_MODE/),
      }),
    );
  });
});

describe('runnerSettings: the steps\' user', () => {
  it('is the images\' own unless STEP_RUN_AS_USER names a non-root numeric id', () => {
    expect(runnerSettings(deployed).workflow.runAsUser).toBeUndefined();
    expect(runnerSettings({ ...deployed, STEP_RUN_AS_USER: '' }).workflow.runAsUser).toBeUndefined();
    expect(runnerSettings({ ...deployed, STEP_RUN_AS_USER: '1000' }).workflow.runAsUser).toBe(1000);
  });

  it.each(['0', 'node', '-1', '1.5', '99999999999'])('refuses "%s" at start', (value) => {
    expect(() => runnerSettings({ ...deployed, STEP_RUN_AS_USER: value })).toThrow(
      expect.objectContaining({ name: 'DeploymentSettingsError', message: expect.stringContaining(`STEP_RUN_AS_USER must be a numeric user id from 1 to 2147483647 (not root), got "${value}"`) }),
    );
  });
});

describe('runnerSettings: the image check', () => {
  it('is on unless IMAGE_CHECK says off, and refuses anything else at start', () => {
    expect(runnerSettings(deployed).workflow.imageCheck).toBe(true);
    expect(runnerSettings({ ...deployed, IMAGE_CHECK: 'on' }).workflow.imageCheck).toBe(true);
    expect(runnerSettings({ ...deployed, IMAGE_CHECK: 'off' }).workflow.imageCheck).toBe(false);
    expect(() => runnerSettings({ ...deployed, IMAGE_CHECK: 'no' })).toThrow(/IMAGE_CHECK must be one of on, off, got "no"/);
  });

  it.each([
    [undefined, true],
    ['', true],
    ['on', true],
    ['off', false],
  ])('protects step pods from voluntary disruption unless STEP_DO_NOT_DISRUPT is off (%p)', (value, protectedPods) => {
    expect(runnerSettings({ ...deployed, ...(value !== undefined ? { STEP_DO_NOT_DISRUPT: value } : {}) }).workflow.doNotDisrupt).toBe(protectedPods);
  });

  it('talks to the cluster as the role EKS_CLUSTER_ROLE_ARN names, else as the function\'s own', () => {
    const roleArn = 'arn:aws:iam::123456789012:role/serverless-step-runner-dev-EksClusterRole-AbC';
    expect(runnerSettings({ ...deployed, EKS_CLUSTER_ROLE_ARN: roleArn }).cluster).toEqual({ clusterName: deployed.EKS_CLUSTER_NAME, region: deployed.AWS_REGION, roleArn });
    expect(runnerSettings({ ...deployed, EKS_CLUSTER_ROLE_ARN: '' }).cluster).not.toHaveProperty('roleArn');
  });

  it('stops the function at start on a STEP_DO_NOT_DISRUPT that is neither on nor off', () => {
    expect(() => runnerSettings({ ...deployed, STEP_DO_NOT_DISRUPT: 'false' })).toThrow(/STEP_DO_NOT_DISRUPT must be one of on, off, got "false"/);
  });
});

describe('runnerSettings: every step pod\'s pull secrets and placement', () => {
  it('has none unless set (serverless.yml sets them empty)', () => {
    const { workflow } = runnerSettings({ ...deployed, STEP_PULL_SECRETS: '', STEP_NODE_SELECTOR: '', STEP_TOLERATIONS: '' });
    expect([workflow.pullSecrets, workflow.nodeSelector, workflow.tolerations]).toEqual([undefined, undefined, undefined]);
  });

  it('reads the identities the deployment declares, none when serverless.yml sets it empty', () => {
    expect(runnerSettings({ ...deployed, STEP_IDENTITIES: '' }).workflow.identities).toBeUndefined();
    const declared = { deploy: { role: 'arn:aws:iam::123456789012:role/deploy', repositories: ['acme/site'], refs: ['refs/heads/main'], events: ['push'] } };
    expect(runnerSettings({ ...deployed, STEP_IDENTITIES: JSON.stringify(declared) }).workflow.identities).toEqual([
      { name: 'deploy', roleArn: 'arn:aws:iam::123456789012:role/deploy', rules: { repositories: ['acme/site'], refs: ['refs/heads/main'], events: ['push'], forks: false } },
    ]);
  });

  it('reads comma-separated pull secrets and JSON node selector and tolerations', () => {
    const { workflow } = runnerSettings({
      ...deployed,
      STEP_PULL_SECRETS: ' regcred , ghcr-login,,regcred',
      STEP_NODE_SELECTOR: '{"karpenter.sh/capacity-type":"spot","kubernetes.io/arch":"arm64"}',
      STEP_TOLERATIONS: '[{"key":"ci","operator":"Exists","effect":"NoSchedule"},{"key":"spot","value":"yes","effect":"NoExecute","tolerationSeconds":60}]',
    });
    expect(workflow.pullSecrets).toEqual(['regcred', 'ghcr-login']);
    expect(workflow.nodeSelector).toEqual({ 'karpenter.sh/capacity-type': 'spot', 'kubernetes.io/arch': 'arm64' });
    expect(workflow.tolerations).toEqual([
      { key: 'ci', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'spot', operator: 'Equal', value: 'yes', effect: 'NoExecute', tolerationSeconds: 60 },
    ]);
  });

  it.each([
    ['STEP_PULL_SECRETS', 'regcred,Bad_Name', 'STEP_PULL_SECRETS must be a comma-separated list of Secret names: [1]: "Bad_Name" is not a valid Kubernetes Secret name'],
    ['STEP_NODE_SELECTOR', 'pool=ci', 'STEP_NODE_SELECTOR must be a JSON map of node label to value: not JSON'],
    ['STEP_NODE_SELECTOR', '{"pool":"c i"}', 'STEP_NODE_SELECTOR must be a JSON map of node label to value: pool: "c i" is not a valid label value'],
    ['STEP_TOLERATIONS', '{"key":"ci"}', 'STEP_TOLERATIONS must be a JSON list of tolerations: must be a list of tolerations'],
    ['STEP_IDENTITIES', '{"deploy":{"role":"arn:aws:iam::123456789012:role/d","repositories":["acme/*"],"events":["push"]}}', 'STEP_IDENTITIES must be a JSON map of identity name to {role, repositories, refs, events, forks}: identity "deploy", refs: must list at least one ref glob'],
    ['STEP_TOLERATIONS', '[{"key":"ci","operator":"Exists","value":"x"}]', 'STEP_TOLERATIONS must be a JSON list of tolerations: [0].value: must be left out with "operator: Exists"'],
  ])('stops the function at start on a wrong %s', (name, value, message) => {
    expect(() => runnerSettings({ ...deployed, [name]: value })).toThrow(expect.objectContaining({ name: 'DeploymentSettingsError', message: expect.stringContaining(message) }));
  });
});
