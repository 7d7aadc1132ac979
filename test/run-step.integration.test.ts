/**
 * `run --step NAME`, through the CLI's `main` on an embedded cluster: the build runs the checkout,
 * the steps asked for and what they need, and lists every other step as skipped, not asked for.
 * Each step leaves a mark in a folder of the test's, so "ran" means its command ran.
 * On the process runtime, so that a step's mark lands in the test's folder.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { main } from '../lib/cli/main.js';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import type { RunSummary } from '../lib/cli/commands/run.js';
import { capturedIO } from './fixtures/captured-io.js';

const git = promisify(execFile);
let cluster: EmbeddedCluster;
let scratch: string;
let kubeconfig: string;
let repo: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'run-step-'));
  cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS });
  kubeconfig = path.join(scratch, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  repo = path.join(scratch, 'app');
  await git('git', ['init', '-q', '-b', 'main', repo]);
  await writeFile(path.join(repo, 'README'), 'hello\n');
  await git('git', ['-C', repo, 'add', 'README']);
  await git('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', 'commit', '-q', '-m', 'first'], { cwd: repo });
});
afterAll(async () => {
  await cluster?.stop();
  await rm(scratch, { recursive: true, force: true });
});

const stepText = (name: string, needs?: string[]) =>
  `  - name: ${name}\n    image: alpine:3.20\n${needs ? `    needs: [${needs.join(', ')}]\n` : ''}    commands: [touch MARKS/${name}, test -f README]\n`;

async function runSteps(name: string, steps: string, args: string[]) {
  const marks = path.join(scratch, `marks-${name}`);
  await mkdir(marks);
  const file = path.join(repo, `${name}.yml`);
  await writeFile(file, `version: 1\nsteps:\n${steps.replaceAll('MARKS', marks)}`);
  const io = capturedIO();
  const code = await main(['run', file, '--kubeconfig', kubeconfig, '--state-dir', path.join(scratch, 'state'), '--json', ...args], io);
  const summary = JSON.parse(io.outLines.at(-1)!) as RunSummary;
  return { code, summary, ran: (await readdir(marks)).sort(), err: io.errLines };
}

test('--step runs the checkout, that step and the steps it needs, and lists the others as not asked for', async () => {
  const steps = [stepText('deps', []), stepText('lint', []), stepText('test', ['deps']), stepText('deploy', ['test'])].join('');
  const { code, summary, ran } = await runSteps('needs', steps, ['--step', 'test']);
  expect(summary.steps.map(({ name, status, reason }) => [name, status, reason ?? null])).toEqual([
    ['clone', 'succeeded', null],
    ['deps', 'succeeded', null],
    ['lint', 'skipped', 'not asked for (--step)'],
    ['test', 'succeeded', null],
    ['deploy', 'skipped', 'not asked for (--step)'],
  ]);
  expect({ code, ran }).toEqual({ code: 0, ran: ['deps', 'test'] });
});

test('--no-needs runs only the steps named, in a file without needs too', async () => {
  const steps = [stepText('a'), stepText('b'), stepText('c')].join('');
  const { code, summary, ran } = await runSteps('alone', steps, ['--step', 'c', '--no-needs']);
  expect(summary.steps.map(({ name, status }) => [name, status])).toEqual([
    ['clone', 'succeeded'],
    ['a', 'skipped'],
    ['b', 'skipped'],
    ['c', 'succeeded'],
  ]);
  expect({ code, ran }).toEqual({ code: 0, ran: ['c'] });
});
