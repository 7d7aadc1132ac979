/**
 * Where local commands keep what outlives them (step logs, `cluster`'s kubeconfig): outside the
 * work tree being built, so that a build never shows in the user's `git status`, nor in the next
 * build's snapshot of the work tree. The XDG state directory on every system, macOS included: one
 * rule to document and to find one's logs by.
 */
import { homedir } from 'node:os';
import path from 'node:path';

export const STATE_DIR_OPTION_HELP = 'where logs and local state go (default: $XDG_STATE_HOME/step-runner, else ~/.local/state/step-runner)';

/** `--state-dir` as given (relative to the current directory), else the XDG state directory's `step-runner`. */
export function stateDir(given?: string, env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  if (given) return path.resolve(given);
  // The XDG Base Directory spec: a relative $XDG_STATE_HOME is invalid and is ignored.
  const xdg = env.XDG_STATE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.local', 'state');
  return path.join(base, 'step-runner');
}

/** Step logs, one folder per build: `logs/BUILD/STEP.log`. */
export function logsDir(state: string): string {
  return path.join(state, 'logs');
}

/** Where `step-runner cluster` writes its kubeconfig unless told otherwise. */
export function clusterKubeconfig(state: string): string {
  return path.join(state, 'kubeconfig');
}
