/**
 * The globs of `when.branch` and `paths`, as GitHub Actions and Drone read them: `*` matches any
 * characters but `/`, `**` any characters, `/` included, and `?` one character but `/`; anything
 * else is itself. Pure.
 */

/** Whether the whole of a text (a branch, a repository path) matches a glob. */
export function globMatches(pattern: string, text: string): boolean {
  return globRegExp(pattern).test(text);
}

function globRegExp(pattern: string): RegExp {
  return new RegExp(globSource(pattern));
}

/**
 * The regular expression's source (POSIX ERE as much as JavaScript's, so a pod's `grep -E` reads it
 * too). `emptyGlobstar`: a `**` segment may match no folder at all, as in GitHub Actions' filter
 * patterns (`reports/**` then `*.xml` matches `reports/junit.xml` too); report globs read it so.
 */
export function globSource(pattern: string, options: { emptyGlobstar?: boolean } = {}): string {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '*' && pattern[i + 1] === '*') {
      if (options.emptyGlobstar && pattern[i + 2] === '/') {
        source += '(.*/)?';
        i += 2;
      } else {
        source += '.*';
        i++;
      }
    } else if (char === '*') {
      source += '[^/]*';
    } else if (char === '?') {
      source += '[^/]';
    } else {
      source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return `^${source}$`;
}
