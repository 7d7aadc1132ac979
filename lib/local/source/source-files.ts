/**
 * A local build's files at its commit, for PrepareBuild's read of a build step's Dockerfile: the
 * snapshot repository the clone fetches from (source-snapshot.ts, a file:// URL), read with this
 * machine's git (`git cat-file blob COMMIT:PATH`), so PrepareBuild reads exactly what the builder
 * will build, and the tree id of a build's context for its inputs key. A source that is no local
 * repository has no reader here.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BuildInput } from '../../contract/index.js';
import type { SourceFileRead, SourceFiles } from '../../workflow/build-bases.js';

/** Larger than any Dockerfile: the read is cut there rather than held in memory. */
const MAX_FILE_BYTES = 1024 * 1024;

export function localSourceFiles(input: BuildInput): SourceFiles | undefined {
  const source = input.source;
  if (!source) return undefined;
  const gitDir = source.url.startsWith('file:') ? fileURLToPath(source.url) : source.url.startsWith('/') ? source.url : undefined;
  if (!gitDir) return undefined;
  return {
    // The root's tree is `COMMIT^{tree}` (gitrevisions(7)); a folder's is its entry in `ls-tree`, `040000 tree ID\tPATH`.
    treeId: (path) =>
      new Promise<string | undefined>((resolve) => {
        const folder = path.replace(/\/+$/, '');
        const args = folder === '.' || folder === '' ? ['rev-parse', '--verify', '--quiet', `${source.commit}^{tree}`] : ['ls-tree', '-d', source.commit, '--', folder];
        execFile('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8' }, (error, stdout) => {
          const id = folder === '.' || folder === '' ? stdout.trim() : /^\d+ tree ([0-9a-f]+)\t/.exec(stdout)?.[1];
          resolve(!error && id !== undefined && /^[0-9a-f]{40,64}$/.test(id) ? id : undefined);
        });
      }),
    read: (path) =>
      new Promise<SourceFileRead>((resolve) => {
        execFile('git', ['--git-dir', gitDir, 'cat-file', 'blob', `${source.commit}:${path}`], { maxBuffer: MAX_FILE_BYTES, encoding: 'utf8' }, (error, stdout, stderr) => {
          if (!error) return resolve({ found: true, text: stdout });
          const words = stderr.trim().split('\n').at(-1) || error.message;
          resolve({ found: false, reason: /does not exist|exists on disk, but not in|Not a valid object name/.test(words) ? `${path} is not in the build's commit` : words });
        });
      }),
  };
}
