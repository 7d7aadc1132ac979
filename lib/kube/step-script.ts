/**
 * The shell script a step's container runs: each command is echoed (`+ cmd`, as `sh -x` would)
 * and then run in the same shell, so `cd` and `export` carry over from one command to the next
 * as users of other CI systems expect. The first failing command ends the step with its own exit
 * code.
 *
 * `set -e` stops a multi-line command at its first failing line; the explicit status check after
 * each command catches what `set -e` lets through (a failing `a && b`, or a command that turned
 * `set -e` off). The check sits on its own line, never as `cmd || exit`, so a command that ends in
 * a `# comment` cannot swallow it.
 */
export function stepScript(commands: readonly string[], options: StepScriptOptions = {}): string {
  const lines = ['set -e', ...(options.notes ?? []).map((note) => `printf '%s\\n' ${shellQuote(note)}`)];
  const scratch = options.scratch ?? DEFAULT_SCRATCH;
  if (options.cacheLog) lines.push(...printScratchFile(scratch, 'restore.log'));
  const always = options.awaitSave === true && options.keepArtifacts === true;
  if (always) lines.push(...handOverAlwaysLines(scratch, options.handOverWords ?? 'keeping the artifacts'));
  for (const [i, command] of commands.entries()) {
    lines.push(`printf '%s\\n' ${shellQuote(`+ ${options.shownAs?.[i] ?? command}`)}`);
    lines.push(command);
    lines.push('step_runner_status=$?; if [ "$step_runner_status" -ne 0 ]; then exit "$step_runner_status"; fi');
  }
  if (always) lines.push('exit 0');
  else if (options.awaitSave) lines.push(...awaitSaveLines(scratch));
  return `${lines.join('\n')}\n`;
}

export interface StepScriptOptions {
  /** What the log shows for a command instead of the command, by index (Step.shownAs). */
  shownAs?: Readonly<Record<number, string>>;
  /** Lines printed first, as they are: what the runner tells the step's reader before its commands. */
  notes?: readonly string[];
  /**
   * The pod has a cache save sidecar: once the last command succeeded, hand over (`succeeded` in
   * the scratch directory) and wait for its `saved` before exiting 0, since the kubelet stops the
   * sidecars as soon as the step's container ends.
   */
  awaitSave?: boolean;
  /** The scratch directory, unless STEP_RUNNER_SCRATCH names it; default /step-runner. */
  scratch?: string;
  /**
   * The pod has cache containers: the script prints what the restore said before its commands
   * (and, with awaitSave, what the save said at the end), so the step's log tells it all in order.
   */
  cacheLog?: boolean;
  /**
   * With awaitSave: the pod keeps artifacts, which matter most when the step fails (its test
   * reports, its coverage), so the script hands over however it ends: an EXIT trap writes `ended`
   * (with the exit status; `succeeded` before it when that is 0), waits for `saved`, and exits
   * with the commands' own status.
   */
  keepArtifacts?: boolean;
  /** With keepArtifacts: what the log says the step waits for (default `keeping the artifacts`). */
  handOverWords?: string;
}

/** Prints a file of the scratch directory with the shell's own builtins: a step's image may lack cat. */
function printScratchFile(scratch: string, file: string): string[] {
  return [
    `step_runner_scratch=\${STEP_RUNNER_SCRATCH:-${shellQuote(scratch)}}`,
    `if [ -f "$step_runner_scratch/${file}" ]; then while IFS= read -r step_runner_line || [ -n "$step_runner_line" ]; do printf '%s\n' "$step_runner_line"; done < "$step_runner_scratch/${file}"; fi`,
  ];
}

/** Kept here, not imported from cache-scripts.ts, so the step script has no dependency on the cache's. */
const DEFAULT_SCRATCH = '/step-runner';

/**
 * No upper bound of its own: the step's timeout (activeDeadlineSeconds) covers the save too. A
 * line every 30 s says why the step has not ended.
 */
function awaitSaveLines(scratch: string): string[] {
  return [
    `step_runner_scratch=\${STEP_RUNNER_SCRATCH:-${shellQuote(scratch)}}`,
    ': > "$step_runner_scratch/succeeded"',
    ...waitForSavedLines('saving the cache'),
    ...printScratchFile(scratch, 'save.log'),
    'exit 0',
  ];
}

/**
 * The EXIT trap runs on every way out of the commands: `set -e`, the status checks, a command's
 * own `exit`. It turns itself off first (its own `exit` must not run it again) and turns `set -e`
 * off, so a failing wait cannot cut the hand-over short and change the status.
 */
function handOverAlwaysLines(scratch: string, words: string): string[] {
  return [
    `step_runner_scratch=\${STEP_RUNNER_SCRATCH:-${shellQuote(scratch)}}`,
    'step_runner_end() {',
    '  step_runner_code=$1',
    '  trap - EXIT',
    '  set +e',
    '  if [ "$step_runner_code" -eq 0 ]; then : > "$step_runner_scratch/succeeded"; fi',
    `  printf '%s\\n' "$step_runner_code" > "$step_runner_scratch/ended"`,
    ...waitForSavedLines(words).map((line) => `  ${line}`),
    ...printScratchFile(scratch, 'save.log').map((line) => `  ${line}`),
    '  exit "$step_runner_code"',
    '}',
    `trap 'step_runner_end "$?"' EXIT`,
  ];
}

/** Waits for the sidecar's `saved`, a line every 30 s saying why the step has not ended. */
function waitForSavedLines(what: string): string[] {
  return [
    `printf '%s\\n' ${shellQuote(`+ ${what}`)}`,
    'step_runner_started=$(date +%s); step_runner_next=30',
    'while [ ! -e "$step_runner_scratch/saved" ]; do',
    '  sleep 0.2 2>/dev/null || sleep 1',
    '  step_runner_waited=$(($(date +%s) - step_runner_started))',
    '  if [ "$step_runner_waited" -ge "$step_runner_next" ]; then',
    `    printf '%s\\n' "still ${what} ($step_runner_waited s)"`,
    '    step_runner_next=$((step_runner_next + 30))',
    '  fi',
    'done',
  ];
}

/** Single-quotes text for POSIX sh: nothing inside single quotes is expanded, not even newlines. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
