/**
 * docs/architecture.md's module map names every module there is, and no module that is gone: a
 * module added under lib/ or functions/ without its line fails here. The embedded cluster's modules
 * (lib/emulators/kubernetes/) are mapped in docs/embedded-cluster.md, "Modules", which architecture.md
 * hands them to.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLUSTER = 'lib/emulators/kubernetes/';

/** Every non-test TypeScript module under lib/ and functions/, as a path from the repository root. */
function modulesOnDisk(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) found.push(relative);
    }
  };
  walk('lib');
  walk('functions');
  return found.sort();
}

/** `a.{css,js}` -> `a.css`, `a.js`. */
function expandBraces(name: string): string[] {
  const match = /^(.*)\{([^}]*)\}(.*)$/.exec(name);
  return match ? match[2]!.split(',').flatMap((part) => expandBraces(`${match[1]}${part}${match[3]}`)) : [name];
}

/**
 * The modules a module map names: each table row's first cell, relative to its section's folder; a
 * row for a folder (`runtime/docker/`) names the files its text lists, in that folder.
 */
function namedInTables(markdown: string, sectionDir: (heading: string) => string | undefined): string[] {
  const named: string[] = [];
  let dir: string | undefined;
  for (const line of markdown.split('\n')) {
    const heading = line.startsWith('**') ? (/^\*\*`([^`]+)`\*\*/.exec(line)?.[1] ?? '') : line.startsWith('#') ? line : undefined;
    if (heading !== undefined) dir = sectionDir(heading);
    if (dir === undefined || !line.startsWith('| `')) continue;
    const [first = '', ...rest] = line.split(/(?<!\\)\|/).slice(1);
    const names = [...first.matchAll(/`([^`]+)`/g)].flatMap((m) => expandBraces(m[1]!));
    for (const name of names) {
      if (name.endsWith('/')) {
        for (const inner of rest.join('|').matchAll(/`([^`/]+\.ts)`/g)) named.push(`${dir}${name}${inner[1]}`);
      } else named.push(`${dir}${name}`);
    }
  }
  return named.filter((name) => name.endsWith('.ts'));
}

function read(file: string): string {
  return readFileSync(path.join(ROOT, file), 'utf8');
}

function namedModules(): string[] {
  const architecture = namedInTables(read('docs/architecture.md'), (heading) => (heading.endsWith('/') && !heading.startsWith('#') ? heading : undefined));
  const clusterSection = read('docs/embedded-cluster.md').split(/^## Modules$/m)[1]?.split(/^## /m)[0] ?? '';
  const cluster = namedInTables(`## Modules\n${clusterSection}`, (heading) => (heading === '## Modules' ? CLUSTER : undefined));
  return [...architecture, ...cluster];
}

test('docs/architecture.md names every module under lib/ and functions/ (the embedded cluster\'s in docs/embedded-cluster.md)', () => {
  const named = new Set(namedModules());
  expect(modulesOnDisk().filter((module) => !named.has(module))).toEqual([]);
});

test('every module the maps name exists', () => {
  const onDisk = new Set(modulesOnDisk());
  expect(namedModules().filter((module) => !onDisk.has(module))).toEqual([]);
});
