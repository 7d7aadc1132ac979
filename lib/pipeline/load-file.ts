import { readFile } from 'node:fs/promises';
import { InvalidPipeline } from './errors.js';
import { parsePipeline } from './parse.js';
import type { Pipeline } from './types.js';

/** Reads and parses a pipeline file; the path as given is the name used in messages. */
export async function loadPipelineFile(path: string): Promise<Pipeline> {
  return parsePipeline(await readPipelineText(path), path);
}

async function readPipelineText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file does not exist' : `the file cannot be read (${(error as Error).message})`;
    throw new InvalidPipeline(`${path}: ${reason}`, { file: path });
  }
}
