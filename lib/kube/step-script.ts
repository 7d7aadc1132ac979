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
export function stepScript(commands: readonly string[]): string {
  const lines = ['set -e'];
  for (const command of commands) {
    lines.push(`printf '%s\\n' ${shellQuote(`+ ${command}`)}`);
    lines.push(command);
    lines.push('step_runner_status=$?; if [ "$step_runner_status" -ne 0 ]; then exit "$step_runner_status"; fi');
  }
  return `${lines.join('\n')}\n`;
}

/** Single-quotes text for POSIX sh: nothing inside single quotes is expanded, not even newlines. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
