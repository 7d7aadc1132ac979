/**
 * The `step-runner init` starters the acceptance builds (issue 37's test "`init` in fixture
 * repositories ... writes files that `validate` accepts and that build"): the pnpm 9, pnpm 8, Yarn
 * 1 and Yarn 4 fixtures of test/fixtures/init, each a package with one dependency (ms) and a
 * script that uses it, their lock files written by the pinned package managers
 * (acceptance/corepack.ts), and the Go module of no-package-json, which gets the commented
 * skeleton. pnpm 8's has no packageManager and a lockfileVersion 6.0, so its starter runs the
 * pinned form, `corepack pnpm@8`. The file is built as init wrote it but for its images, which
 * name Docker Hub's (node, alpine): no hub is reachable here, so they become the acceptance's
 * Node.js image, or the test images' busybox for the skeleton's alpine (its commands are `echo` and
 * `ls`). Pure: no I/O.
 */
import type { Pipeline } from '../../lib/pipeline/index.js';

export interface AcceptanceStarter {
  /** The table's row. */
  name: string;
  /** Its folder under test/fixtures/init. */
  fixture: string;
  /** What stands in for the file's images: the acceptance's Node.js image, or the test images' busybox. */
  standIn: 'node' | 'busybox';
  /** The package managers (`name@version`, of acceptance/corepack.ts) its commands run through corepack: what its first build finds in COREPACK_DIR (`.corepack/node_modules`). */
  corepack: readonly string[];
}

export const STARTERS: readonly AcceptanceStarter[] = [
  { name: 'init-pnpm', fixture: 'pnpm', standIn: 'node', corepack: ['pnpm@9.15.0'] },
  { name: 'init-pnpm8', fixture: 'pnpm8', standIn: 'node', corepack: ['pnpm@8.15.9'] },
  { name: 'init-yarn', fixture: 'yarn', standIn: 'node', corepack: ['yarn@1.22.22'] },
  { name: 'init-yarn-berry', fixture: 'yarn-berry', standIn: 'node', corepack: ['yarn@4.5.3'] },
  { name: 'init-no-package-json', fixture: 'no-package-json', standIn: 'busybox', corepack: [] },
];

/** The starter with every step's `image:` replaced by `image` (the commented ones left), and the images it replaced. */
export function withStandInImage(text: string, image: string): { text: string; replaced: string[] } {
  const replaced = new Set<string>();
  const out = text.replace(/^(\s*(?:- )?image: )(\S+)$/gm, (_line, key: string, was: string) => {
    replaced.add(was);
    return `${key}${image}`;
  });
  return { text: out, replaced: [...replaced] };
}

/** The step that installs: the one with a cache, its commands and every folder its caches keep; undefined when none has a cache (the skeleton). */
export function installStep(pipeline: Pipeline): { name: string; commands: string[]; env: Record<string, string>; cachePaths: string[] } | undefined {
  const step = pipeline.steps.find((s) => (s.cache?.length ?? 0) > 0);
  return step?.commands ? { name: step.name, commands: step.commands, env: step.env, cachePaths: step.cache!.flatMap((cache) => cache.paths) } : undefined;
}
