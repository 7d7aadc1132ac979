/** The page's stylesheet and script, read once from this folder and served by the local server. */
import { readFile } from 'node:fs/promises';

const FILES: Record<string, string> = {
  'console.css': 'text/css; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
};

const cache = new Map<string, Buffer>();

/** Only the files listed above: a request cannot name any other file. */
export async function consoleAsset(file: string): Promise<{ body: Buffer; contentType: string } | undefined> {
  const contentType = FILES[file];
  if (!contentType) return undefined;
  let body = cache.get(file);
  if (!body) {
    body = await readFile(new URL(`./assets/${file}`, import.meta.url));
    cache.set(file, body);
  }
  return { body, contentType };
}
