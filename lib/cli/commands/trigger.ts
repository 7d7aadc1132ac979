/** `step-runner trigger`: a manual run of a deployment's build, through its signed generic webhook. */
import { randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import { InvalidImage, InvalidPipeline, parsePipeline, problemLines, resolveInputs } from '../../pipeline/index.js';
import { readPipelineFile } from '../../local/source/pipeline-file.js';
import type { CommandIO } from './cluster.js';
import { parseTriggerArgs, TRIGGER_HELP, TRIGGER_USAGE, triggerPayload, type TriggerOptions } from './trigger-args.js';
import { UsageError } from './usage.js';

export const summary = "start a build on a deployment by hand, with the pipeline's inputs (its signed generic webhook, event manual)";

/** A deployment that does not answer within this is reported as such; the webhook answers in seconds. */
const ANSWER_TIMEOUT_MS = 30_000;

export async function run(argv: string[], io: CommandIO, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let options: TriggerOptions;
  try {
    const parsed = parseTriggerArgs(argv, env);
    if (parsed.help) {
      io.out(TRIGGER_HELP);
      return 0;
    }
    options = parsed;
    if (options.pipeline !== undefined) await checkInputs(options.pipeline, options.inputs);
  } catch (error) {
    // parseArgs refuses an unknown option or a missing value with an ERR_PARSE_ARGS_* TypeError.
    if (!(error instanceof UsageError) && !/^ERR_PARSE_ARGS/.test((error as NodeJS.ErrnoException).code ?? '')) throw error;
    io.err(`step-runner trigger: ${(error as Error).message}`);
    io.err(`Usage: step-runner ${TRIGGER_USAGE}`);
    return 2;
  }
  const body = JSON.stringify(triggerPayload(options));
  let response: Response;
  try {
    response = await fetch(options.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-signature-256': await sign(options.secret, body),
        // A new delivery each time: each trigger is a build of its own (the execution's name derives from it).
        'x-delivery-id': `trigger-${randomUUID()}`,
        'user-agent': 'step-runner-trigger',
      },
      body,
      signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
    });
  } catch (error) {
    io.err(`step-runner trigger: ${options.url} did not answer: ${(error as Error).message}`);
    return 1;
  }
  const text = await response.text();
  let answer: Record<string, unknown> = {};
  try {
    answer = JSON.parse(text) as Record<string, unknown>;
  } catch {
    answer = {};
  }
  if (options.json) io.out(text);
  if (response.status === 202) {
    if (!options.json) {
      io.out(`Started ${String(answer['executionName'] ?? 'a build')}${answer['alreadyStarted'] ? ' (already started)' : ''}`);
      if (answer['consoleUrl']) io.out(`Watch it at ${String(answer['consoleUrl'])}`);
    }
    return 0;
  }
  io.err(`step-runner trigger: the deployment refused the build (${response.status} ${String(answer['error'] ?? response.statusText)}): ${String(answer['message'] ?? text.slice(0, 500))}`);
  return 1;
}

/** The inputs against the file's `inputs:`, as the deployment will check them; a UsageError naming each input that does not fit. */
async function checkInputs(file: string, inputs: Record<string, string>): Promise<void> {
  let pipeline;
  try {
    pipeline = parsePipeline((await readPipelineFile(file, file)).text, file);
  } catch (error) {
    if (error instanceof InvalidPipeline || error instanceof InvalidImage) throw new UsageError(problemLines(error).join('; '));
    throw error;
  }
  const resolved = resolveInputs(pipeline.inputs, inputs);
  if (!resolved.ok) throw new UsageError(`the inputs do not fit ${file}'s: ${resolved.problems.map((problem) => problem.message).join('; ')}`);
}
