/**
 * The layers point one way (docs/architecture.md): lib/contract imports nothing of the project;
 * the leaves (lib/pipeline, lib/kube, lib/forge, lib/registry) import only the contract and each
 * other, never in a cycle; lib/workflow orchestrates the leaves; lib/lambda composes them for AWS
 * and functions/ are the Lambda entry points. On this machine, the emulators (lib/emulators/*:
 * the Kubernetes API and kubelet, S3, the Lambda host, Step Functions) stand in for EKS and AWS and
 * know nothing of who uses them; the console page (lib/console) draws what they report; lib/local
 * wires them together, and lib/cli is the command on top. Nothing deployed imports any of those,
 * and no module imports itself back, however many files the loop goes through.
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
  functions: ['contract', ...LEAVES, 'workflow', 'lambda'],
  // The embedded cluster and the local S3 are written from Kubernetes' and S3's documents alone.
  'emulators/kubernetes': [],
  'emulators/s3': [],
  // The Lambda host runs the deployed handlers; Step Functions invokes them through it, as AWS does.
  'emulators/lambda': ['contract', ...LEAVES, 'workflow'],
  'emulators/stepfunctions': ['contract', ...LEAVES, 'workflow', 'emulators/lambda'],
  console: ['contract', ...LEAVES, 'workflow', 'emulators/stepfunctions'],
  local: ['contract', ...LEAVES, 'workflow', 'emulators/kubernetes', 'emulators/s3', 'emulators/lambda', 'emulators/stepfunctions', 'console'],
  // `step-runner import`: another CI's file as a pipeline, checked by the pipeline's own reader.
  'ci-import': ['contract', 'pipeline'],
  cli: ['contract', ...LEAVES, 'workflow', 'emulators/kubernetes', 'emulators/s3', 'emulators/lambda', 'emulators/stepfunctions', 'console', 'local', 'ci-import'],
};
// The bench drives everything, with the tests' fixtures.
ALLOWED.bench = [...Object.keys(ALLOWED), 'test'];
const LOCAL_ONLY = ['emulators/kubernetes', 'emulators/s3', 'emulators/lambda', 'emulators/stepfunctions', 'console', 'local', 'cli', 'ci-import'];

function layerOf(file: string): string {
  const relative = path.relative(ROOT, file).split(path.sep);
  if (relative[0] === 'functions') return 'functions';
  if (relative[0] === 'bench') return 'bench';
  if (relative[0] === 'test') return 'test';
  if (relative[0] === 'lib' && relative[1] === 'emulators' && relative.length > 3) return `emulators/${relative[2]}`;
  if (relative[0] === 'lib' && relative[1] && relative[1] !== 'emulators' && relative.length > 2) return relative[1];
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

/**
 * Each loop of the file graph once, from its first file in sorted order: files that import each
 * other, even for a type, cannot be read or moved one without the other.
 */
function fileCycles(edges: readonly Edge[]): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to.replace(/\.js$/, '.ts')]);
  const loops = new Set<string>();
  const done = new Set<string>();
  const walk = (file: string, trail: string[]) => {
    const at = trail.indexOf(file);
    if (at >= 0) {
      const loop = trail.slice(at);
      const first = loop.indexOf([...loop].sort()[0]!);
      const turned = [...loop.slice(first), ...loop.slice(0, first)];
      loops.add([...turned, turned[0]!].map((f) => path.relative(ROOT, f)).join(' -> '));
      return;
    }
    if (done.has(file)) return;
    for (const to of next.get(file) ?? []) walk(to, [...trail, file]);
    done.add(file);
  };
  for (const file of [...next.keys()].sort()) walk(file, []);
  return [...loops].sort();
}

const files = [...sourceFiles('lib'), ...sourceFiles('functions'), ...sourceFiles('bench')];
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

  it('leaves nothing deployed depending on the emulators, the console page, lib/local or the CLI', () => {
    const deployed = edges.filter(({ from }) => !LOCAL_ONLY.includes(layerOf(from)) && layerOf(from) !== 'bench');
    expect(deployed.filter(({ to }) => LOCAL_ONLY.includes(layerOf(to))).map(({ from }) => path.relative(ROOT, from))).toEqual([]);
  });

  it('finds a loop of imports between files, and names it', () => {
    const at = (file: string) => path.join(ROOT, file);
    const loop = [
      { from: at('lib/kube/a.ts'), to: at('lib/kube/b.ts') },
      { from: at('lib/kube/b.ts'), to: at('lib/kube/c.ts') },
      { from: at('lib/kube/c.ts'), to: at('lib/kube/a.ts') },
      { from: at('lib/kube/c.ts'), to: at('lib/kube/d.ts') },
    ];
    expect(fileCycles(loop)).toEqual(['lib/kube/a.ts -> lib/kube/b.ts -> lib/kube/c.ts -> lib/kube/a.ts']);
    expect(fileCycles(loop.slice(1))).toEqual([]);
  });

  it('has no loop of imports between files, type imports included', () => {
    expect(fileCycles(edges)).toEqual([]);
  });
});
