/**
 * Pipeline text -> validated Pipeline, or errors that say where: the file, the step (by name when it
 * has one, else `steps[2]`), the field and the line.
 *
 * Which error wins: when a file has image problems *and* other problems, InvalidPipeline is thrown
 * and the image problems are among its `problems`, because the file must be fixed anyway and only
 * InvalidPipeline carries the whole list. InvalidImage is thrown when bad image references are the
 * only thing wrong, so the console's Error names the actual cause.
 */
import { InvalidImage, InvalidPipeline, type PipelineLocation } from './errors.js';
import { imageProblemMessage } from './image-reference.js';
import { withCacheLines } from './cache.js';
import { ProblemKinds, type PathSegment, type ProblemKind, type SchemaProblem } from './schema.js';
import { validatePipelineData } from './validate.js';
import type { Pipeline } from './types.js';
import { readYaml, type Position } from './yaml-document.js';

export interface PipelineProblem {
  /** Complete and readable on its own: file, line, step, field and what is wrong. */
  message: string;
  location: PipelineLocation;
  kind: ProblemKind;
  /** For image problems, the reference as written. */
  image?: string;
}

export type PipelineCheck = { ok: true; pipeline: Pipeline } | { ok: false; problems: PipelineProblem[] };

/** Pure: every problem in the file, ordered by line, or the normalised pipeline. */
export function checkPipeline(text: string, file: string): PipelineCheck {
  const read = readYaml(text);
  if (!read.ok) {
    return {
      ok: false,
      problems: read.problems.map((problem) => {
        const location = withPosition({ file }, problem.position);
        return { message: `${where(location)}${problem.message}`, location, kind: ProblemKinds.other };
      }),
    };
  }

  const validated = validatePipelineData(read.data);
  if (!validated.ok) {
    const problems = validated.problems.map((problem) => locateProblem(problem, file, read.data, read.locate));
    return { ok: false, problems: sortByLine(problems) };
  }
  const shared = sharedServiceCount(read.data);
  const lineOf = (path: readonly PathSegment[]) => read.locate(path)?.line;
  const steps = validated.pipeline.steps.map((step, at) => {
    // A matrix's steps all keep the lines of the step they came from.
    const index = validated.sources[at]!;
    const line = read.locate(['steps', index])?.line;
    const lined = line === undefined ? step : { ...step, line };
    // A step's caches are its own list or the pipeline's: each entry keeps the line it was written on.
    const cacheAt = hasOwnCache(read.data, index) ? ['steps', index, 'cache'] : ['cache'];
    const artifactsLine = lined.artifacts ? lineOf(['steps', index, 'artifacts']) : undefined;
    // A step's identity is its own or the pipeline's: PrepareBuild refuses an undeclared one at the line that names it.
    const identityLine = lined.identity !== undefined ? lineOf(hasOwn(read.data, index, 'identity') ? ['steps', index, 'identity'] : ['identity']) : undefined;
    // A build's Dockerfile problems (PrepareBuild's base image check) point at the line that names it.
    const buildLine = lined.build ? (lineOf(['steps', index, 'build', 'dockerfile']) ?? lineOf(['steps', index, 'build'])) : undefined;
    const located = {
      ...lined,
      ...(identityLine !== undefined ? { identityLine } : {}),
      ...(lined.build && buildLine !== undefined ? { build: { ...lined.build, line: buildLine } } : {}),
      ...(lined.cache ? { cache: withCacheLines(lined.cache, cacheAt, lineOf) } : {}),
      ...(lined.artifacts && artifactsLine !== undefined ? { artifacts: { ...lined.artifacts, line: artifactsLine } } : {}),
    };
    if (!located.services) return located;
    // Each step has the pipeline's services first, then its own: each keeps the line it was written on.
    const services = located.services.map((service, at) => {
      const serviceLine = read.locate(at < shared ? ['services', at] : ['steps', index, 'services', at - shared])?.line;
      return serviceLine === undefined ? service : { ...service, line: serviceLine };
    });
    return { ...located, services };
  });
  const expanded = Buffer.byteLength(JSON.stringify(steps), 'utf8');
  if (expanded > MAX_STEPS_JSON_BYTES) {
    const location = { file };
    // A matrix's combinations are steps of their own here: say how many there are, the likely cause.
    const combinations = steps.filter((step) => step.matrix).length;
    const matrices = combinations > 0 ? ` (${combinations} of them combinations of a matrix)` : '';
    const message = `${where(location)}the steps come to ${Math.ceil(expanded / 1024)} KiB once their aliases are expanded${matrices}; at most ${MAX_STEPS_JSON_BYTES / 1024} KiB fit in the build's state data (Step Functions' 256 KiB per state)`;
    return { ok: false, problems: [{ message, location, kind: ProblemKinds.other }] };
  }
  const cache = validated.pipeline.cache ? { cache: withCacheLines(validated.pipeline.cache, ['cache'], lineOf) } : {};
  return { ok: true, pipeline: { ...validated.pipeline, ...cache, steps, file } };
}

