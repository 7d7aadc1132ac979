/**
 * The project's own YAML files (the definition, serverless.yml) parsed once per content for every
 * process on the machine: the parsed form is kept as JSON in the temporary directory under the
 * content's SHA-256. Parsing each of them costs about 100 ms of CPU where JSON costs 1, and every
 * `step-runner run` and every test file that runs a build starts from scratch. A changed file has
 * another hash, so nothing stale is ever read; a cache that cannot be written is only slower.
 * The folder is the user's own (mode 0700, checked): in a temporary directory shared with other
 * users, one of them could otherwise plant the definition another user's runs execute.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

const uid = process.getuid?.();
const CACHE_DIR = path.join(tmpdir(), `step-runner-parsed-yaml-${uid ?? 'user'}`);

/** Whether the cache folder is there and only this user may write to it. */
function ownCache(): boolean {
  try {
    mkdirSync(CACHE_DIR, { recursive: true, mode: 0o700 });
    const folder = statSync(CACHE_DIR);
    return (uid === undefined || folder.uid === uid) && (folder.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

export function readYamlFile(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  if (!ownCache()) return parse(text);
  const cached = path.join(CACHE_DIR, `${createHash('sha256').update(text).digest('hex')}.json`);
  try {
    return JSON.parse(readFileSync(cached, 'utf8')) as unknown;
  } catch {
    // Not cached yet (or cut short by a crash: JSON.parse refused it); parse and keep it below.
  }
  const parsed: unknown = parse(text);
  try {
    // Renamed into place, so a reader beside this writer sees the whole file or none.
    const partial = `${cached}.${process.pid}.partial`;
    writeFileSync(partial, JSON.stringify(parsed));
    renameSync(partial, cached);
  } catch {
    // A read-only or full temporary directory: the next process parses again.
  }
  return parsed;
}
