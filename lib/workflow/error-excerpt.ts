/**
 * The lines of a log where its last error begins, for a Cause whose tail has scrolled past them:
 * npm prints 20 and more lines of usage after its one line of reason, pytest its captured output
 * and summary after the `E   ` lines, `go test ./...` every later package's `ok` line.
 */
/**
 * Lines that open or carry an error, in the words of the tools a build runs most (see
 * error-excerpt.test.ts for their real output): one-word patterns stay anchored or bounded so a
 * file or test name that contains "error" does not count.
 */
const ERROR_LINE: readonly RegExp[] = [
  /^npm (?:ERR!|error)(?:\s|$)/, // npm 6-8 and npm 9+
  /^E {2,}\S/, // pytest's assertion detail
  /^(?:FAILED|ERROR) \S+::/, // pytest's short summary
  /^Traceback \(most recent call last\):/,
  /^--- FAIL: /, // go test
  /^FAIL(?:\s|$)/, // go test's package line, jest's suite line
  /^(?:panic|fatal|error)(?:\[\w+\])?: /i, // Go panics, git, rustc
  /\b[A-Z]\w*(?:Error|Exception)\b/, // AssertionError, TypeError, NullPointerException
  /\b(?:error|failed|fatal)\b/i,
];

/** Lines of a tool's own boilerplate inside an error that say nothing about it. */
const NOISE = [/^npm (?:ERR!|error)\s*$/, /^npm (?:ERR!|error) A complete log of this run/];

/** Up to this many non-error lines (a Go test's indented detail, a blank) inside one error. */
const GAP = 2;
const EXCERPT_LINES = 3;
/** Half a Cause's own paragraph (MAX_CAUSE_LENGTH): the excerpt gives way to the tail. */
const EXCERPT_CHARS = 500;
const LINE_CHARS = 200;

export function looksLikeError(line: string): boolean {
  return ERROR_LINE.some((pattern) => pattern.test(line));
}

/** Each run of error lines, first to last (a run tolerates GAP other lines inside). */
function errorRuns(lines: readonly string[]): { start: number; end: number }[] {
  const runs: { start: number; end: number }[] = [];
  lines.forEach((line, index) => {
    if (!looksLikeError(line)) return;
    const last = runs.at(-1);
    if (last && index - last.end <= GAP + 1) last.end = index;
    else runs.push({ start: index, end: index });
  });
  return runs;
}

/**
 * The first lines of the last error that begins above `tailStart`, even when the tail has one of
 * its own: that is most often a summary ("1 failed", go's closing FAIL) of the one above.
 * Undefined when none does.
 */
export function errorExcerpt(lines: readonly string[], tailStart: number): string[] | undefined {
  const run = errorRuns(lines)
    .filter((r) => r.start < tailStart)
    .at(-1);
  if (run === undefined) return undefined;
  const picked: string[] = [];
  let chars = 0;
  for (const line of lines.slice(run.start, Math.min(run.end + 1, tailStart))) {
    if (picked.length === EXCERPT_LINES) break;
    if (NOISE.some((pattern) => pattern.test(line)) || line.trim() === '') continue;
    const shown = line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line;
    if (chars + shown.length > EXCERPT_CHARS) break;
    picked.push(shown);
    chars += shown.length + 1;
  }
  return picked.length > 0 ? picked : undefined;
}
