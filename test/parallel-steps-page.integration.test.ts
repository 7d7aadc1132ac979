/**
 * The console page of builds whose steps run side by side, run for real (the local executor, the
 * real definition, the embedded cluster) and rendered from their history as `serve` renders them:
 * the steps that need the same steps share a row, each says what it needs, and a step waiting for
 * its needs, one aborted by another's failure and one never launched each say so.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadDefinition } from '../lib/workflow/definition.js';
import { startEmbeddedCluster, FAST_TIMINGS, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { stateGraph } from '../lib/console/asl-graph.js';
import { executionModel } from '../lib/console/execution-model.js';
import { executionPage } from '../lib/console/execution-page.js';
import { layoutGraph } from '../lib/console/graph-layout.js';
import { LocalExecutions } from '../lib/local/server/executions.js';
import type { ExecutionDetail } from '../lib/console/execution-view.js';
import { startLocalExecution } from '../lib/emulators/stepfunctions/executor.js';
import { localBuildInput, localSource } from '../lib/local/source/local-source.js';
import { localTaskRuntime } from '../lib/local/task-runtime.js';
import { waitFor } from './fixtures/wait-for.js';

const run = promisify(execFile);
const layout = layoutGraph(stateGraph(loadDefinition()));
let root: string;
let repo: string;
let cluster: EmbeddedCluster;
let executions: LocalExecutions;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'parallel-page-'));
  repo = path.join(root, 'app');
  await run('git', ['init', '-q', '-b', 'main', repo]);
  await writeFile(path.join(repo, 'README'), 'hello\n');
  await run('git', ['-C', repo, 'add', 'README']);
  await run('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', 'commit', '-q', '-m', 'first'], { cwd: repo });
  cluster = await startEmbeddedCluster({ timings: FAST_TIMINGS });
  const kubeconfig = path.join(root, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  const runtime = localTaskRuntime({ kubeconfig, namespace: 'default', logsDir: path.join(root, 'logs'), settings: { imageCheck: false } });
  // As `serve` keeps them: the page is rendered from what this registry holds.
  executions = new LocalExecutions({
    run: (executionName, input, onEvent) => startLocalExecution(input, { runtime, executionName, onEvent, overrides: { waitMs: 50, retryMs: 10 } }),
    consoleUrl: (name) => `/executions/${name}`,
  });
}, 30_000);

afterAll(async () => {
  await executions?.stopAll();
  await cluster?.stop();
  await rm(root, { recursive: true, force: true });
});

const step = (name: string, commands: string[], extra = '') =>
  `  - name: ${name}\n    image: alpine:3.20\n    commands:\n${commands.map((c) => `      - ${JSON.stringify(c)}\n`).join('')}${extra}`;

/** Starts the build and resolves with its detail once `when` holds of it (checked at each history event), and at its end. */
async function build(name: string, pipeline: string, when: (detail: ExecutionDetail) => boolean) {
  const file = path.join(repo, `${name}.yml`);
  await writeFile(file, pipeline);
  const source = await localSource(file);
  let midway: string | undefined;
  const unsubscribe = executions.subscribe((change) => {
    if (midway !== undefined || change.kind !== 'event' || change.name !== name) return;
    const detail = executions.detail(name)!;
    if (when(detail)) midway = render(detail);
  });
  try {
    await executions.start(name, localBuildInput(name, { file: `${name}.yml`, text: pipeline }, source));
    await waitFor(() => executions.get(name)!.status !== 'RUNNING', { timeoutMs: 50_000, intervalMs: 50, what: `${name} to end` });
    return { midway, ended: render(executions.detail(name)!) };
  } finally {
    unsubscribe();
    await source.dispose();
  }
}

const render = (detail: ExecutionDetail) => executionPage(executionModel(detail), layout, null, new Date()).text;

/** The step list's rows as the page draws them: each row's step names, and each step's status words and needs. */
function rows(page: string) {
  const list = page.match(/<ol id="x-steps" class="steps">([\s\S]*?)<\/ol>\n<div id="x-details">/)![1]!;
  return [...list.matchAll(/<li class="step-row" data-depth="(\d+)">([\s\S]*?)<\/ol><\/li>/g)].map((row) =>
    [...row[2]!.matchAll(/<span class="step-name">(?:\d+\. )?([^<]*)<\/span>\s*<span class="step-status">([^<]*)(?:<code>[^<]*<\/code>)?<\/span>(?:<span class="step-needs">needs: ([^<]*)<\/span>)?/g)].map(
      (m) => ({ name: m[1], status: m[2]!.replace(/ · $/, ''), needs: m[3] ?? null }),
    ),
  );
}

