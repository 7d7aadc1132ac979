import { parseInputAssignment } from '../../pipeline/index.js';
import { UsageError } from './usage.js';

/** `--input NAME=VALUE` (run and trigger), each name once; VALUE may hold "=". */
export function inputOptions(given: readonly string[]): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const text of given) {
    const parsed = parseInputAssignment(text);
    if ('problem' in parsed) throw new UsageError(`--input ${parsed.problem}`);
    if (Object.hasOwn(inputs, parsed.name)) throw new UsageError(`--input ${parsed.name} is given twice`);
    inputs[parsed.name] = parsed.value;
  }
  return inputs;
}
