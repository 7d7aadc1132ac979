/**
 * The `.step-runner.yml` that `step-runner init` writes (pure): for a Node.js project, an install
 * step with a cache keyed on the lock file and one step per lint, build and test script; for
 * anything else, a skeleton with the keys a first build needs and the others commented out.
 * Images are ones the embedded cluster can "pull" (its catalog), or the file says what to change.
 */
import type { CatalogEntry } from '../../emulators/kubernetes/index.js';
import { oneLine, type NodeProject, type PackageManager, type Project } from './project-facts.js';

/** The images the embedded cluster knows, as its catalog names them (names and aliases). */
export interface KnownImages {
  /** Every `name:tag` the catalog resolves. */
  references: ReadonlySet<string>;
  /** The major version of the catalog's `node:lts`. */
  nodeLts: number;
}

/** What the catalog's entries name: each image and its aliases (tags of the same repository); its `node` tagged `lts`. */
export function knownImages(entries: readonly CatalogEntry[]): KnownImages {
  const references = new Set<string>();
  let nodeLts: number | undefined;
  for (const entry of entries) {
    const colon = entry.image.lastIndexOf(':');
    const [name, tag] = [entry.image.slice(0, colon), entry.image.slice(colon + 1)];
    references.add(entry.image);
    for (const alias of entry.aliases ?? []) references.add(`${name}:${alias}`);
    if (name === 'node' && entry.aliases?.includes('lts')) nodeLts = Number.parseInt(tag, 10);
  }
  return { references, nodeLts: nodeLts ?? 22 };
}

const SKELETON_IMAGE = 'alpine:3.22';

export function starterPipeline(project: Project, images: KnownImages): string {
  return project.kind === 'node' ? nodePipeline(project, images) : skeleton(project.notes, images);
}

interface ManagerCommands {
  /** The install, frozen to the lock file, its downloads kept in `cacheDir` (in the workspace, where a cache can keep it); `bin`: what corepack runs (`pnpm`, `pnpm@8`). */
  install: (lock: boolean, bin: string) => string;
  run: (script: 'lint' | 'build' | 'test', bin: string) => string;
  cacheDir: string;
  prefix: string;
  env?: Record<string, string>;
  /** Run through corepack, which downloads the package manager itself (into COREPACK_HOME). */
  corepack: boolean;
}

/**
 * Each package manager's CI install, its download cache moved into the workspace. pnpm and yarn go
 * through corepack (bundled with Node up to 24), which runs the version `packageManager` names, and,
 * called explicitly (`corepack pnpm`), asks nothing before it downloads (nodejs/corepack README,
 * COREPACK_ENABLE_DOWNLOAD_PROMPT), so no step needs `corepack enable` first. With no packageManager
 * it runs its "Known Good Release", else the registry's latest (README, "Known Good Releases"), or
 * the major asked (`corepack pnpm@8`). It downloads into COREPACK_HOME, which the starter puts in
 * the workspace (COREPACK_HOME below): only a build that finds no cache there needs the registry.
 */
