/**
 * `run` has the commit it builds at hand (the work tree's snapshot), so a cache key file pattern
 * that matches none of its files is refused before anything starts, with the line, as the issue
 * of a pipeline should be, instead of when the clone runs. The patterns are matched as the clone
 * matches them: against the commit's tracked files, `*` not crossing `/` and `**` crossing it.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { BuildSource } from '../../contract/index.js';
import { InvalidPipeline, type Pipeline } from '../../pipeline/index.js';

const run = promisify(execFile);

/**
 * Whether git's `:(glob)PATTERN` pathspec matches the path: `*` and `?` never cross `/`, a
 * leading `**\/` matches in every folder (the root too), `/**\/` any folders between, a trailing
 * `/**` everything inside, and a plain path (no wildcard) that names a folder, what is in it.
 */
export function gitGlobMatches(pattern: string, file: string): boolean {
  let regex = '';
  for (let i = 0; i < pattern.length; i++) {
    const rest = pattern.slice(i);
    if (rest.startsWith('**/') && (i === 0 || pattern[i - 1] === '/')) {
      regex += '(?:.*/)?';
      i += 2;
    } else if (rest === '**' && (i === 0 || pattern[i - 1] === '/')) {
      regex += '.*';
      i += 1;
    } else if (pattern[i] === '*') {
      regex += '[^/]*';
    } else if (pattern[i] === '?') {
      regex += '[^/]';
    } else if (pattern[i] === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end === -1) {
        regex += '\\[';
      } else {
        const body = pattern.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
        regex += `[${body}]`;
        i = end;
      }
    } else {
      regex += pattern[i]!.replace(/[.+^${}()|\\\]]/g, '\\$&');
    }
  }
  const matcher = new RegExp(`^${regex}$`);
  if (/[*?[]/.test(pattern)) return matcher.test(file);
  // A plain path that names a folder matches every file in it, as a pathspec does.
  const parts = file.split('/');
  return parts.some((_, i) => matcher.test(parts.slice(0, i + 1).join('/')));
}

/** The commit's files, as repository paths. */
export async function commitFiles(repositoryUrl: string, commit: string): Promise<string[]> {
  const gitDir = repositoryUrl.startsWith('file:') ? fileURLToPath(repositoryUrl) : repositoryUrl;
  const { stdout } = await run('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-z', '--name-only', commit], { maxBuffer: 256 * 1024 * 1024 });
  return stdout.split('\0').filter((name) => name !== '');
}

/** The pipeline's key file patterns that match none of `files`, as one InvalidPipeline; undefined when all match. */
export function unmatchedKeyFiles(pipeline: Pipeline, files: readonly string[]): InvalidPipeline | undefined {
  const seen = new Set<string>();
  const problems: { message: string; line?: number; step: string }[] = [];
  for (const step of pipeline.steps) {
    for (const cache of step.cache ?? []) {
      for (const pattern of cache.key.files) {
        const line = cache.filesLine ?? cache.line;
        const where = `${line ?? ''}:${pattern}`;
        if (seen.has(where) || files.some((file) => gitGlobMatches(pattern, file))) continue;
        seen.add(where);
        problems.push({ message: `"${pattern}" matches no file of the commit`, ...(line !== undefined ? { line } : {}), step: step.name });
      }
    }
  }
  const [first] = problems;
  if (!first) return undefined;
  const located = (p: (typeof problems)[number]) => `${pipeline.file}${p.line !== undefined ? ` line ${p.line}` : ''}: cache.key.files: ${p.message}`;
  return new InvalidPipeline(
    `${located(first)}: a cache key is a hash of files of the repository`,
    { file: pipeline.file, field: 'cache.key.files', ...(first.line !== undefined ? { line: first.line } : {}) },
    problems.map((p) => ({ message: located(p), location: { file: pipeline.file, field: 'cache.key.files', ...(p.line !== undefined ? { line: p.line } : {}) } })),
  );
}

/**
 * What `run` refuses before it starts (and `validate` with it): key file patterns that match no
 * file of the source it builds. Undefined when all match, or when there is no source or no key file.
 */
export async function keyFilesProblem(pipeline: Pipeline, source: Pick<BuildSource, 'url' | 'commit'> | undefined): Promise<InvalidPipeline | undefined> {
  if (!source || !hasKeyFiles(pipeline)) return undefined;
  return unmatchedKeyFiles(pipeline, await commitFiles(source.url, source.commit));
}

/** Whether a pipeline has any cache keyed on files (only then is its source worth a snapshot before it runs). */
export function hasKeyFiles(pipeline: Pipeline): boolean {
  return pipeline.steps.some((step) => step.cache?.some((cache) => cache.key.files.length > 0));
}
