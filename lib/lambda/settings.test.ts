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