describe('the page of a build whose steps run side by side', () => {
  it('draws deps, then unit and lint in one row, then e2e; e2e waits for its needs while they run', async () => {
    const pipeline =
      'version: 1\nsteps:\n' +
      step('deps', ['echo deps']) +
      step('unit', ['sleep 1', 'echo unit'], '    needs: [deps]\n') +
      step('lint', ['sleep 1', 'echo lint'], '    needs: [deps]\n') +
      step('e2e', ['echo e2e'], '    needs: [unit, lint]\n');
    // Both pods created (LaunchStep done), e2e's iteration started.
    const bothLaunched = (detail: ExecutionDetail) => {
      const { steps } = executionModel(detail);
      const launched = (name: string) => detail.history.some((e) => e.type === 'TaskSucceeded' && e.state?.name === 'LaunchStep' && e.index === steps.find((s) => s.name === name)?.index);
      return launched('unit') && launched('lint') && detail.execution.steps.find((s) => s.name === 'e2e')?.status === 'waiting';
    };
    const { midway, ended } = await build('diamond-page', pipeline, bothLaunched);

    expect(rows(ended)).toEqual([
      [{ name: 'clone', status: 'succeeded', needs: null }],
      [{ name: 'deps', status: 'succeeded', needs: 'clone' }],
      [
        { name: 'unit', status: 'succeeded', needs: 'deps' },
        { name: 'lint', status: 'succeeded', needs: 'deps' },
      ],
      [{ name: 'e2e', status: 'succeeded', needs: 'unit, lint' }],
    ]);
    expect(ended).toContain('aria-label="Depth 2: 2 steps side by side"');

    // While unit and lint run, e2e has an iteration but no pod: it waits, and its panel says for what.
    expect(midway).toBeDefined();
    const [, , together, last] = rows(midway!);
    expect(together).toEqual([
      { name: 'unit', status: 'in progress', needs: 'deps' },
      { name: 'lint', status: 'in progress', needs: 'deps' },
    ]);
    expect(last).toEqual([{ name: 'e2e', status: 'waiting for needs', needs: 'unit, lint' }]);
    expect(midway).toMatch(/data-outcome="waiting"/);
    const banner = midway!.match(/<section class="banner banner-running">[\s\S]*?<\/section>/)![0];
    expect(banner).toMatch(/Steps .*<strong>unit<\/strong>, <strong>lint<\/strong> side by side/);
    expect(midway).toMatch(/data-step-detail="4" aria-label="Step e2e" hidden>[\s\S]*?Waiting for <strong>[^<]*(unit|lint)[^<]*<\/strong> to succeed/);
  }, 60_000);

  it('says which step was aborted beside the failure and which was never launched', async () => {
    const pipeline =
      'version: 1\nsteps:\n' +
      step('deps', ['echo ok']) +
      step('slow', ['sleep 30'], '    needs: [deps]\n') +
      '  - name: broken\n    image: alpine:3.99-nope\n    commands: [echo never]\n    needs: [deps]\n' +
      step('after', ['echo never'], '    needs: [slow, broken]\n');
    const { ended } = await build('fail-fast-page', pipeline, () => false);
    expect(rows(ended)).toEqual([
      [{ name: 'clone', status: 'succeeded', needs: null }],
      [{ name: 'deps', status: 'succeeded', needs: 'clone' }],
      [
        { name: 'slow', status: 'aborted', needs: 'deps' },
        { name: 'broken', status: 'failed', needs: 'deps' },
      ],
      [{ name: 'after', status: 'not run', needs: 'slow, broken' }],
    ]);
    expect(ended).toContain('class="step status-aborted"');
    expect(ended).toContain('class="step status-not-run"');
    expect(ended).toContain('Aborted: its pod was launched, then deleted');
    expect(ended).toContain('Not run: the build ended before this step was launched.');
  }, 60_000);

  it('keeps a sequential pipeline a single column, as before', async () => {
    const pipeline = 'version: 1\nsteps:\n' + step('one', ['echo one']) + step('two', ['echo two']);
    const { ended } = await build('sequential-page', pipeline, () => false);
    expect(ended).not.toContain('step-row');
    expect(ended).not.toContain('step-needs');
    expect([...ended.matchAll(/<span class="step-name">([^<]*)<\/span>/g)].map((m) => m[1])).toEqual(['1. clone', '2. one', '3. two']);
  }, 60_000);
});
