/**
 * `when.paths` and `when.paths-ignore` through the real definition on the embedded cluster: from
 * BuildInput.changes, as a webhook fills it, and from `run --changed` / `run --base`, as a person
 * does. A step the change does not touch is skipped as a branch would skip it; a build none of
 * whose steps runs starts no pod and still reports success, saying why.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { StatusReport, StatusRequest } from '../lib/contract/index.js';
import { main } from '../lib/cli/main.js';
import type { RunSummary } from '../lib/cli/commands/run.js';
import { capturedIO } from './fixtures/captured-io.js';
import { localBuildsForFile } from './fixtures/local-builds.js';

const git = promisify(execFile);
const builds = localBuildsForFile({ prefix: 'paths-filter', repository: true });

const step = (name: string, when = '', needs?: string[]) =>
  `  - name: ${name}\n    image: alpine:3.20\n    commands: [echo ${name}]\n${needs ? `    needs: [${needs.join(', ')}]\n` : ''}${when ? `    when:\n${when}` : ''}`;
const docsOnly = { known: true as const, files: ['docs/x.md'] };

/** Every request ReportStatus got, in order. */
function recordedStatuses() {
  const requests: StatusRequest[] = [];
  return {
    requests,
    reporter: {
      async report(request: StatusRequest): Promise<StatusReport> {
        requests.push(request);
        return { posted: false, reason: 'recorded by the test' };
      },
    },
  };
}

const launched = (events: { type: string; state?: { name: string } }[]) => events.filter((e) => e.type === 'StateEntered' && e.state?.name === 'LaunchStep').length;

