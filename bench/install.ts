/**
 * The install as a new user goes through it, timed: `npm pack` in this checkout (the build into
 * dist/ included), `npm install -g` of the tarball into a prefix of its own with a clean HOME (an
 * empty npm cache: every package from the registry), the same again into another prefix with
 * the cache the first one filled (a user who has installed before), `npx` of the tarball,
 * `step-runner --version`, and a one-step build with the installed command. Each is a fresh
 * process, as a user's shell starts it. Run alone with `npx tsx bench/install.ts`, or as a
 * section of `npm run bench`.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { round } from './stats.js';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The README's install line, less the tarball's path. */
export const INSTALL_ARGS = ['install', '-g', '--no-audit', '--no-fund'];
export const INSTALL_TARGET_SECONDS = 15;

export interface InstallFigures {
  packSeconds: number;
  tarballBytes: number;
  packages: number;
  installColdSeconds: number;
  installWarmSeconds: number;
  npxSeconds: number;
  versionSeconds: number;
  buildSeconds: number;
  /** The machine's 1-minute load average as the installs began (the times are wall-clock). */
  loadAverage: number;
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = process.hrtime.bigint();
  const result = await work();
  return [result, round(Number(process.hrtime.bigint() - start) / 1e9, 1)];
}

export async function measureInstall(dir: string): Promise<InstallFigures> {
  await mkdir(path.join(dir, 'home'), { recursive: true });
  // A user's plain shell: no npm_config_* of a surrounding `npm run`, no NODE_OPTIONS, a new HOME.
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'NODE_OPTIONS'));
  Object.assign(env, { HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state') });
  const big = { env, maxBuffer: 64 * 1024 * 1024 };

  const [pack, packSeconds] = await timed(() => exec('npm', ['pack', '--json', '--pack-destination', dir], { ...big, cwd: ROOT }));
  const [info] = JSON.parse(pack.stdout) as [{ filename: string; size: number }];
  const tarball = path.join(dir, info.filename);
  const loadAverage = round(loadavg()[0]!, 1);
  const install = (prefix: string) => timed(() => exec('npm', [...INSTALL_ARGS, '--prefix', path.join(dir, prefix), tarball], { ...big, cwd: dir }));
  const [cold, installColdSeconds] = await install('prefix-cold');
  const [, installWarmSeconds] = await install('prefix-warm');
  const [, npxSeconds] = await timed(() => exec('npx', ['--yes', '--package', tarball, 'step-runner', '--version'], { ...big, cwd: dir }));
  const bin = path.join(dir, 'prefix-cold', 'bin', 'step-runner');
  const [, versionSeconds] = await timed(() => exec(bin, ['--version'], big));

  const repo = path.join(dir, 'app');
  await mkdir(repo);
  const git = (...args: string[]) => exec('git', ['-c', 'user.email=bench@example.com', '-c', 'user.name=bench', ...args], { ...big, cwd: repo });
  await git('init', '-q', '-b', 'main');
  await writeFile(path.join(repo, '.step-runner.yml'), 'version: 1\nsteps:\n  - name: hello\n    image: alpine:3.20\n    commands: [echo hello]\n');
  await git('add', '.');
  await git('commit', '-q', '-m', 'first');
  // Local processes: a build that needs no image pulled, so the figure is the runner's own.
  const [, buildSeconds] = await timed(() => exec(bin, ['run'], { ...big, cwd: repo, env: { ...env, STEP_RUNNER_RUNTIME: 'process' } }));

  return {
    packSeconds,
    tarballBytes: info.size,
    packages: Number(/added (\d+) packages?/.exec(cold.stdout)?.[1] ?? NaN),
    installColdSeconds,
    installWarmSeconds,
    npxSeconds,
    versionSeconds,
    buildSeconds,
    loadAverage,
  };
}

export function printInstall(f: InstallFigures, print: (line?: string) => void): void {
  print();
  print(`Install as a command: npm ${INSTALL_ARGS.join(' ')} of the packed tarball, a clean HOME (empty npm cache); load average ${f.loadAverage}`);
  print(`  npm pack (build included) ${f.packSeconds} s, tarball ${round(f.tarballBytes / 1024)} KiB, ${f.packages} packages installed`);
  print(`  install ${f.installColdSeconds} s with an empty cache, ${f.installWarmSeconds} s with the cache it left; npx of the tarball ${f.npxSeconds} s`);
  print(`  step-runner --version ${f.versionSeconds} s; a one-step build (local processes) ${f.buildSeconds} s`);
  const worst = f.installColdSeconds;
  print(`  install <= ${INSTALL_TARGET_SECONDS} s: ${worst <= INSTALL_TARGET_SECONDS ? 'met' : `MISSED by ${round(worst - INSTALL_TARGET_SECONDS, 1)} s`}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const dir = await mkdtemp(path.join(tmpdir(), 'step-runner-bench-install-'));
  try {
    printInstall(await measureInstall(dir), (line = '') => process.stdout.write(`${line}\n`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
