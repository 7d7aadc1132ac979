import { checkImageReference, WhenEvents, type WhenEvent } from '../../pipeline/index.js';
import { WorkspaceModes, type WorkspaceMode } from '../../workflow/settings.js';
import type { RuntimeKind } from '../../emulators/kubernetes/runtime/container-runtime.js';
import { runtimeKind } from '../../emulators/kubernetes/runtime/runtime-choice.js';

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

/** A duration as people write it: `500ms`, `5s`, `2m` (a bare number is seconds). */
export function durationOption(value: string, flag: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  if (!match) throw new UsageError(`${flag} must be a duration such as 5s, 500ms or 2m, got "${value}"`);
  const unit = { ms: 1, s: 1_000, m: 60_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm'];
  return Math.round(Number(match[1]) * unit);
}

/** `--workspace-mode`: where the build's workspace lives, as the deployment's WORKSPACE_MODE says. */
export function workspaceModeOption(value: string): WorkspaceMode {
  const modes: readonly string[] = Object.values(WorkspaceModes);
  if (!modes.includes(value)) throw new UsageError(`--workspace-mode must be one of ${modes.join(', ')}, got "${value}"`);
  return value as WorkspaceMode;
}

/** `--clone-image` (run and serve): the `clone` step's image, as the deployment's CLONE_IMAGE; refused before anything starts when it is no image reference. */
export function cloneImageOption(value: string): string {
  return imageOption('--clone-image', value);
}

/** `--cache-image` (run and serve): the cache containers' image, as the deployment's CACHE_IMAGE; checked as --clone-image is. */
export function cacheImageOption(value: string): string {
  return imageOption('--cache-image', value);
}

/** `--otlp-endpoint` (run and serve): where each build's trace goes, an http(s) URL as the deployment's OTLP_ENDPOINT. */
export function otlpEndpointOption(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new UsageError(`--otlp-endpoint ${JSON.stringify(value)} is not an http:// or https:// URL (an OTLP/HTTP endpoint, e.g. http://localhost:4318)`);
  return value;
}

function imageOption(flag: string, value: string): string {
  const checked = checkImageReference(value);
  if (!checked.ok) throw new UsageError(`${flag} ${JSON.stringify(value)} is not a valid image reference: ${checked.reason}`);
  return value;
}

/** `--event` (run and serve): one of the events a step's `when` may name. */
export function eventOption(value: string): WhenEvent {
  if (!(WhenEvents as readonly string[]).includes(value)) throw new UsageError(`--event must be one of ${WhenEvents.join(', ')}, got "${value}"`);
  return value as WhenEvent;
}

/** `--branch` (run and serve): a branch as `refs/heads/<name>` takes it: no spaces, no leading "-" or "/", nothing empty. */
export function branchOption(value: string, flag = '--branch'): string {
  const valid = /^[^\s~^:?*[\\-][^\s~^:?*[\\]*$/.test(value) && !value.startsWith('/') && !value.endsWith('/') && !value.includes('..');
  if (!valid) throw new UsageError(`${flag} must be a branch name such as main, got "${value}"`);
  return value;
}

/**
 * `--changed` (run): a file as GitHub names a changed one, relative to the repository's root with
 * "/" between folders. `./` in front is dropped (a shell's completion writes it); anything that
 * could name no file of the repository is refused, as the pipeline's `paths` globs are.
 */
export function changedFileOption(value: string): string {
  const file = value.replace(/^(\.\/)+/, '');
  const problem = repositoryPathProblem(file);
  if (problem) throw new UsageError(`--changed takes a file's path in the repository, such as docs/README.md; "${value}" is none: ${problem}`);
  return file;
}

function repositoryPathProblem(file: string): string | undefined {
  if (file === '') return 'it is empty';
  if (file.startsWith('/')) return 'it is absolute';
  if (file.includes('\\')) return 'it has a backslash';
  if (file.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) return 'it has an empty, "." or ".." segment';
  return undefined;
}

/** `--base` (run): a ref git reads; that it names a commit is checked in the work tree. */
export function baseOption(value: string): string {
  if (value.trim() === '' || value.startsWith('-')) throw new UsageError(`--base must name a commit, branch or tag such as main, got "${value}"`);
  return value;
}

/**
 * `--runtime` (run, serve, cluster): what the embedded cluster runs steps in. A cluster of the
 * user's own (`--kubeconfig`) has its own runtime, so the two together are refused.
 */
export function runtimeOption(value: string | undefined, kubeconfig?: string): RuntimeKind | undefined {
  if (value === undefined) return undefined;
  if (kubeconfig !== undefined) throw new UsageError('--runtime is for the embedded cluster; --kubeconfig names a cluster of your own, which has its own runtime: give one or the other');
  try {
    return runtimeKind(value, '--runtime');
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The options `run` and `serve` share: which cluster and namespace builds go to, the workspace mode, the clone and cache images, the source, the state directory and where traces go. */
export const BUILD_TARGET_OPTIONS = {
  kubeconfig: { type: 'string' },
  // The embedded cluster's container runtime (docker or process); not with --kubeconfig.
  runtime: { type: 'string' },
  context: { type: 'string' },
  namespace: { type: 'string' },
  'workspace-mode': { type: 'string' },
  // The checkout's image, as the deployment's CLONE_IMAGE (which is honoured too; the flag wins).
  'clone-image': { type: 'string' },
  // The cache containers' image, as the deployment's CACHE_IMAGE (honoured too; the flag wins).
  'cache-image': { type: 'string' },
  // Whose cache entries a build falls back on (BuildRef.defaultBranch), when nothing else names it.
  'default-branch': { type: 'string' },
  source: { type: 'string' },
  // The old name of --source, from before builds had a checkout.
  workspace: { type: 'string' },
  // Logs and local state: outside the work tree (lib/local/stores/state-dir.ts).
  'state-dir': { type: 'string' },
  // Where each build's trace goes when it ends, as the deployment's OTLP_ENDPOINT.
  'otlp-endpoint': { type: 'string' },
} as const;
