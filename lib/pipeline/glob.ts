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
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (char === '*') {
      source += '[^/]*';
    } else if (char === '?') {
      source += '[^/]';
    } else {
      source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`);
}
