/**
 * What `step-runner init` finds in a repository (pure): a Node.js project's package manager, lock
 * file, Node version and scripts, read from the files at the work tree's root, or nothing it
 * knows. The command reads the files; this module only reads their text.
 */

/** The files init looks at, at the work tree's root. */
export const INIT_FILES = ['package.json', 'package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock', '.yarnrc.yml', 'bun.lockb', 'bun.lock', '.nvmrc', '.node-version'] as const;
export type InitFile = (typeof INIT_FILES)[number];

export interface RepositoryFiles {
  /** The text of each of INIT_FILES that is there (a lock file's first few KB are enough). */
  texts: Partial<Record<InitFile, string>>;
  /** Files git tracks, of INIT_FILES; undefined outside a git work tree. */
  tracked?: ReadonlySet<string> | undefined;
}

export type PackageManager = 'npm' | 'pnpm' | 'yarn-classic' | 'yarn-berry';

export interface NodeProject {
  kind: 'node';
  packageManager: PackageManager;
  /** The lock file the install is frozen to and the cache is keyed on; undefined: there is none. */
  lockFile?: string | undefined;
  /** Whether git tracks the lock file (a cache key file must be tracked: `run` refuses it otherwise). */
  lockTracked: boolean;
  /** Whether git tracks package.json, which keys the cache of corepack's downloads (its packageManager names the version). */
  manifestTracked: boolean;
  /** Why this package manager, for the file's comment: `pnpm-lock.yaml`, `packageManager: pnpm@9.1.0`. */
  managerFrom: string;
  /** `package.json`'s `packageManager` (`pnpm@9.1.0`), which corepack runs. */
  managerVersion?: string | undefined;
  /**
   * What corepack is asked to run instead of its latest when no packageManager says (`pnpm@8`): the
   * major that reads the lock file. Undefined: the project's or corepack's choice will do.
   */
  managerPin?: string | undefined;
  /** The Node major version asked for, and where: undefined when nothing says. */
  node?: { major: number; from: string } | { lts: true; from: string } | undefined;
  /** Of `lint`, `build`, `test`: the scripts package.json has, in the order a build runs them. */
  scripts: ('lint' | 'build' | 'test')[];
  /** Lines for the file's head: what was found that the starter does not follow. */
  notes: string[];
}

export type Project = NodeProject | { kind: 'unknown'; notes: string[] };

/** npm init's placeholder: a test script that only fails. */
const NPM_INIT_TEST = /no test specified/;

/** Node's LTS code names (nodejs/Release, schedule.json), as `.nvmrc` may give them: `lts/iron`. */
const LTS_CODENAMES: Record<string, number> = { argon: 4, boron: 6, carbon: 8, dubnium: 10, erbium: 12, fermium: 14, gallium: 16, hydrogen: 18, iron: 20, jod: 22, krypton: 24 };

export function detectProject(files: RepositoryFiles): Project {
  const { texts } = files;
  if (texts['package.json'] === undefined) return { kind: 'unknown', notes: [] };
  const notes: string[] = [];
  let manifest: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(texts['package.json']);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) manifest = parsed as Record<string, unknown>;
    else notes.push('package.json is not a JSON object: its scripts and engines were not read');
  } catch (error) {
    notes.push(`package.json could not be parsed (${oneLine((error as Error).message)}): its scripts and engines were not read`);
  }
  const manager = packageManagerOf(files, manifest, notes);
  const scripts = typeof manifest.scripts === 'object' && manifest.scripts !== null ? (manifest.scripts as Record<string, unknown>) : {};
  const has = (name: string) => typeof scripts[name] === 'string' && (scripts[name] as string).trim() !== '';
  const chosen = (['lint', 'build', 'test'] as const).filter((name) => has(name) && !(name === 'test' && NPM_INIT_TEST.test(scripts.test as string)));
  if (has('test') && !chosen.includes('test')) notes.push("package.json's test script is npm init's placeholder (\"no test specified\"): no test step");
  return { kind: 'node', ...manager, manifestTracked: files.tracked?.has('package.json') === true, scripts: chosen, node: nodeVersionOf(texts, manifest), notes };
}

