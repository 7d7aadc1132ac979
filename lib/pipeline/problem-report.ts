/**
 * A rejected pipeline's problems, all of them, as scripts and people read them: the list in
 * `run --json` and the webhook's 400 (docs/contracts.md), and the lines `run` prints. The error's
 * message keeps its old form (the first problem and how many more) for whoever reads only that.
 */
import type { InvalidImage, InvalidPipeline } from './errors.js';

/** Flat, with every field present, so `jq '.problems[] | .line'` needs no `?`. */
export interface ProblemReport {
  message: string;
  file: string | null;
  line: number | null;
  column: number | null;
  step: string | null;
  field: string | null;
}

export function problemReports(error: InvalidPipeline | InvalidImage): ProblemReport[] {
  return error.problems.map(({ message, location }) => ({
    message,
    file: location.file || null,
    line: location.line ?? null,
    column: location.column ?? null,
    step: location.step ?? null,
    field: location.field ?? null,
  }));
}

/**
 * `InvalidPipeline: <message>` as before (the first problem and how many more), then, when there
 * are several, every problem on a line of its own, so a file can be fixed in one go.
 */
export function problemLines(error: InvalidPipeline | InvalidImage): string[] {
  const first = `${error.name}: ${error.message}`;
  return error.problems.length <= 1 ? [first] : [first, ...error.problems.map(({ message }) => `  - ${message}`)];
}