/**
 * The steps as PrepareBuild hands them to RunSteps. YAML aliases can make them larger than the file
 * (MAX_PIPELINE_BYTES), and they must leave room in a state's 256 KiB for the rest of the build.
 */
export const MAX_STEPS_JSON_BYTES = 128 * 1024;

/** Throws InvalidPipeline or InvalidImage (see the module comment for which) unless the file is valid. */
export function parsePipeline(text: string, file: string): Pipeline {
  const result = checkPipeline(text, file);
  if (result.ok) return result.pipeline;
  throw pipelineError(result.problems);
}

/** The error for a non-empty list of problems: the first one's message, and how many more. */
export function pipelineError(problems: readonly PipelineProblem[]): InvalidPipeline | InvalidImage {
  const [first] = problems;
  if (!first) throw new TypeError('pipelineError needs at least one problem');
  const more = problems.length - 1;
  const suffix = more > 0 ? ` (and ${more} more problem${more === 1 ? '' : 's'})` : '';
  const list = problems.map(({ message, location }) => ({ message, location }));
  if (problems.every((problem) => problem.kind === ProblemKinds.image)) {
    return new InvalidImage(first.message + suffix, first.image ?? '', first.location, list);
  }
  return new InvalidPipeline(first.message + suffix, first.location, list);
}

function locateProblem(
  problem: SchemaProblem,
  file: string,
  data: unknown,
  locate: (path: readonly PathSegment[]) => Position | undefined,
): PipelineProblem {
  const { step, field } = describePath(problem.path, data);
  const location = withPosition({ file, ...(step !== undefined ? { step } : {}), ...(field !== undefined ? { field } : {}) }, locate(problem.path));
  if (problem.kind === ProblemKinds.image) {
    const image = problem.image ?? '';
    // A service's image (`services[0].image`) says whose it is; a step's own needs no field.
    const message =
      field !== undefined && field !== 'image' ? `${where(location)}${field}: ${imageProblemMessage(image, problem.message)}` : imageProblemMessage(image, problem.message, location);
    return { message, location, kind: problem.kind, image };
  }
  // An unknown-key message already names the key; repeating it as the field reads badly.
  const fieldLabel = field !== undefined && problem.kind !== ProblemKinds.unknownKey ? `${field}: ` : '';
  return { message: `${where(location)}${fieldLabel}${problem.message}`, location, kind: problem.kind };
}

/** ["steps", 2, "env", "X"] -> step "build" (or "steps[2]"), field "env.X". */
function describePath(path: readonly PathSegment[], data: unknown): { step?: string; field?: string } {
  if (path[0] === 'steps' && typeof path[1] === 'number') {
    const index = path[1];
    const name = stepName(data, index);
    const rest = path.slice(2);
    return { step: name ?? `steps[${index}]`, ...(rest.length > 0 ? { field: formatPath(rest) } : {}) };
  }
  return path.length > 0 ? { field: formatPath(path) } : {};
}

/** How many services the pipeline lists for every step (they come first in each step's list). */
function sharedServiceCount(data: unknown): number {
  const services = typeof data === 'object' && data !== null ? (data as Record<string, unknown>)['services'] : undefined;
  return Array.isArray(services) ? services.length : 0;
}

function hasOwnCache(data: unknown, index: number): boolean {
  return hasOwn(data, index, 'cache');
}

function hasOwn(data: unknown, index: number, key: string): boolean {
  const steps = typeof data === 'object' && data !== null ? (data as Record<string, unknown>)['steps'] : undefined;
  const step: unknown = Array.isArray(steps) ? steps[index] : undefined;
  return typeof step === 'object' && step !== null && (step as Record<string, unknown>)[key] !== undefined;
}

function stepName(data: unknown, index: number): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const steps = (data as Record<string, unknown>)['steps'];
  if (!Array.isArray(steps)) return undefined;
  const step: unknown = steps[index];
  if (typeof step !== 'object' || step === null) return undefined;
  const name = (step as Record<string, unknown>)['name'];
  return typeof name === 'string' && name.trim() !== '' ? name : undefined;
}

function formatPath(path: readonly PathSegment[]): string {
  return path.reduce<string>((text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : text === '' ? segment : `${text}.${segment}`), '');
}

function where(location: PipelineLocation): string {
  const file = location.line !== undefined ? `${location.file} line ${location.line}` : location.file;
  const step = location.step === undefined ? '' : location.step.startsWith('steps[') ? `${location.step}: ` : `step ${JSON.stringify(location.step)}: `;
  return `${file}: ${step}`;
}

function withPosition(location: PipelineLocation, position: Position | undefined): PipelineLocation {
  return position ? { ...location, line: position.line, column: position.column } : location;
}

function sortByLine(problems: PipelineProblem[]): PipelineProblem[] {
  return problems
    .map((problem, order) => ({ problem, order }))
    .sort((a, b) => (a.problem.location.line ?? Infinity) - (b.problem.location.line ?? Infinity) || a.order - b.order)
    .map(({ problem }) => problem);
}