const MANAGERS: Record<PackageManager, ManagerCommands> = {
  // As GitLab's "Cache Node.js dependencies" (docs.gitlab.com/ci/caching/): npm ci --cache .npm --prefer-offline.
  npm: {
    install: (lock) => (lock ? 'npm ci --cache .npm --prefer-offline --no-audit --no-fund' : 'npm install --cache .npm --prefer-offline --no-audit --no-fund'),
    run: (script) => (script === 'test' ? 'npm test' : `npm run ${script}`),
    cacheDir: '.npm',
    prefix: 'npm',
    corepack: false,
  },
  // pnpm's store in the workspace (pnpm.io/continuous-integration: `pnpm config set store-dir`).
  pnpm: {
    install: (lock, bin) => `corepack ${bin} install${lock ? ' --frozen-lockfile' : ''} --store-dir .pnpm-store`,
    run: (script, bin) => (script === 'test' ? `corepack ${bin} test` : `corepack ${bin} run ${script}`),
    cacheDir: '.pnpm-store',
    prefix: 'pnpm',
    corepack: true,
  },
  'yarn-classic': {
    install: (lock, bin) => `corepack ${bin} install${lock ? ' --frozen-lockfile' : ''} --cache-folder .yarn-cache`,
    run: (script, bin) => `corepack ${bin} run ${script}`,
    cacheDir: '.yarn-cache',
    prefix: 'yarn',
    corepack: true,
  },
  // Yarn 2+ keeps its cache in .yarn/cache unless enableGlobalCache (the default from Yarn 4) moves it out.
  'yarn-berry': {
    install: (lock, bin) => `corepack ${bin} install${lock ? ' --immutable' : ''}`,
    run: (script, bin) => `corepack ${bin} run ${script}`,
    cacheDir: '.yarn/cache',
    prefix: 'yarn',
    env: { YARN_ENABLE_GLOBAL_CACHE: 'false' },
    corepack: true,
  },
};

/**
 * Where corepack keeps what it downloads (COREPACK_HOME; by default $HOME/.cache/node/corepack,
 * nodejs/corepack README "Environment Variables"), which is in the pod's own filesystem and goes
 * with it: every step downloaded the package manager again. In the workspace instead, the steps
 * after the install run the install's download, and a cache keeps it between builds. Absolute (the
 * workspace's mount, CI_WORKSPACE: docs/contracts.md), so a command that runs corepack from a
 * subfolder finds the same one.
 *
 * The workspace is the checkout, and corepack's home holds pnpm's and Yarn's own .cjs and .js
 * (v1/pnpm/VERSION/dist/pnpm.cjs, 18 MB for pnpm 8): in a folder of any other name, the project's
 * `eslint .` lints them (by default ESLint's flat config ignores only node_modules folders, at any
 * depth, and .git: dot-folders are linted, eslint/eslint#17184 and #18236), thousands of errors
 * that fail the lint step. A folder named node_modules is one that the other tools a script runs
 * skip as well (Prettier, TypeScript's default include, Jest's testPathIgnorePatterns), and the
 * usual .gitignore; this one is no package's, so no package manager's install touches it.
 */
export const COREPACK_DIR = '.corepack/node_modules';
const COREPACK_HOME = `/workspace/${COREPACK_DIR}`;

/**
 * What every step that runs corepack has in its env. COREPACK_ENABLE_AUTO_PIN=0: corepack 0.26.0
 * to 0.32.0 (in the image of a Node that bundles one of them), when no package.json from the
 * command's folder up names a packageManager, writes one into the outermost of them as it runs the
 * package manager (nodejs/corepack#413: sources/Engine.ts findProjectSpec, case NoSpec, unless the
 * variable is `0`; sources/specUtils.ts loadSpec; README "Environment Variables"), so a build of a
 * project with no packageManager (the pnpm 8 and Yarn 1 ones init finds) would change package.json
 * under the steps after it: what they build, test and keep as artifacts is then not the commit's.
 * From 0.33.0 it pins only when the variable is `1` (nodejs/corepack#709), so `0` is the default
 * there and changes nothing.
 */
const COREPACK_ENV: Record<string, string> = { COREPACK_HOME, COREPACK_ENABLE_AUTO_PIN: '0' };

/**
 * The cache of corepack's home, keyed on package.json, whose packageManager names the version
 * corepack runs (with none, its Known Good release, which it records in the home itself: README,
 * "Known Good Releases"), and prefixed with the version the commands name (`pnpm@8`: written in
 * this file, which no key hashes). Corepack keeps each version in a folder of its own
 * (v1/NAME/VERSION) and runs only the one asked for, finding it there before it asks the registry
 * (sources/Engine.ts, resolveDescriptor: findInstalledVersion), so an older home restored by the
 * fallback is never a wrong version: at worst it lacks the new one, which the step downloads once
 * and saves under the new key. One entry beside the lock file's, so that editing package.json does
 * not miss the (larger) download cache.
 */
