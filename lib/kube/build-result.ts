/**
 * What a build step's builder left in its termination message (build-container.ts writes it), read
 * back: the pushed digest and tags, or which part failed, and from buildah's own output the
 * instruction that failed, placed on its line of the Dockerfile. Pure.
 *
 * buildah prints each instruction as it runs it, `STEP n/m: INSTRUCTION`, prefixed `[s/S] ` when
 * the Dockerfile has more than one stage, n counting the stage's instructions from its FROM
 * (containers/buildah imagebuildah/stage_executor.go, `logCommitStep`/"STEP %d/%d: %s"), and ends
 * a failed one with `Error: building at STEP "INSTRUCTION": ...`. A failed push ends with `Error:
 * pushing image ...: <the registry's words>` (checked with Debian's buildah 1.28).
 */
import { ErrorNames, type ErrorName } from '../contract/index.js';
import { ecrRepositoryOf } from '../registry/ecr-host.js';
import { BUILD_RESULT_HEADER } from './build-container.js';

export type BuildResult =
  | { outcome: 'pushed' | 'built'; digest?: string; tags: string[] }
  | { outcome: 'build-failed' | 'push-failed'; exitCode: number; output: string[]; tag?: string };

/**
 * Where each instruction of the build's Dockerfile is: the file as the workspace names it, and per
 * stage (in order) the line of each instruction, its FROM first. From PrepareBuild's read of the
 * Dockerfile (dockerfile.ts); absent when it could not read it.
 */
export interface DockerfileLines {
  file: string;
  stages: number[][];
}

/** The builder's message, or undefined when it is not one (the builder never got to write it). */
export function readBuildResult(message: string | undefined): BuildResult | undefined {
  if (!message?.startsWith(BUILD_RESULT_HEADER)) return undefined;
  const lines = message.split('\n');
  const outputAt = lines.indexOf('output:');
  const head = outputAt >= 0 ? lines.slice(1, outputAt) : lines.slice(1);
  const output = outputAt >= 0 ? lines.slice(outputAt + 1).filter((line, i, all) => line !== '' || i < all.length - 1) : [];
  const field = (name: string) => head.filter((line) => line.startsWith(`${name}: `)).map((line) => line.slice(name.length + 2));
  const [outcome] = field('outcome');
  const exitCode = Number(field('exit')[0] ?? NaN);
  const [digest] = field('digest');
  if (outcome === 'pushed' || outcome === 'built') return { outcome, ...(digest ? { digest } : {}), tags: field('tag') };
  const [tag] = field('tag');
  if (outcome === 'build-failed' || outcome === 'push-failed') return { outcome, exitCode: Number.isFinite(exitCode) ? exitCode : 1, output, ...(outcome === 'push-failed' && tag ? { tag } : {}) };
  return undefined;
}

export interface FailedInstruction {
  /** As buildah printed it (continuation lines already joined). */
  instruction: string;
  /** 1-based stage and its instruction, as buildah numbered them. */
  stage: number;
  step: number;
  /** Its line in the Dockerfile, when PrepareBuild read the file and the numbers fit it. */
  line?: number;
}

const STEP_LINE = /^(?:\[(\d+)\/\d+\] )?STEP (\d+)\/\d+: (.*)$/;

/** The last instruction buildah started: the one that failed, when the build failed. */
export function failedInstruction(output: readonly string[], dockerfile?: DockerfileLines): FailedInstruction | undefined {
  for (let i = output.length - 1; i >= 0; i--) {
    const match = STEP_LINE.exec(output[i] ?? '');
    if (!match) continue;
    const stage = Number(match[1] ?? 1);
    const step = Number(match[2]);
    const line = dockerfile?.stages[stage - 1]?.[step - 1];
    return { instruction: match[3]!, stage, step, ...(line !== undefined ? { line } : {}) };
  }
  return undefined;
}

/** How many of the output's last lines a Cause quotes. */
export const CAUSE_OUTPUT_LINES = 15;

/**
 * The Error and Cause of a failed build step, from its builder's message. `identity`: the one the
 * step's pod ran as (its service account's), which logged it in to ECR: a refused ECR push names it
 * and the repository, since it is the identity's role that lacks the permission.
 */
export function buildFailure(step: string, result: Extract<BuildResult, { exitCode: number }>, dockerfile?: DockerfileLines, identity?: string): { error: ErrorName; cause: string } {
  const tail = result.output.slice(-CAUSE_OUTPUT_LINES).join('\n');
  if (result.outcome === 'push-failed') {
    const pushing = [...result.output].reverse().find((line) => line.startsWith('Error: '));
    const words = pushing?.replace(/^Error: /, '') ?? `buildah push exited ${result.exitCode}`;
    const ecr = result.tag !== undefined ? ecrRepositoryOf(result.tag) : undefined;
    const refused = ecr && identity !== undefined
      ? `ECR refused the push of ${result.tag} as the identity "${identity}" (repository ${ecr.repository} in account ${ecr.accountId}, ${ecr.region}): ${words}. The image was built; the identity's role needs ecr:InitiateLayerUpload, ecr:UploadLayerPart, ecr:CompleteLayerUpload, ecr:BatchCheckLayerAvailability and ecr:PutImage on that repository, which must exist, and the tag must not be immutable.`
      : `the registry refused the push${result.tag !== undefined ? ` of ${result.tag}` : ''}: ${words}. The image was built; check the registry's credentials (the pipeline's pull-secrets, or the step's identity for ECR), that the repository exists, and that the tag is not immutable.`;
    return { error: ErrorNames.ImagePushFailed, cause: `Step "${step}": ${refused} The builder's last lines:\n${tail}` };
  }
  const failed = failedInstruction(result.output, dockerfile);
  const file = dockerfile?.file ?? 'the Dockerfile';
  // A FROM the builder could not pull (PrepareBuild's check could not tell: a registry it could not
  // reach, a reference it could not resolve) is a missing image, as a step's is, not a build failure.
  const pulling = failed?.step === 1 ? [...result.output].reverse().find((line) => line.startsWith('Error: creating build container: ')) : undefined;
  if (failed && pulling) {
    const where = failed.line !== undefined ? `${file} line ${failed.line}` : `${file}, stage ${failed.stage}`;
    return {
      error: ErrorNames.ImagePullFailed,
      cause: `Step "${step}": ${where}: ${failed.instruction}: the builder could not pull the base image: ${pulling.slice('Error: creating build container: '.length)}. The builder's last lines:\n${tail}`,
    };
  }
  const where = failed ? (failed.line !== undefined ? `${file} line ${failed.line}` : `${file}, stage ${failed.stage}, instruction ${failed.step}`) : file;
  const what = failed ? `${where}: ${failed.instruction} failed (exit code ${result.exitCode})` : `${where} did not build: the builder exited ${result.exitCode} before any instruction ran`;
  return { error: ErrorNames.ImageBuildFailed, cause: `Step "${step}": ${what}. The builder's last lines:\n${tail}` };
}
