/**
 * Every relative link of the README and docs/ leads somewhere: the file exists, and a `#anchor`
 * names a heading of that page (as GitHub makes anchors from headings), so moving a section
 * cannot silently break the links to it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(path.join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#+ (.+)$/gm)].map((m) => anchor(m[1]!)));
}

function linksOf(page: string): { target: string; line: number }[] {
  const text = readFileSync(path.join(ROOT, page), 'utf8');
  const links: { target: string; line: number }[] = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) return;
    for (const match of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) links.push({ target: match[1]!, line: i + 1 });
  });
  return links.filter((link) => !/^[a-z]+:/.test(link.target));
}

test.each(PAGES)('every relative link of %s leads to a file and a heading that exist', (page) => {
  const broken: string[] = [];
  for (const { target, line } of linksOf(page)) {
    const [file = '', hash] = target.split('#');
    const resolved = file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
    if (!existsSync(path.join(ROOT, resolved))) broken.push(`${page}:${line}: ${target}: no file ${resolved}`);
    else if (hash !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(hash)) broken.push(`${page}:${line}: ${target}: no heading #${hash} in ${resolved}`);
  }
  expect(broken).toEqual([]);
});
