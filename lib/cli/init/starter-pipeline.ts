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
}

/**
 * Each package manager's CI install, its download cache moved into the workspace. pnpm and yarn go
 * through corepack (bundled with Node up to 24), which runs the version `packageManager` names, and,
 * called explicitly (`corepack pnpm`), asks nothing before it downloads (nodejs/corepack README,
 * COREPACK_ENABLE_DOWNLOAD_PROMPT), so no step needs `corepack enable` first. With no packageManager
 * it runs its "Known Good Release", else the registry's latest (README, "Known Good Releases"), or
 * the major asked (`corepack pnpm@8`). Each download needs the registry: a cluster with no way out
 * needs an image with them in corepack's cache (README, "Offline Workflow").
 */
const MANAGERS: Record<PackageManager, ManagerCommands> = {
  // As GitLab's "Cache Node.js dependencies" (docs.gitlab.com/ci/caching/): npm ci --cache .npm --prefer-offline.
  npm: {
    install: (lock) => (lock ? 'npm ci --cache .npm --prefer-offline --no-audit --no-fund' : 'npm install --cache .npm --prefer-offline --no-audit --no-fund'),
    run: (script) => (script === 'test' ? 'npm test' : `npm run ${script}`),
    cacheDir: '.npm',
    prefix: 'npm',
  },
  // pnpm's store in the workspace (pnpm.io/continuous-integration: `pnpm config set store-dir`).
  pnpm: {
    install: (lock, bin) => `corepack ${bin} install${lock ? ' --frozen-lockfile' : ''} --store-dir .pnpm-store`,
    run: (script, bin) => (script === 'test' ? `corepack ${bin} test` : `corepack ${bin} run ${script}`),
    cacheDir: '.pnpm-store',
    prefix: 'pnpm',
  },
  'yarn-classic': {
    install: (lock, bin) => `corepack ${bin} install${lock ? ' --frozen-lockfile' : ''} --cache-folder .yarn-cache`,
    run: (script, bin) => `corepack ${bin} run ${script}`,
    cacheDir: '.yarn-cache',
    prefix: 'yarn',
  },
  // Yarn 2+ keeps its cache in .yarn/cache unless enableGlobalCache (the default from Yarn 4) moves it out.
  'yarn-berry': {
    install: (lock, bin) => `corepack ${bin} install${lock ? ' --immutable' : ''}`,
    run: (script, bin) => `corepack ${bin} run ${script}`,
    cacheDir: '.yarn/cache',
    prefix: 'yarn',
    env: { YARN_ENABLE_GLOBAL_CACHE: 'false' },
  },
};

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
    ...(manager.env ? ['    env:', ...Object.entries(manager.env).map(([name, value]) => `      ${name}: "${value}"`)] : []),
    ...(cached
      ? [
          `    # ${manager.cacheDir} keeps the downloads between builds; a changed ${project.lockFile} restores the last entry (fallback-keys)`,
          '    cache:',
          '      - key:',
          `          prefix: ${manager.prefix}`,
          `          files: [${project.lockFile}]`,
          `        fallback-keys: [${manager.prefix}-]`,
          `        paths: [${manager.cacheDir}]`,
        ]
      : []),
    ...project.scripts.flatMap((script) => [
      '',
      `  - name: ${script}`,
      `    image: ${image}`,
      '    commands:',
      `      - ${manager.run(script, bin)}`,
      ...(script === 'build' ? ['    # Keep what the build made (`run` writes them to disk at the end, `run --artifacts DIR`):', '    # artifacts:', '    #   paths: [dist/]'] : []),
    ]),
  ];
  if (project.scripts.length === 0) lines.push('', '  # No lint, build or test script in package.json: add your build\'s steps here, e.g.', '  # - name: test', `  #   image: ${image}`, '  #   commands:', `  #     - ${manager.run('test', bin)}`);
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
