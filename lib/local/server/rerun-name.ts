/**
 * The name of a re-run: a new one, as Step Functions' "New execution" asks for, and readable as
 * the re-run of its original.
 */
import { MAX_EXECUTION_NAME } from '../../forge/execution-name.js';

/** `NAME-rerun-N`, N the first number not `taken`; a re-run of a re-run counts on from its original. */
export function rerunName(original: string, taken: (name: string) => boolean): string {
  const base = original.replace(/-rerun-\d+$/, '');
  for (let n = 1; ; n++) {
    const suffix = `-rerun-${n}`;
    const name = `${base.slice(0, MAX_EXECUTION_NAME - suffix.length)}${suffix}`;
    if (!taken(name)) return name;
  }
}
