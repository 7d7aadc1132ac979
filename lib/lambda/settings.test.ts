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
});
