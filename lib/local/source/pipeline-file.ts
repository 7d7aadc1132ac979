import { readFile } from 'node:fs/promises';
import type { PipelineSource, PipelineText } from '../../forge/pipeline-source.js';
import { InvalidPipeline, parsePipeline } from '../../pipeline/index.js';

/**
 * A pipeline file on this machine, read and validated before anything starts: throws
 * InvalidPipeline (unreadable or invalid) or InvalidImage, named by `shownAs` (the path as typed).
 */
export async function readPipelineFile(file: string, shownAs: string): Promise<PipelineText> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InvalidPipeline(`${shownAs}: cannot read the pipeline file (${(error as NodeJS.ErrnoException).code})`, { file: shownAs });
  }
  parsePipeline(text, shownAs);
  return { file: shownAs, text };
}

/** Every GitHub delivery builds this one pipeline: a local server cannot read the repository. */
export function fixedPipelineSource(pipeline: PipelineText): PipelineSource {
  return { load: async () => pipeline };
}
