import { describe, expect, it } from '@jest/globals';
import { parseRunArgs, type RunOptions } from './run-args.js';
import { parseServeArgs } from './serve-args.js';

describe('--workspace-mode', () => {
  it('chooses where run and serve keep the workspace, as the deployment setting does', () => {
    expect((parseRunArgs(['p.yml', '--workspace-mode', 'ephemeral']) as RunOptions).workspaceMode).toBe('ephemeral');
    expect(parseServeArgs(['--workspace-mode', 'volume'], {}).workspaceMode).toBe('volume');
    expect((parseRunArgs(['p.yml']) as RunOptions).workspaceMode).toBeUndefined();
  });

  it('refuses a mode that does not exist, naming the ones that do', () => {
    expect(() => parseRunArgs(['p.yml', '--workspace-mode', 'fargate'])).toThrow('--workspace-mode must be one of volume, ephemeral, got "fargate"');
    expect(() => parseServeArgs(['--workspace-mode', 'emptydir'], {})).toThrow(/must be one of volume, ephemeral/);
  });
});
