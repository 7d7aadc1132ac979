/** `step-runner validate [FILE]`: the checks `run` makes before anything starts, and nothing else. */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { InvalidImage, InvalidPipeline, parsePipeline, problemLines, problemReports, type Pipeline, type ProblemReport } from '../../pipeline/index.js';
import { readPipelineFile } from '../../local/source/pipeline-file.js';
import { hasKeyFiles, keyFilesProblem } from '../../local/source/cache-key-files.js';
import { localSource } from '../../local/source/local-source.js';
import { SourceSnapshotError } from '../../local/source/source-snapshot.js';
import type { CommandIO } from './cluster.js';
import { chosenPipelineFile } from './default-pipeline.js';
import { UsageError } from './usage.js';

export const summary = 'check a pipeline file as run does before it starts anything (no cluster)';

const USAGE = 'validate [FILE] [--json]';

export const VALIDATE_HELP = `Usage: step-runner ${USAGE}

Reads FILE and checks it as \`run\` does before it starts anything: exit 0 and "FILE: valid, N
steps" (and each matrix's steps, one per combination) when it would be accepted, 2 and every problem (as \`run\` prints them) when not. A cache
key's files are matched against the work tree holding FILE as it is on disk, as \`run\` builds it.
Starts no cluster, no step.
  FILE              the pipeline file (default: .step-runner.yml or .step-runner.yaml at the root
                    of the current git work tree, else in the current directory)
  --json            print one object instead: {file, valid, steps, matrices, problems}
                    (matrices: [{step, steps}], each matrix's step and the names of its
                    combinations' steps; problems as in run --json)
  -h, --help        this help`;

/** `validate --json`'s object. */
export interface ValidateResult {
  file: string;
  valid: boolean;
  /** How many steps the file has, each matrix's combinations counted (0 when it is not valid). */
  steps: number;
  /** Each step with a matrix, and the steps its combinations are, by name. */
  matrices: { step: string; steps: string[] }[];
  problems: ProblemReport[];
}

export async function run(argv: string[], io: CommandIO): Promise<number> {
  let values, file;
  try {
    const parsed = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
    values = parsed.values;
    if (values.help) {
      io.out(VALIDATE_HELP);
      return 0;
    }
    if (parsed.positionals.length > 1) throw new UsageError(`one pipeline file at a time, got ${parsed.positionals.length}`);
    file = await chosenPipelineFile(parsed.positionals[0]);
  } catch (error) {
    io.err(`step-runner validate: ${(error as Error).message}`);
    io.err(`Usage: step-runner ${USAGE}`);
    return 2;
  }
  try {
    const { text } = await readPipelineFile(file.path, file.shownAs);
    const pipeline = parsePipeline(text, file.shownAs);
    const unmatched = await sourceProblem(pipeline, file.path);
    if (unmatched) throw unmatched;
    const steps = pipeline.steps.length;
    const matrices = matricesOf(pipeline);
    if (values.json) io.out(JSON.stringify({ file: file.shownAs, valid: true, steps, matrices, problems: [] } satisfies ValidateResult));
    else {
      io.out(`${file.shownAs}: valid, ${steps} step${steps === 1 ? '' : 's'}`);
      for (const matrix of matrices) io.out(`  ${matrix.step}: a matrix of ${matrix.steps.length}: ${matrix.steps.join(', ')}`);
    }
    return 0;
  } catch (error) {
    if (error instanceof SourceSnapshotError) {
      io.err(`${error.name}: ${error.message}`);
      return 2;
    }
    if (!(error instanceof InvalidPipeline || error instanceof InvalidImage)) throw error;
    problemLines(error).forEach(io.err);
    if (values.json) io.out(JSON.stringify({ file: file.shownAs, valid: false, steps: 0, matrices: [], problems: problemReports(error) } satisfies ValidateResult));
    return 2;
  }
}

function matricesOf(pipeline: Pipeline): ValidateResult['matrices'] {
  const byStep = new Map<string, string[]>();
  for (const step of pipeline.steps) if (step.matrix) byStep.set(step.matrix.of, [...(byStep.get(step.matrix.of) ?? []), step.name]);
  return [...byStep].map(([step, steps]) => ({ step, steps }));
}

/**
 * What `run` refuses once it has its source (cache-key-files.ts): a key file pattern that matches
 * no file of the work tree as it is on disk, which `run` would snapshot. The snapshot is made only
 * for a pipeline with such a key, and thrown away at once.
 */
async function sourceProblem(pipeline: Pipeline, file: string): Promise<InvalidPipeline | undefined> {
  if (pipeline.checkout === false || !hasKeyFiles(pipeline)) return undefined;
  const source = await localSource(path.resolve(file), { checksOut: true });
  try {
    return await keyFilesProblem(pipeline, source.source);
  } finally {
    await source.dispose();
  }
}
