import { WorkspaceModes, type WorkspaceMode } from '../../workflow/settings.js';

/** A command line the command cannot act on: reported with the usage, exit 2, nothing started. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** `--port` as a TCP port (0: any free one). */
export function portOption(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, got "${value}"`);
  return port;
}

/** `--workspace-mode`: where the build's workspace lives, as the deployment's WORKSPACE_MODE says. */
export function workspaceModeOption(value: string): WorkspaceMode {
  const modes: readonly string[] = Object.values(WorkspaceModes);
  if (!modes.includes(value)) throw new UsageError(`--workspace-mode must be one of ${modes.join(', ')}, got "${value}"`);
  return value as WorkspaceMode;
}

/** The options `run` and `serve` share: which cluster and namespace builds go to, the workspace mode and the source. */
export const BUILD_TARGET_OPTIONS = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  namespace: { type: 'string' },
  'workspace-mode': { type: 'string' },
  source: { type: 'string' },
  // The old name of --source, from before builds had a checkout.
  workspace: { type: 'string' },
} as const;
