/** `step-runner import FILE [-o PATH]`: a GitHub Actions workflow or a .gitlab-ci.yml as a pipeline file. */
import { access, readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { Dialects, importCi, UnreadableCiFile, type ImportResult } from '../../ci-import/index.js';
import type { CommandIO } from './cluster.js';
import { UsageError } from './usage.js';

export const summary = 'convert a GitHub Actions workflow or a .gitlab-ci.yml into a pipeline file, listing what it could not convert';

const USAGE = 'import FILE [-o PATH] [--force]';

export const IMPORT_HELP = `Usage: step-runner ${USAGE}

Reads FILE, a GitHub Actions workflow (.github/workflows/*.yml) or a GitLab CI file
(.gitlab-ci.yml), and prints the equivalent pipeline file on stdout: each job a step, its run: or
script: lines its commands, with its image and services, needs (GitLab's stages too),
environment, the branch and event conditions that are a "when", matrices, caches keyed on files
and artifacts. What it cannot convert (an action other than checkout, setup-node/-python/-go,
cache and upload-artifact; include:, rules beyond "when", a matrix an expression makes, whose
first combination is written) is listed on stderr with its line in FILE and what to do instead, and marked "not converted" in
the written file at the step it belongs to. Nothing is dropped without a word. Exit 0 once the
file is written (it validates, as \`validate\` checks), 2 if FILE cannot be read as either, 1
if what it would write does not validate (a bug of import: the problems are printed).
  FILE              the file to convert
  -o, --output PATH write the pipeline there instead of stdout (e.g. .step-runner.yml)
  --force           with -o: replace PATH if it exists
  -h, --help        this help`;

export async function run(argv: string[], io: CommandIO): Promise<number> {
  let values, file: string;
  try {
    const parsed = parseArgs({ args: argv, allowPositionals: true, options: { output: { type: 'string', short: 'o' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
    values = parsed.values;
    if (values.help) {
      io.out(IMPORT_HELP);
      return 0;
    }
    if (parsed.positionals.length !== 1) throw new UsageError(parsed.positionals.length === 0 ? 'name the file to convert' : `one file at a time, got ${parsed.positionals.length}`);
    file = parsed.positionals[0]!;
    if (values.force && values.output === undefined) throw new UsageError('--force goes with -o PATH');
    if (values.output !== undefined && !values.force && (await exists(values.output))) throw new UsageError(`${values.output} exists: give --force to replace it, or another path`);
  } catch (error) {
    io.err(`step-runner import: ${(error as Error).message}`);
    io.err(`Usage: step-runner ${USAGE}`);
    return 2;
  }
  let result: ReturnType<typeof importCi>;
  try {
    result = importCi(await readSource(file), file);
  } catch (error) {
    if (!(error instanceof UnreadableCiFile)) throw error;
    io.err(`step-runner import: ${error.message}`);
    return 2;
  }
  if (result.problems.length > 0) {
    // The converter wrote something the pipeline's own reader refuses: its bug, never the user's file.
    io.err(`step-runner import: the converted file does not validate (a bug of import, please report it with ${file}):`);
    result.problems.forEach((problem) => io.err(`  ${problem.message}`));
    return 1;
  }
  unconvertedLines(result, file).forEach(io.err);
  if (values.output === undefined) io.out(result.yaml.trimEnd());
  else await writeFile(values.output, result.yaml, 'utf8');
  io.err(summaryLine(result, values.output));
  return 0;
}

/** One line per part not converted: `FILE line N: not converted: WHAT; instead: ...`. */
export function unconvertedLines(result: Pick<ImportResult, 'unconverted'>, file: string): string[] {
  return result.unconverted.map((part) => `${file} line ${part.line}: not converted: ${part.what}; instead: ${part.instead}`);
}

function summaryLine(result: ImportResult, output: string | undefined): string {
  const steps = (result.yaml.match(/^ {2}- name: /gm) ?? []).length;
  const count = result.unconverted.length;
  const where = output === undefined ? 'printed' : `wrote ${output}`;
  const parts = count === 0 ? 'everything converted' : `${count} part${count === 1 ? '' : 's'} not converted (listed above, and marked "not converted" in the file)`;
  return `step-runner import: ${where}: ${steps} step${steps === 1 ? '' : 's'} from a ${Dialects[result.dialect]}; ${parts}`;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function readSource(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file does not exist' : `the file cannot be read (${(error as Error).message})`;
    throw new UnreadableCiFile(`${file}: ${reason}`);
  }
}
