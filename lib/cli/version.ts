/**
 * `step-runner --version`: the package's version, from the nearest package.json above this
 * module, the one Node itself reads this module's "type" from. That is the package's own in a
 * checkout (lib/cli/) and once installed (dist/lib/cli/), with no copy of the file to drift.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageVersion(moduleUrl = import.meta.url): string {
  for (let dir = path.dirname(fileURLToPath(moduleUrl)); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${fileURLToPath(moduleUrl)}`);
  }
}