function corepackCache(project: NodeProject, bin: string): string[] {
  const prefix = `corepack-${bin.replace('@', '-')}`;
  const which = project.managerPin
    ? [`${COREPACK_DIR} keeps ${bin} between builds; the prefix names ${bin} as the commands do: change both together`]
    : project.managerVersion
      ? [`${COREPACK_DIR} keeps ${project.managerVersion.replace(/\+.*/, '')} (packageManager) between builds; corepack runs only the version`, 'asked for, so an older entry restored (fallback-keys) is never a wrong one']
      : [`${COREPACK_DIR} keeps ${bin} between builds: the version corepack chose first (its Known Good one, kept in`, `${COREPACK_DIR} too) until package.json's packageManager names one`];
  return [
    ...which.map((line) => `      # ${line}`),
    '      - key:',
    `          prefix: ${prefix}`,
    '          files: [package.json]',
    `        fallback-keys: [${prefix}-]`,
    `        paths: [${COREPACK_DIR}]`,
  ];
}

/** A step's `env:`, with a comment above a variable that has one. */
function envLines(env: Record<string, string>, comments: Record<string, string> = {}): string[] {
  const entries = Object.entries(env);
  return entries.length === 0 ? [] : ['    env:', ...entries.flatMap(([name, value]) => [...(comments[name] ? [`      # ${comments[name]}`] : []), `      ${name}: "${value}"`])];
}

/** The node image for the version asked for, and a comment when it is not the one asked for. */
export function nodeImage(node: NodeProject['node'], images: KnownImages): { image: string; comment: string } {
  const slim = (major: number) => `node:${major}-slim`;
  const known = [...images.references].map((ref) => /^node:(\d+)-slim$/.exec(ref)?.[1]).filter((m): m is string => m !== undefined).map(Number).sort((a, b) => a - b);
  if (node === undefined) return { image: slim(images.nodeLts), comment: `Node ${images.nodeLts}, the embedded cluster's node:lts: nothing here names a version (.nvmrc, .node-version or engines.node)` };
  if ('lts' in node) return { image: slim(images.nodeLts), comment: `Node ${images.nodeLts}, the embedded cluster's node:lts, for ${node.from}` };
  if (images.references.has(slim(node.major))) return { image: slim(node.major), comment: `Node ${node.major}, from ${node.from}` };
  const closest = known.find((m) => m > node.major) ?? known.at(-1) ?? images.nodeLts;
  return {
    image: slim(closest),
    comment: `Node ${node.major} from ${node.from}, but the embedded cluster has no ${slim(node.major)}: Node ${closest} instead.\n#     On a cluster of your own, put ${slim(node.major)} in every step's image.`,
  };
}