describe('a step with when.paths', () => {
  const pipeline = `version: 1\nsteps:\n${step('api', '      paths: [src/**]\n')}${step('docs', '      paths-ignore: [src/**]\n')}${step('always')}`;

  it('is skipped when no changed file matches, with the reason; the others run', async () => {
    const { summary } = await builds.build('paths-docs', pipeline, { input: { changes: docsOnly } });
    expect(summary.status).toBe('SUCCEEDED');
    expect(summary.steps.map(({ name, status, reason }) => [name, status, reason ?? null])).toEqual([
      ['clone', 'succeeded', null],
      ['api', 'skipped', 'when.paths: no changed file matches src/**'],
      ['docs', 'succeeded', null],
      ['always', 'succeeded', null],
    ]);
  });

  it('runs when one changed file matches, and paths-ignore skips when every one does', async () => {
    const { summary } = await builds.build('paths-src', pipeline, { input: { changes: { known: true, files: ['src/main.go', 'src/.env.example'] } } });
    expect(summary.steps.map(({ name, status, reason }) => [name, status, reason ?? null])).toEqual([
      ['clone', 'succeeded', null],
      ['api', 'succeeded', null],
      ['docs', 'skipped', 'when.paths-ignore: every changed file matches src/**'],
      ['always', 'succeeded', null],
    ]);
  });

  it('skips nothing when the change is not known, or not given', async () => {
    for (const [id, input] of [['paths-unknown', { changes: { known: false as const, why: 'a new branch' } }], ['paths-none', {}]] as const) {
      const { summary } = await builds.build(id, pipeline, { input });
      expect(summary.steps.map((s) => s.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    }
  });

  it('skips the steps that need a skipped one, as for when.branch', async () => {
    const parallel = `version: 1\nsteps:\n${step('api', '      paths: [src/**]\n', [])}${step('deploy', '', ['api'])}${step('site', '', [])}`;
    const { summary } = await builds.build('paths-needs', parallel, { input: { changes: docsOnly } });
    expect(summary.status).toBe('SUCCEEDED');
    expect(summary.steps.map(({ name, status, reason }) => [name, status, reason ?? null])).toEqual([
      ['clone', 'succeeded', null],
      ['api', 'skipped', 'when.paths: no changed file matches src/**'],
      ['deploy', 'skipped', 'it needs "api", which is skipped'],
      ['site', 'succeeded', null],
    ]);
  });
});

describe('a build every step of which paths skip', () => {
  it('ends SUCCEEDED with no pod, no checkout and one success status that says why', async () => {
    const pipeline = `version: 1\nwhen:\n  paths: [src/**]\nsteps:\n${step('build')}${step('test')}`;
    const statuses = recordedStatuses();
    const { summary, events } = await builds.build('paths-pipeline', pipeline, { input: { changes: docsOnly }, statuses: statuses.reporter });
    expect(summary.status).toBe('SUCCEEDED');
    expect(summary.steps.map(({ name, status, reason }) => [name, status, reason ?? null])).toEqual([
      ['build', 'skipped', "the pipeline's when.paths: no changed file matches src/**"],
      ['test', 'skipped', "the pipeline's when.paths: no changed file matches src/**"],
    ]);
    expect(launched(events)).toBe(0);
    expect(events.some((e) => e.state?.name === 'RunSteps')).toBe(false);
    // No "pending" first: the one status is the end, success, and it says why nothing ran.
    expect(statuses.requests.map(({ outcome, ...rest }) => ({ outcome, skipped: (rest as { skipped?: string }).skipped }))).toEqual([
      { outcome: 'succeeded', skipped: "Skipped by the pipeline's when.paths: no changed file matches src/**" },
    ]);
    const claims = await builds.api.listNamespacedPersistentVolumeClaim({ namespace: 'default', labelSelector: 'step-runner.dev/build=paths-pipeline' });
    expect(claims.items).toEqual([]);
  });

  it('by the steps\' own paths, likewise', async () => {
    const pipeline = `version: 1\nsteps:\n${step('api', '      paths: [services/api/**]\n')}${step('web', '      paths-ignore: ["docs/**"]\n')}`;
    const statuses = recordedStatuses();
    const { summary, events } = await builds.build('paths-steps', pipeline, { input: { changes: docsOnly }, statuses: statuses.reporter });
    expect(summary.status).toBe('SUCCEEDED');
    expect(summary.steps.map((s) => s.status)).toEqual(['skipped', 'skipped']);
    expect(launched(events)).toBe(0);
    expect(statuses.requests).toMatchObject([{ outcome: 'succeeded', skipped: "Skipped by when.paths: the change touches none of the 2 steps' files" }]);
  });
});

describe('run --changed and --base', () => {
  const pipeline = `version: 1\nsteps:\n${step('app', '      paths: [src/**]\n')}${step('always')}`;
  const run = async (name: string, args: string[]) => {
    const repo = path.join(builds.root, 'app');
    const file = path.join(repo, `${name}.yml`);
    await writeFile(file, pipeline);
    const io = capturedIO();
    const code = await main(['run', file, '--kubeconfig', path.join(builds.root, 'kubeconfig'), '--state-dir', path.join(builds.root, 'state'), '--json', ...args], io);
    const summary = JSON.parse(io.outLines.at(-1)!) as RunSummary;
    return { code, summary, statuses: summary.steps.map(({ name: step, status, reason }) => [step, status, reason ?? null]), err: io.errLines };
  };

  it('--changed docs/x.md skips the step with paths: [src/**]', async () => {
    const { code, statuses, err } = await run('changed', ['--changed', 'docs/x.md']);
    expect(code).toBe(0);
    expect(err).toContain('Changes: 1 file (--changed)');
    expect(statuses).toEqual([
      ['clone', 'succeeded', null],
      ['app', 'skipped', 'when.paths: no changed file matches src/**'],
      ['always', 'succeeded', null],
    ]);
  });

  it('without either, nothing is skipped by paths', async () => {
    const { code, statuses } = await run('neither', []);
    expect(code).toBe(0);
    expect(statuses.map(([, status]) => status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('--base takes the work tree\'s changes, untracked files included, against where it left the ref', async () => {
    const repo = path.join(builds.root, 'app');
    await git('git', ['-C', repo, 'branch', '-f', 'base-ref']);
    await mkdir(path.join(repo, 'docs'), { recursive: true });
    await writeFile(path.join(repo, 'docs', 'guide.md'), 'untracked\n');
    const docs = await run('base-docs', ['--base', 'base-ref']);
    expect(docs.code).toBe(0);
    expect(docs.statuses[1]).toEqual(['app', 'skipped', 'when.paths: no changed file matches src/**']);
    await mkdir(path.join(repo, 'src'), { recursive: true });
    await writeFile(path.join(repo, 'src', 'main.go'), 'package main\n');
    const src = await run('base-src', ['--base', 'base-ref']);
    expect(src.statuses[1]).toEqual(['app', 'succeeded', null]);
  });

  it('--base that names no commit stops the run before anything starts', async () => {
    const { code, summary, err } = await run('base-missing', ['--base', 'no-such-ref']);
    expect(code).toBe(2);
    expect(summary.error).toBe('BaseRefError');
    expect(err.join('\n')).toMatch(/--base no-such-ref: no such commit, branch or tag in /);
  });
});
