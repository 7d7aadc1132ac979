/**
 * `run`'s pipeline file: the one named on the command line, else the work tree's default file
 * (./default-pipeline.ts), which the progress stream then names, since the user did not.
 */
import type { CommandIO } from './cluster.js';
import { chosenPipelineFile } from './default-pipeline.js';
import type { RunArgs, RunOptions } from './run-args.js';

/** Throws NoPipelineFile (a usage error) when no file is named and there is no default one. */
export async function withPipelineFile(args: RunArgs, io: Pick<CommandIO, 'out' | 'err'>): Promise<RunOptions> {
  if (args.file !== undefined) return { ...args, file: args.file };
  const chosen = await chosenPipelineFile(undefined);
  (args.json ? io.err : io.out)(`Pipeline: ${chosen.path}`);
  // Shown (in problems, the console's title) as the user would type it from here.
  return { ...args, file: chosen.shownAs };
}
