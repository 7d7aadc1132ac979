/**
 * `step-runner list [FILE]`: a pipeline's steps as a build of this branch and event would see
 * them, decided by the code PrepareBuild decides with. Starts no cluster, no step.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { BuildRef } from '../../contract/index.js';
import { buildBranch, buildEvent, CHECKOUT_STEP, InvalidImage, InvalidPipeline, matrixTitle, parsePipeline, problemLines, resolveNeeds, WhenEvents, type Pipeline } from '../../pipeline/index.js';
import { planSteps } from '../../workflow/step-plan.js';
import { currentBranchRef, refAndEvent } from '../../local/source/local-source.js';
import { readPipelineFile } from '../../local/source/pipeline-file.js';
import { findWorkTree } from '../../local/source/source-snapshot.js';
import type { CommandIO } from './cluster.js';
import { chosenPipelineFile } from './default-pipeline.js';
import { branchOption, eventOption, UsageError } from './usage.js';

export const summary = 'list a pipeline file\'s steps: image, needs, services, and whether each runs (no cluster)';

const USAGE = 'list [FILE] [--branch B] [--event E] [--json]';

export const LIST_HELP = `Usage: step-runner ${USAGE}

Prints FILE's steps, in the file's order: each one's image, the steps it waits for (its needs,
or the step above it; clone is the checkout), its services, and what its "when" decides for this
branch and event: runs, runs only if the build fails, or skipped and why. A step with a matrix
is listed once per combination, each under its own name with its values. Exit 2 if the file is
not valid (every problem is listed, as run does). Starts no cluster, no step.
  FILE              the pipeline file (default: .step-runner.yml or .step-runner.yaml at the root
                    of the current git work tree, else in the current directory)
  --branch B        the branch, as run takes it (default: the current branch of the work tree
                    holding FILE; with --event pull_request, the base branch)
  --event E         the event, as run takes it: one of ${WhenEvents.join(', ')}
                    (default: local, which "when" counts as a push too)
  --json            print one object instead: {file, branch, event, steps: [{name, image,
                    needs, services, runs, reason, matrix}]} (matrix: {step, values} for a
                    combination of a step's matrix, else null)
  -h, --help        this help`;

/** A row of the list; `runs`: `yes`, `after-failure` (only once the build has failed) or `no` (see `reason`). */
export interface ListedStepRow {
  name: string;
  /** null for an approval step, which runs no image. */
  image: string | null;
  needs: string[];
  services: string[];
  runs: 'yes' | 'after-failure' | 'no';
  reason: string | null;
  /** A combination of a step's `matrix`: the step of the file, and its values. */
  matrix: { step: string; values: Record<string, string> } | null;
}

/** Each step as a build with these facts would take it. Pure. */
export function stepRows(pipeline: Pick<Pipeline, 'steps' | 'checkout'>, build: Pick<BuildRef, 'ref' | 'event' | 'baseRef'>): ListedStepRow[] {
  const checkout = pipeline.checkout === false ? undefined : CHECKOUT_STEP;
  const needs = resolveNeeds(pipeline.steps, checkout);
  const plan = planSteps(pipeline.steps, build, checkout);
  const skipped = new Map(plan.skipped.map((skip) => [skip.index, skip.reason]));
  const afterFailure = new Set(plan.afterFailure.map((step) => step.name));
  return pipeline.steps.map((step, index) => ({
    name: step.name,
    image: step.image ?? null,
    needs: needs[index]!,
    services: (step.services ?? []).map((service) => service.name),
    runs: skipped.has(index) ? 'no' : afterFailure.has(step.name) ? 'after-failure' : 'yes',
    reason: skipped.get(index) ?? null,
    matrix: step.matrix ? { step: step.matrix.of, values: step.matrix.values } : null,
  }));
}

/** Plain columns, each as wide as its widest cell. */
export function rowLines(rows: readonly ListedStepRow[]): string[] {
  const when = (row: ListedStepRow) => (row.runs === 'yes' ? 'runs' : row.runs === 'after-failure' ? 'runs only if the build fails' : `skipped: ${row.reason}`);
  // A matrix's combinations say which step of the file they are, and with what values.
  const matrices = rows.some((row) => row.matrix !== null);
  const matrix = (row: ListedStepRow) => (matrices ? [row.matrix ? matrixTitle(row.matrix.step, row.matrix.values) : '-'] : []);
  const table = [
    ['STEP', ...(matrices ? ['MATRIX'] : []), 'IMAGE', 'NEEDS', 'SERVICES', 'WHEN'],
    ...rows.map((row) => [row.name, ...matrix(row), row.image ?? '(approval)', row.needs.join(', ') || '-', row.services.join(', ') || '-', when(row)]),
  ];
  const widths = table[0]!.map((_, column) => Math.max(...table.map((cells) => cells[column]!.length)));
  return table.map((cells) => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '));
}

export async function run(argv: string[], io: CommandIO): Promise<number> {
  let values, file;
  try {
    const parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { branch: { type: 'string' }, event: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
    values = parsed.values;
    if (values.help) {
      io.out(LIST_HELP);
      return 0;
    }
    if (parsed.positionals.length > 1) throw new UsageError(`one pipeline file at a time, got ${parsed.positionals.length}`);
    if (values.branch !== undefined) branchOption(values.branch);
    if (values.event !== undefined) eventOption(values.event);
    file = await chosenPipelineFile(parsed.positionals[0]);
  } catch (error) {
    io.err(`step-runner list: ${(error as Error).message}`);
    io.err(`Usage: step-runner ${USAGE}`);
    return 2;
  }
  let pipeline;
  try {
    pipeline = parsePipeline((await readPipelineFile(file.path, file.shownAs)).text, file.shownAs);
  } catch (error) {
    if (!(error instanceof InvalidPipeline || error instanceof InvalidImage)) throw error;
    problemLines(error).forEach(io.err);
    return 2;
  }
  const build = refAndEvent({ ...(values.branch !== undefined ? { branch: values.branch } : {}), ...(values.event !== undefined ? { event: values.event } : {}) }, values.branch === undefined ? await workTreeBranch(file.path) : undefined);
  const rows = stepRows(pipeline, build);
  const branch = buildBranch(build) ?? null;
  const event = buildEvent(build) ?? null;
  if (values.json) {
    io.out(JSON.stringify({ file: file.shownAs, branch, event, steps: rows }));
  } else {
    io.out(`${file.shownAs}: ${rows.length} step${rows.length === 1 ? '' : 's'}, for ${branch === null ? 'no branch' : `branch ${branch}`}, event ${event}`);
    rowLines(rows).forEach(io.out);
  }
  return 0;
}

/** The ref of the branch checked out in the work tree holding the file, as `run` defaults to it. */
async function workTreeBranch(file: string): Promise<string | undefined> {
  const workTree = await findWorkTree(path.dirname(file));
  return workTree ? currentBranchRef(workTree) : undefined;
}
