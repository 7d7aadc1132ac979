/**
 * `step-runner import`: another CI's file as a pipeline file (docs/import.md). Pure: text in, the
 * pipeline's text and what was not converted out; the result is checked by the pipeline's own
 * parser, so a file this writes is one `run` reads.
 */
import { checkPipeline, type PipelineProblem } from '../pipeline/index.js';
import { emitPipeline } from './emit.js';
import { convertGitHub } from './github.js';
import { convertGitLab } from './gitlab.js';
import { readSource, type SourceFile } from './source.js';
import { settleFailureSteps } from './when.js';
import { uniqueServiceNames } from './names.js';
import { fitTimeBudget } from './time-budget.js';
import { Dialects, UnreadableCiFile, type Dialect, type ImportResult } from './types.js';

export { Dialects, UnreadableCiFile, type Dialect, type ImportResult, type Unconverted } from './types.js';

/** A workflow has `jobs:` with `on:`; a GitLab file has neither (its jobs are top-level keys). */
function dialectOf(source: SourceFile): Dialect {
  const hasTrigger = 'on' in source.data || 'true' in source.data;
  return typeof source.data.jobs === 'object' && source.data.jobs !== null && hasTrigger ? 'github' : 'gitlab';
}

/** The conversion; throws UnreadableCiFile for a file that is not YAML or holds no job. */
export function importCi(text: string, file: string): ImportResult & { problems: PipelineProblem[] } {
  const source = readSource(text, file);
  if (source.data.version !== undefined && Array.isArray(source.data.steps)) throw new UnreadableCiFile(`${file}: already a step-runner pipeline file (version and steps): \`step-runner validate ${file}\` checks it`);
  const dialect = dialectOf(source);
  const draft = dialect === 'github' ? convertGitHub(source) : convertGitLab(source);
  settleFailureSteps(draft.steps);
  for (const step of draft.steps) if (step.services) step.services = uniqueServiceNames(step.services);
  fitTimeBudget(draft);
  if (draft.steps.length === 0) throw new UnreadableCiFile(`${file}: no job to convert in this ${Dialects[dialect]}`);
  // One part of the file, one entry: a `default:` key several jobs inherit is listed once.
  const parts = new Map([...draft.unconverted, ...draft.steps.flatMap((step) => step.unconverted)].map((part) => [`${part.line}\n${part.what}`, part]));
  const unconverted = [...parts.values()].sort((a, b) => a.line - b.line);
  const count = unconverted.length;
  const header = [
    ` Converted from ${file} (a ${Dialects[dialect]}) by \`step-runner import\`.`,
    ' The steps share one workspace: what a step writes, the steps after it read (docs/pipeline.md).',
    count === 0 ? ' Everything was converted.' : ` ${count} part${count === 1 ? ' was' : 's were'} not converted: each is marked "not converted" below, with what to do instead.`,
  ];
  const yaml = emitPipeline(draft, header);
  const checked = checkPipeline(yaml, file);
  return { dialect, yaml, unconverted, problems: checked.ok ? [] : checked.problems };
}
