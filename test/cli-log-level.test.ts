/**
 * The handlers' JSON log lines on a terminal (lib/cli/main.ts, handlerLogLevel): off unless asked
 * for, `--verbose` winning over a POWERTOOLS_LOG_LEVEL the user's shell happens to carry.
 */
import { handlerLogLevel } from '../lib/cli/main.js';

it.each([
  ['a plain run', ['.step-runner.yml'], undefined, 'SILENT'],
  ['run --verbose', ['.step-runner.yml', '--verbose'], undefined, 'INFO'],
  ['run --verbose in a shell that silences Powertools', ['--verbose'], 'SILENT', 'INFO'],
  ['a shell that asks Powertools for DEBUG, no flag', [], 'DEBUG', 'DEBUG'],
])('%s', (_what, args: string[], fromEnvironment: string | undefined, level) => {
  expect(handlerLogLevel(args, fromEnvironment)).toBe(level);
});
