/**
 * `run`'s pipeline file: the one named on the command line, else the work tree's default file
 * (./default-pipeline.ts), which the progress stream then names, since the user did not.
 */
import path from 'node:path';
import type { CommandIO } from './cluster.js';
import { defaultPipelineFile } from './default-pipeline.js';
import type { RunArgs, RunOptions } from './run-args.js';

/** Throws NoPipelineFile (a usage error) when no file is named and there is no default one. */
export async function withPipelineFile(args: RunArgs, io: Pick<CommandIO, 'out' | 'err'>): Promise<RunOptions> {
  if (args.file !== undefined) return { ...args, file: args.file };
  const cwd = process.cwd();
  const file = await defaultPipelineFile(cwd);
  (args.json ? io.err : io.out)(`Pipeline: ${file}`);
  // Shown (in problems, the console's title) as the user would type it from here.
  return { ...args, file: path.relative(cwd, file) };
}
