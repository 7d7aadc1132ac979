import { WhenEvents, type WhenEvent } from '../../pipeline/index.js';
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

/** `--event` (run and serve): one of the events a step's `when` may name. */
export function eventOption(value: string): WhenEvent {
  if (!(WhenEvents as readonly string[]).includes(value)) throw new UsageError(`--event must be one of ${WhenEvents.join(', ')}, got "${value}"`);
  return value as WhenEvent;
}

/** `--branch` (run and serve): a branch as `refs/heads/<name>` takes it: no spaces, no leading "-" or "/", nothing empty. */
export function branchOption(value: string): string {
  const valid = /^[^\s~^:?*[\\-][^\s~^:?*[\\]*$/.test(value) && !value.startsWith('/') && !value.endsWith('/') && !value.includes('..');
  if (!valid) throw new UsageError(`--branch must be a branch name such as main, got "${value}"`);
  return value;
}

/** The options `run` and `serve` share: which cluster and namespace builds go to, the workspace mode, the source and the state directory. */
export const BUILD_TARGET_OPTIONS = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  namespace: { type: 'string' },
  'workspace-mode': { type: 'string' },
  source: { type: 'string' },
  // The old name of --source, from before builds had a checkout.
  workspace: { type: 'string' },
  // Logs and local state: outside the work tree (lib/local/state-dir.ts).
  'state-dir': { type: 'string' },
} as const;