function nodePipeline(project: NodeProject, images: KnownImages): string {
  const manager = MANAGERS[project.packageManager];
  const bin = project.managerPin ?? project.packageManager.replace(/-.*/, '');
  const { image, comment: nodeComment } = nodeImage(project.node, images);
  const cached = project.lockFile !== undefined && project.lockTracked;
  const corepackEnv: Record<string, string> = manager.corepack ? COREPACK_ENV : {};
  const caches = [
    ...(cached
      ? [
          `      # ${manager.cacheDir} keeps the downloads between builds; a changed ${project.lockFile} restores the last entry (fallback-keys)`,
          '      - key:',
          `          prefix: ${manager.prefix}`,
          `          files: [${project.lockFile}]`,
          `        fallback-keys: [${manager.prefix}-]`,
          `        paths: [${manager.cacheDir}]`,
        ]
      : []),
    ...(manager.corepack && project.manifestTracked ? corepackCache(project, bin) : []),
  ];
  const lines = [
    '# Written by `step-runner init` from what it found in this repository:',
    `#   package manager: ${project.packageManager.replace('-', ' ')} (${oneLine(project.managerFrom)})`,
    `#   ${nodeComment}`,
    `#   scripts: ${project.scripts.length > 0 ? project.scripts.join(', ') : 'none of lint, build or test'}`,
    ...notes(project.notes),
    ...(project.lockFile && !project.lockTracked ? [`#   ${project.lockFile} is not committed: no cache until it is (a cache key file must be tracked by git)`] : []),
    ...(project.lockFile ? [] : ['#   no lock file: the install is not frozen and nothing keys a cache; commit one for both']),
    '# Check it with `step-runner validate`, build with `step-runner run`; every key: docs/pipeline.md.',
    'version: 1',
    'steps:',
    '  - name: install',
    `    image: ${image}`,
    '    commands:',
    `      - ${manager.install(project.lockFile !== undefined, bin)}`,
    ...envLines(
      { ...manager.env, ...corepackEnv },
      {
        COREPACK_HOME: `corepack downloads ${bin} into the workspace, where the next steps run it${project.manifestTracked ? ' and the cache keeps it' : ''} (a node_modules folder: linters skip it)`,
        COREPACK_ENABLE_AUTO_PIN: 'corepack 0.26 to 0.32 would otherwise add packageManager to package.json: the steps build it as committed',
      },
    ),
    ...(caches.length > 0 ? ['    cache:', ...caches] : []),
    ...project.scripts.flatMap((script) => [
      '',
      `  - name: ${script}`,
      `    image: ${image}`,
      '    commands:',
      `      - ${manager.run(script, bin)}`,
      ...envLines(corepackEnv),
      ...(script === 'build' ? ['    # Keep what the build made (`run` writes them to disk at the end, `run --artifacts DIR`):', '    # artifacts:', '    #   paths: [dist/]'] : []),
    ]),
  ];
  if (project.scripts.length === 0) lines.push('', '  # No lint, build or test script in package.json: add your build\'s steps here, e.g.', '  # - name: test', `  #   image: ${image}`, '  #   commands:', `  #     - ${manager.run('test', bin)}`, ...envLines(corepackEnv).map((line) => `  #${line.slice(3)}`));
  return `${lines.join('\n')}\n`;
}

/** The notes as comment lines (what they quote of the repository's files is already one line). */
function notes(list: readonly string[]): string[] {
  return list.map((note) => `#   note: ${note.replace(/[\r\n]+/g, ' ')}`);
}

function skeleton(found: readonly string[], images: KnownImages): string {
  const image = images.references.has(SKELETON_IMAGE) ? SKELETON_IMAGE : [...images.references].find((ref) => ref.startsWith('alpine:')) ?? SKELETON_IMAGE;
  return `${[
    '# Written by `step-runner init`: no package.json here, so a skeleton to fill in.',
    ...notes(found),
    '# Check it with `step-runner validate`, build with `step-runner run`; every key: docs/pipeline.md.',
    'version: 1',
    '',
    '# A cache every step restores before its commands and saves after them, keyed on a committed file:',
    '# cache:',
    '#   - key:',
    '#       prefix: deps',
    '#       files: [go.sum]        # or requirements.txt, Cargo.lock, ...',
    '#     paths: [.cache/]',
    '',
    'steps:',
    '  - name: build',
    '    # Any image your steps need; the embedded cluster "pulls" those in its catalog',
    '    # (lib/emulators/kubernetes/images/catalog.json), a cluster of your own any it can reach.',
    `    image: ${image}`,
    '    # Run by /bin/sh in the checked-out repository, each echoed; the first that fails ends the step.',
    '    commands:',
    '      - echo "Replace these commands with your build\'s"',
    '      - ls',
    '    # env:',
    '    #   NAME: value',
    '    # artifacts:                 # kept once the commands end; `run` writes them to disk',
    '    #   paths: [dist/]',
    '    # timeout: 10m',
    '',
    '  # - name: test',
    `  #   image: ${image}`,
    '  #   needs: [build]             # once build succeeded; without needs, after the step above',
    '  #   commands:',
    '  #     - ./run-tests.sh',
  ].join('\n')}\n`;
}
