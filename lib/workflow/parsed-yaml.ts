/**
 * The project's own YAML files (the definition, serverless.yml) parsed once per content for every
 * process on the machine: the parsed form is kept as JSON in the temporary directory under the
 * content's SHA-256. Parsing each of them costs about 100 ms of CPU where JSON costs 1, and every
 * `step-runner run` and every test file that runs a build starts from scratch. A changed file has
 * another hash, so nothing stale is ever read; a cache that cannot be written is only slower.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

const CACHE_DIR = path.join(tmpdir(), 'step-runner-parsed-yaml');

export function readYamlFile(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  const cached = path.join(CACHE_DIR, `${createHash('sha256').update(text).digest('hex')}.json`);
  try {
    return JSON.parse(readFileSync(cached, 'utf8')) as unknown;
  } catch {
    // Not cached yet (or cut short by a crash: JSON.parse refused it); parse and keep it below.
  }
  const parsed: unknown = parse(text);
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    // Renamed into place, so a reader beside this writer sees the whole file or none.
    const partial = `${cached}.${process.pid}.partial`;
    writeFileSync(partial, JSON.stringify(parsed));
    renameSync(partial, cached);
  } catch {
    // A read-only or full temporary directory: the next process parses again.
  }
  return parsed;
}
