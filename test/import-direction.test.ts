/**
 * The layers point one way (docs/architecture.md): lib/contract imports nothing of the project;
 * the leaves (lib/pipeline, lib/kube, lib/forge, lib/registry) import only the contract and each
 * other, never in a cycle; lib/workflow orchestrates the leaves; lib/lambda and lib/local compose
 * them, for AWS and for this machine; functions/ are the Lambda entry points. Nothing deployed
 * imports lib/local.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const LEAVES = ['pipeline', 'kube', 'forge', 'registry'] as const;
/** Which layers each layer may import (its own modules always). */
const ALLOWED: Record<string, readonly string[]> = {
  contract: [],
  pipeline: ['contract', ...LEAVES],
  kube: ['contract', ...LEAVES],
  forge: ['contract', ...LEAVES],
  registry: ['contract', ...LEAVES],
  workflow: ['contract', ...LEAVES],
  lambda: ['contract', ...LEAVES, 'workflow'],
  local: ['contract', ...LEAVES, 'workflow'],
  functions: ['contract', ...LEAVES, 'workflow', 'lambda'],
};

function layerOf(file: string): string {
  const relative = path.relative(ROOT, file).split(path.sep);
  if (relative[0] === 'functions') return 'functions';
  if (relative[0] === 'lib' && relative[1] && relative.length > 2) return relative[1];
  throw new Error(`${path.relative(ROOT, file)} is in no layer: add it to one (lib/<layer>/...)`);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Relative specifiers of static imports and exports, and of dynamic import() calls. */
function importsOf(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const specifier = match[1] ?? match[2] ?? match[3];
    if (specifier?.startsWith('.')) found.push(specifier);
  }
  return found;
}

interface Edge {
  from: string;
  to: string;
}

/**
 * Every cycle of the graph the leaves' imports of each other make, each once (from its first leaf
 * in LEAVES order), spelled hop by hop with the files that make each hop. Leaves that import each
 * other are one module cut in two: neither can be read, tested or changed without the other.
 */
function leafCycles(edges: readonly Edge[]): string[] {
  const hops = new Map<string, string[]>();
  for (const { from, to } of edges) {
    const [source, target] = [layerOf(from), layerOf(to)];
    if (source === target || !isLeaf(source) || !isLeaf(target)) continue;
    const key = `${source}->${target}`;
    hops.set(key, [...(hops.get(key) ?? []), `${path.relative(ROOT, from)} -> ${path.relative(ROOT, to)}`]);
  }
  const cycles: string[] = [];
  const walk = (start: number, trail: string[]) => {
    for (const next of LEAVES.slice(start)) {
      if (!hops.has(`${trail.at(-1)}->${next}`)) continue;
      if (next === trail[0]) cycles.push(describeCycle([...trail, next], hops));
      else if (!trail.includes(next)) walk(start, [...trail, next]);
    }
  };
  LEAVES.forEach((leaf, i) => walk(i, [leaf]));
  return cycles;
}

function isLeaf(layer: string): layer is (typeof LEAVES)[number] {
  return (LEAVES as readonly string[]).includes(layer);
}

function describeCycle(trail: string[], hops: Map<string, string[]>): string {
  const steps = trail.slice(1).map((to, i) => `  lib/${trail[i]} imports lib/${to}: ${hops.get(`${trail[i]}->${to}`)!.join(', ')}`);
  return [`lib/${trail.join(' -> lib/')}`, ...steps].join('\n');
}

const files = [...sourceFiles('lib'), ...sourceFiles('functions')];
const edges: Edge[] = files.flatMap((file) =>
  importsOf(readFileSync(file, 'utf8')).map((specifier) => ({ from: file, to: path.resolve(path.dirname(file), specifier) })),
);

describe('import direction', () => {
  it('reads the imports of every module (a parser that finds none proves nothing)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(edges.length).toBeGreaterThan(300);
    expect(importsOf("import { a } from './a.js';\nexport * from '../b.js';\nimport './c.js';\nconst d = await import('./d.js');")).toEqual([
      './a.js',
      '../b.js',
      './c.js',
      './d.js',
    ]);
    expect(importsOf("import {\n  a,\n  b,\n} from '../x/y.js';")).toEqual(['../x/y.js']);
  });

  it('never points against the layers', () => {
    const wrong = edges
      .filter(({ from, to }) => {
        const [source, target] = [layerOf(from), layerOf(to)];
        return source !== target && !ALLOWED[source]!.includes(target);
      })
      .map(({ from, to }) => `${path.relative(ROOT, from)} -> ${path.relative(ROOT, to)}`);
    expect(wrong).toEqual([]);
  });

  it('finds a cycle between leaves, however long, and names the files of each hop', () => {
    const at = (file: string) => path.join(ROOT, file);
    const longCycle = [
      { from: at('lib/forge/a.ts'), to: at('lib/pipeline/b.ts') },
      { from: at('lib/pipeline/b.ts'), to: at('lib/registry/c.ts') },
      { from: at('lib/registry/c.ts'), to: at('lib/forge/d.ts') },
      { from: at('lib/kube/e.ts'), to: at('lib/pipeline/b.ts') },
      { from: at('lib/kube/e.ts'), to: at('lib/contract/index.ts') },
    ];
    expect(leafCycles(longCycle)).toEqual([
      'lib/pipeline -> lib/registry -> lib/forge -> lib/pipeline\n' +
        '  lib/pipeline imports lib/registry: lib/pipeline/b.ts -> lib/registry/c.ts\n' +
        '  lib/registry imports lib/forge: lib/registry/c.ts -> lib/forge/d.ts\n' +
        '  lib/forge imports lib/pipeline: lib/forge/a.ts -> lib/pipeline/b.ts',
    ]);
    expect(leafCycles(longCycle.slice(1))).toEqual([]);
  });

  it('has no cycle between the leaves', () => {
    expect(leafCycles(edges)).toEqual([]);
  });

  it('leaves nothing deployed depending on lib/local', () => {
    const deployed = edges.filter(({ from }) => layerOf(from) !== 'local');
    expect(deployed.filter(({ to }) => layerOf(to) === 'local').map(({ from }) => path.relative(ROOT, from))).toEqual([]);
  });
});