function packageManagerOf(files: RepositoryFiles, manifest: Record<string, unknown>, notes: string[]): Pick<NodeProject, 'packageManager' | 'lockFile' | 'lockTracked' | 'managerFrom' | 'managerVersion' | 'managerPin'> {
  const { texts, tracked } = files;
  const field = typeof manifest.packageManager === 'string' ? manifest.packageManager.trim() : undefined;
  // `name@version[+hash]`, as corepack reads the field (nodejs/corepack, README "packageManager").
  const declared = field ? /^(npm|pnpm|yarn)@(\d+)[^\s]*$/.exec(field) : null;
  if (field && !declared) notes.push(`packageManager "${oneLine(field)}" is none that corepack runs here (npm, pnpm or yarn, name@version): the lock file decides`);
  const lockFiles: [string, 'npm' | 'pnpm' | 'yarn'][] = [
    ['package-lock.json', 'npm'],
    ['npm-shrinkwrap.json', 'npm'],
    ['pnpm-lock.yaml', 'pnpm'],
    ['yarn.lock', 'yarn'],
  ];
  const locks = lockFiles.filter(([name]) => texts[name as InitFile] !== undefined);
  if (texts['bun.lockb'] !== undefined || texts['bun.lock'] !== undefined) notes.push('a bun lock file is there: the node images have no bun, so this starter installs with npm; use an image with bun (oven/bun) and `bun install --frozen-lockfile` instead');
  const family = declared ? (declared[1] as 'npm' | 'pnpm' | 'yarn') : (locks[0]?.[1] ?? 'npm');
  const lock = locks.find(([, of]) => of === family)?.[0];
  if (locks.length > 1) notes.push(`more than one lock file (${locks.map(([name]) => name).join(', ')}): ${lock ?? 'none'} is the one followed`);
  if (declared && locks.length > 0 && !lock) notes.push(`packageManager says ${declared[1]}, but the lock file is ${locks[0]![0]}: no lock file for ${declared[1]}, so no frozen install and no cache`);
  const managerFrom = declared ? `packageManager: ${field}` : lock ?? 'no lock file: npm';
  let packageManager: PackageManager = family === 'yarn' ? 'yarn-classic' : family;
  if (family === 'yarn') {
    // Yarn 2+ ("berry") writes `__metadata:` at the top of yarn.lock and reads .yarnrc.yml; Yarn 1 neither.
    const berry = (declared !== null && Number(declared[2]) >= 2) || texts['.yarnrc.yml'] !== undefined || /^__metadata:/m.test(texts['yarn.lock'] ?? '');
    packageManager = berry ? 'yarn-berry' : 'yarn-classic';
    // Corepack runs Yarn 1 where packageManager names no version (nodejs/corepack, config.json's default).
    if (berry && !declared) notes.push('Yarn 2+ (yarn.lock or .yarnrc.yml say so) but no packageManager: corepack would run Yarn 1; `corepack use yarn@4` adds it');
  }
  const pin = family === 'pnpm' && !declared && lock ? pnpmForLockfile(texts['pnpm-lock.yaml'] ?? '') : undefined;
  if (pin) notes.push(`pnpm-lock.yaml is lockfileVersion ${pin.lockfileVersion} and no packageManager names a pnpm: corepack would run its latest, which refuses a frozen install of it, so pnpm ${pin.major} (\`corepack use pnpm@${pin.major}\` pins it)`);
  return {
    packageManager,
    lockFile: lock,
    lockTracked: lock !== undefined && tracked?.has(lock) === true,
    managerFrom,
    ...(declared ? { managerVersion: field } : {}),
    ...(pin ? { managerPin: `pnpm@${pin.major}` } : {}),
  };
}

/**
 * The pnpm major that wrote an older pnpm-lock.yaml, which the latest pnpm no longer installs
 * frozen: pnpm 9 dropped lockfile v5 and pnpm 10 the conversion of v6 (pnpm/pnpm
 * packages/constants/CHANGELOG.md: 8.0.0 "Support for lockfile v5 is dropped", 1001.0.0 "Removed
 * lockfile conversion from v6 to v9"; pnpm/pnpm#7934, ERR_PNPM_LOCKFILE_BREAKING_CHANGE). The same
 * changelog gives each major's version: 5.3 pnpm 6, 5.4 pnpm 7, 6.0 pnpm 8. 9.0 (pnpm 9 and 10) and
 * anything else: undefined, corepack's latest reads it.
 */
function pnpmForLockfile(lockText: string): { lockfileVersion: string; major: number } | undefined {
  const version = /^lockfileVersion:\s*['"]?(\d+\.\d+)/m.exec(lockText)?.[1];
  const major = version === undefined ? undefined : ({ '5.3': 6, '5.4': 7, '6.0': 8, '6.1': 8 } as Record<string, number>)[version];
  return version !== undefined && major !== undefined ? { lockfileVersion: version, major } : undefined;
}

/** `.nvmrc`, then `.node-version`, then `engines.node`: the first that names a version. */
function nodeVersionOf(texts: RepositoryFiles['texts'], manifest: Record<string, unknown>): NodeProject['node'] {
  for (const file of ['.nvmrc', '.node-version'] as const) {
    const text = texts[file]?.split('\n')[0]?.trim();
    if (!text) continue;
    const version = versionIn(text);
    if (version) return { ...version, from: `${file} (${oneLine(text)})` };
  }
  const engines = manifest.engines as Record<string, unknown> | undefined;
  const range = typeof engines?.node === 'string' ? engines.node.trim() : undefined;
  if (range) {
    // The lowest major the range allows: `>=20.19.0`, `^20 || ^22`, `20.x`, `~20.11`.
    const major = /(\d+)/.exec(range)?.[1];
    if (major) return { major: Number(major), from: `engines.node (${oneLine(range)})` };
  }
  return undefined;
}

/** A version as nvm and the other version managers read `.nvmrc`: `20`, `v20.11.1`, `lts/*`, `lts/iron`, `node`. */
function versionIn(text: string): { major: number } | { lts: true } | undefined {
  const number = /^v?(\d+)(\.|$)/.exec(text);
  if (number) return { major: Number(number[1]) };
  const lts = /^lts\/(.+)$/i.exec(text);
  if (lts) {
    const name = lts[1]!.toLowerCase();
    return name === '*' ? { lts: true } : LTS_CODENAMES[name] !== undefined ? { major: LTS_CODENAMES[name] } : undefined;
  }
  if (/^(node|stable|latest|current)$/i.test(text)) return { lts: true };
  return undefined;
}

/** Text that goes into a YAML comment: one line, no control characters, not too long. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}
