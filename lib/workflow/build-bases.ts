/**
 * PrepareBuild's read of each build step's Dockerfile (issue 39): the file from the build's
 * commit (SourceFiles: the forge's API on AWS, the work tree's snapshot locally), its FROM images
 * resolved (lib/pipeline/dockerfile.ts), to be asked about with the steps' images, and the line
 * of every instruction put on the step for the classifier. Nothing here fails the build but a
 * registry saying a base image does not exist (image-check.ts): a file that cannot be read, or a
 * FROM that cannot be resolved or parsed, is left to the builder, and said.
 */
import { checkImageReference, readDockerfile, type ImageReference, type Step } from '../pipeline/index.js';

export type SourceFileRead = { found: true; text: string } | { found: false; reason: string };

/** The build's files at its commit. */
export interface SourceFiles {
  read(path: string): Promise<SourceFileRead>;
  /**
   * The git tree id of a folder (`.`: the root) at the commit, or undefined when it is no folder
   * there: what a build step's inputs key hashes for its context (build-reuse.ts). Without it, no
   * build step is skipped.
   */
  treeId?(path: string): Promise<string | undefined>;
}

/** A base image a build step's Dockerfile names, where it names it. */
export interface BaseImage {
  reference: ImageReference;
  step: string;
  /** The Dockerfile, as the workspace names it, and the line of its FROM. */
  file: string;
  line: number;
}

export interface BuildBases {
  /** The steps, a build step's `build.instructionLines` filled in when its Dockerfile was read. */
  steps: Step[];
  bases: BaseImage[];
  /** What could not be read or resolved, for PrepareBuild's log. */
  notes: string[];
  /** The build steps with a FROM image not asked about (unread, unresolved, `image-check: false`): their inputs key could not name it. */
  unchecked: Set<string>;
}

/**
 * Reads each build step's Dockerfile once (steps sharing one share the read); a step with
 * `image-check: false` has its Dockerfile read for its lines but its bases not asked about.
 */
export async function buildBases(steps: readonly Step[], source: SourceFiles | undefined): Promise<BuildBases> {
  const builds = steps.filter((step) => step.build);
  if (builds.length === 0) return { steps: [...steps], bases: [], notes: [], unchecked: new Set() };
  if (!source) return { steps: [...steps], bases: [], unchecked: new Set(builds.map((step) => step.name)), notes: [`the Dockerfiles of ${list(builds.map((s) => s.name))} were not read (this runtime cannot read the build's source): their base images are left to the builder`] };
  const reads = new Map<string, Promise<SourceFileRead>>();
  const read = (path: string) => reads.get(path) ?? (reads.set(path, source.read(path).catch((error: unknown) => ({ found: false as const, reason: error instanceof Error ? error.message : String(error) }))), reads.get(path)!);
  const bases: BaseImage[] = [];
  const notes: string[] = [];
  const unchecked = new Set<string>();
  const out: Step[] = [];
  for (const step of steps) {
    if (!step.build) {
      out.push(step);
      continue;
    }
    const file = step.build.dockerfile;
    const text = await read(file);
    if (!text.found) {
      unchecked.add(step.name);
      notes.push(`step "${step.name}": ${file} was not read (${text.reason}): its base images are left to the builder`);
      out.push(step);
      continue;
    }
    const dockerfile = readDockerfile(text.text, step.build.buildArgs);
    if (dockerfile.problem) {
      unchecked.add(step.name);
      notes.push(`step "${step.name}": ${file} ${dockerfile.problem}`);
    }
    out.push({ ...step, build: { ...step.build, instructionLines: dockerfile.stages.map((stage) => stage.instructionLines) } });
    for (const { from } of dockerfile.stages) {
      if (from.unresolved !== undefined) {
        unchecked.add(step.name);
        notes.push(`step "${step.name}": ${file} line ${from.line}: FROM ${from.written} is left to the builder (${from.unresolved} has no value)`);
        continue;
      }
      if (from.image === undefined) continue;
      const checked = checkImageReference(from.image);
      if (!checked.ok) {
        unchecked.add(step.name);
        notes.push(`step "${step.name}": ${file} line ${from.line}: FROM ${from.image} is left to the builder (${checked.reason})`);
        continue;
      }
      if (step.imageCheck !== false) bases.push({ reference: checked.image, step: step.name, file, line: from.line });
      else unchecked.add(step.name);
    }
  }
  return { steps: out, bases, notes, unchecked };
}

function list(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(', ');
}
