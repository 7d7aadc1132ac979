/**
 * The console page without a browser: the graph comes from the definition, the colours from the
 * history, build text is escaped, and the HTTP routes answer browsers with HTML and everyone else
 * with the JSON they always got. (test/console-page-browser.e2e.test.ts drives it in Chromium.)
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Step } from '../lib/pipeline/types.js';
import { loadDefinition, taskStates, type AslDefinition } from '../lib/workflow/definition.js';
import { stateGraph } from '../lib/console/asl-graph.js';
import { executionModel } from '../lib/console/execution-model.js';
import { executionPage } from '../lib/console/execution-page.js';
import { layoutGraph } from '../lib/console/graph-layout.js';
import { executionStates } from '../lib/console/state-status.js';
import { podView } from '../lib/console/pod-view.js';
import { loadServiceExamples, serviceObservation } from './fixtures/kube/service-examples.js';
import { LocalExecutions } from '../lib/local/server/executions.js';
import { summarize, type ExecutionEvent } from '../lib/emulators/stepfunctions/executor.js';
import { createConsoleRoutes } from '../lib/local/server/http/console-routes.js';
import { createLocalHttpServer } from '../lib/local/server/http/server.js';

const STEPS = ['greet', 'count', 'inspect'].map((name) => ({ name, image: `${name}:1` }) as Step);
/** What PrepareBuild's registry check said of each step's image. */
const IMAGES = [
  { image: 'greet:1', verdict: 'found', digest: 'sha256:9b2a3c4d5e6f7081' },
  { image: 'count:1', verdict: 'inconclusive', words: 'the registry answered 429 Too Many Requests' },
];
const CAUSE = 'Step "count" could not start: image "count:1" could not be pulled (ErrImagePull). The registry said: not found.';

/** The history of a build whose second step's image cannot be pulled, in the executor's order. */
function failedBuildHistory(prepared: Record<string, unknown> = {}): ExecutionEvent[] {
  let t = 1_700_000_000_000;
  const ev = (type: string, state?: [string, string], index?: number, extra: Partial<ExecutionEvent> = {}): ExecutionEvent => ({
    type,
    timestamp: (t += 5),
    ...(state ? { state: { name: state[0], type: state[1] } } : {}),
    ...(index === undefined ? {} : { index }),
    ...extra,
  });
  // TaskSucceeded holds what the task returned; StateExited the state's output after ResultSelector/ResultPath.
  const task = (name: string, index?: number, returned?: unknown, output: unknown = returned) => [
    ev('StateEntered', [name, 'Task'], index),
    { ...ev('TaskSucceeded', [name, 'Task'], index), state: { name, type: 'Task', output: returned } },
    { ...ev('StateExited', [name, 'Task'], index), state: { name, type: 'Task', output } },
  ];
  const poll = (index: number, phase: string) => ({ namespace: 'default', poll: { podName: `pod-${index}`, phase, reason: phase === 'failed' ? 'ErrImagePull' : 'Running', polls: 1 } });
  return [
    ev('ExecutionStarted'),
    ...task('PrepareBuild', undefined, { namespace: 'default', steps: STEPS, images: IMAGES, ...prepared }),
    ...task('ReportStarted'),
    ev('StateEntered', ['RunSteps', 'Map']),
    ev('MapIterationStarted', undefined, 0),
    ...task('LaunchStep', 0, poll(0, 'pending')),
    ...[1, 2].flatMap(() => [ev('StateEntered', ['WaitForStep', 'Wait'], 0), ev('StateExited', ['WaitForStep', 'Wait'], 0), ...task('PollStep', 0, poll(0, 'running'))]),
    ...task('FinishStep', 0, { step: 'greet', status: 'succeeded', exitCode: 0, error: null, cause: null, logTail: 'hello', log: null }, { step: 'greet', status: 'succeeded', exitCode: 0, log: null }),
    ev('MapIterationSucceeded', undefined, 0),
    ev('MapIterationStarted', undefined, 1),
    ...task('LaunchStep', 1, poll(1, 'pending')),
    ...task('PollStep', 1, poll(1, 'failed')),
    ...(() => {
      const result = { step: 'count', status: 'failed', exitCode: null, error: 'ImagePullFailed', cause: CAUSE, logTail: '', log: null };
      return task('FinishFailedStep', 1, result, { result });
    })(),
    ev('StateEntered', ['StepFailed', 'Fail'], 1),
    ev('StateFailed', ['StepFailed', 'Fail'], 1, { Error: 'ImagePullFailed', Cause: CAUSE }),
    ev('MapIterationFailed', undefined, 1, { Error: 'ImagePullFailed', Cause: CAUSE }),
    ev('StateFailed', ['RunSteps', 'Map'], undefined, { Error: 'ImagePullFailed', Cause: CAUSE }),
    ev('StateCaught', ['RunSteps', 'Map']),
    ev('StateExited', ['RunSteps', 'Map']),
    ...task('CleanupBuild'),
    ...task('ReportFailed'),
    ev('StateEntered', ['BuildFailed', 'Fail']),
    ev('StateFailed', ['BuildFailed', 'Fail'], undefined, { Error: 'ImagePullFailed', Cause: CAUSE }),
    ev('ExecutionFailed', undefined, undefined, { Error: 'ImagePullFailed', Cause: CAUSE }),
  ];
}

describe('the graph is drawn from the definition', () => {
  const definition = loadDefinition();
  const graph = stateGraph(definition);

  it('has a box for every state, each Map\'s iteration states inside its group', () => {
    const boxes = graph.nodes.filter((n) => n.kind === 'state');
    const maps = ['RunSteps', 'RunAfterFailure'];
    const iterationStates = (map: string) => Object.keys(definition.States[map]!.ItemProcessor!.States);
    const expected = [...Object.keys(definition.States), ...maps.flatMap(iterationStates)];
    expect(boxes.map((n) => n.state).sort()).toEqual(expected.sort());
    for (const { state } of taskStates(definition)) expect(boxes.some((n) => n.state === state)).toBe(true);
    for (const map of maps) {
      const inMap = boxes.filter((n) => n.parent === `group:${map}`).map((n) => n.state);
      expect(inMap.sort()).toEqual([map, ...iterationStates(map)].sort());
    }
  });

  it('draws Choice rules, the Default loop and Catch paths as the definition says', () => {
    const edge = (from: string, to: string) => graph.edges.filter((e) => e.from === from && e.to === to);
    expect(edge('RunSteps/StepStatus', 'RunSteps/FinishStep')).toEqual([expect.objectContaining({ kind: 'choice', label: '$.poll.phase == "succeeded"' })]);
    expect(edge('RunSteps/StepStatus', 'RunSteps/WaitForStep')).toEqual([expect.objectContaining({ kind: 'default' })]);
    // The Map's way out on failure leaves from the bottom of its group.
    expect(edge('exit:RunSteps', 'ReadFailure')).toEqual([expect.objectContaining({ kind: 'catch', label: 'Catch #1: States.ALL' })]);
    expect(edge('exit:RunSteps', 'AnyCombinationFailed')).toEqual([expect.objectContaining({ kind: 'next' })]);
  });

  it('follows a changed definition: a new state and transition appear without touching the page', () => {
    const changed = structuredClone(definition) as AslDefinition;
    changed.States.NotifyChat = { Type: 'Pass', Next: 'BuildSucceeded' };
    changed.States.ReportSucceeded!.Next = 'NotifyChat';
    const edges = stateGraph(changed).edges;
    expect(edges).toContainEqual(expect.objectContaining({ from: 'ReportSucceeded', to: 'NotifyChat', kind: 'next' }));
    expect(edges).toContainEqual(expect.objectContaining({ from: 'NotifyChat', to: 'BuildSucceeded' }));
  });

  it('lays states out without overlaps, each Map state inside its group', () => {
    const layout = layoutGraph(graph);
    const boxes = layout.nodes.filter((n) => n.kind === 'state');
    for (const a of boxes) {
      for (const b of boxes) {
        if (a === b) continue;
        const apart = Math.abs(a.x - b.x) * 2 >= a.width + b.width || Math.abs(a.y - b.y) * 2 >= a.height + b.height;
        expect({ a: a.id, b: b.id, apart }).toEqual({ a: a.id, b: b.id, apart: true });
      }
    }
    const group = layout.groups.find((g) => g.state === 'RunSteps')!;
    for (const node of boxes.filter((n) => n.parent === 'group:RunSteps')) {
      expect(Math.abs(node.x - group.x) * 2 + node.width).toBeLessThanOrEqual(group.width);
      expect(Math.abs(node.y - group.y) * 2 + node.height).toBeLessThanOrEqual(group.height);
    }
  });
});

describe('states are coloured from the history', () => {
  it('marks the failed iteration red, the Map that caught it orange, what never ran grey', () => {
    const { top, iterations } = executionStates(failedBuildHistory(), false);
    expect(top.RunSteps?.status).toBe('caught');
    expect(top.CleanupBuild?.status).toBe('succeeded');
    expect(top.BuildFailed?.status).toBe('failed');
    expect(top.ReportSucceeded).toBeUndefined();
    expect(iterations.map((it) => it.status)).toEqual(['succeeded', 'failed']);
    expect(iterations[0]!.states.WaitForStep).toEqual({ status: 'succeeded', visits: 2 });
    expect(iterations[1]!.states.StepFailed?.status).toBe('failed');
    expect(iterations[1]!.states.FinishStep).toBeUndefined();
  });

  it('shows the running state blue, and a state cut off by the end of the execution as cancelled', () => {
    const history = failedBuildHistory();
    const midway = history.slice(0, history.findIndex((e) => e.type === 'StateEntered' && e.state?.name === 'PollStep' && e.index === 1) + 1);
    expect(executionStates(midway, true).iterations[1]!.states.PollStep?.status).toBe('in-progress');
    expect(executionStates(midway, true).top.RunSteps?.status).toBe('in-progress');
    expect(executionStates(midway, false).iterations[1]!.states.PollStep?.status).toBe('cancelled');
  });

  it('names the state and step that failed in the banner, with the Error and Cause', () => {
    const history = failedBuildHistory();
    const model = executionModel({ execution: listed('x', history), history, pods: new Map() });
    expect(model.failure).toEqual({ error: 'ImagePullFailed', cause: CAUSE, state: 'StepFailed', step: { index: 1, name: 'count' }, final: true });
    expect(model.defaultStep).toBe(1);
    expect(model.steps.map((s) => s.status)).toEqual(['succeeded', 'failed', 'not-run']);
  });

  it("shows what the registry check said of each step's image: its digest, or why it could not tell", () => {
    const history = failedBuildHistory();
    const model = executionModel({ execution: listed('x', history), history, pods: new Map() });
    expect(model.steps.map((s) => s.imageCheck)).toEqual([
      'sha256:9b2a3c4d5e6f7081',
      'registry check inconclusive: the registry answered 429 Too Many Requests; the kubelet will tell',
      '',
    ]);
    const page = executionPage(model, layoutGraph(stateGraph(loadDefinition())), 0, new Date()).text;
    expect(page).toContain('<span class="image-check">sha256:9b2a3c4d5e6f7081</span>');
  });
});

describe("the build's cost", () => {
  it('is in the summary: dollars, by part, at which prices, and where the way it is counted is written', () => {
    // The first step's FinishStep measured its pod: 1 vCPU and 2 GiB for an hour on a node with no instance type (the flat rate).
    const history = failedBuildHistory().map((event) =>
      event.type === 'TaskSucceeded' && event.state?.name === 'FinishStep'
        ? { ...event, state: { ...event.state, output: { ...(event.state.output as object), pod: { step: 'greet', cpu: 1, memoryBytes: 2 ** 31, seconds: 3600, instanceType: null } } } }
        : event,
    );
    const model = executionModel({ execution: listed('x', history), history, pods: new Map() });
    const cost = model.execution.cost!;
    expect(cost.parts.pods).toBeCloseTo(0.04048 + 2 * 0.004445, 12);
    const page = executionPage(model, layoutGraph(stateGraph(loadDefinition())), 0, new Date()).text;
    expect(page).toContain(`<dt>Cost</dt><dd data-cost><strong>$${cost.usd.toFixed(4)}</strong>`);
    expect(page).toContain(`step pods $${cost.parts.pods.toFixed(4)}; us-east-1 list prices of ${cost.prices.asOf}); how it is counted: <code>docs/cost.md</code>`);
  });
});

describe('steps skipped by their `when`', () => {
  // The pipeline: lint, greet, deploy, count, inspect; lint and deploy were skipped, so iteration 1 is count.
  const SKIPPED = [
    { name: 'lint', index: 0, reason: 'event push is not pull_request' },
    { name: 'deploy', index: 2, reason: 'branch feature/x is not main, release/*' },
  ];
  const history = failedBuildHistory({ skipped: SKIPPED });

  it('maps each iteration to the step that ran, not to the pipeline step at that place', () => {
    const model = executionModel({ execution: listed('x', history), history, pods: new Map() });
    expect(model.steps.map((s) => [s.index, s.name, s.status])).toEqual([
      [0, 'greet', 'succeeded'],
      [1, 'count', 'failed'],
      [2, 'inspect', 'not-run'],
    ]);
    expect(model.failure?.step).toEqual({ index: 1, name: 'count' });
    expect(model.listed).toEqual([{ skipped: SKIPPED[0] }, { iteration: 0 }, { skipped: SKIPPED[1] }, { iteration: 1 }, { iteration: 2 }]);
  });

  it('lists them in file order as skipped, in grey, with the reason', () => {
    const model = executionModel({ execution: listed('x', history), history, pods: new Map() });
    const page = executionPage(model, layoutGraph(stateGraph(loadDefinition())), null, new Date()).text;
    const names = [...page.matchAll(/<span class="step-name">([^<]*)<\/span>/g)].map((m) => m[1]);
    expect(names).toEqual(['lint', '1. greet', 'deploy', '2. count', '3. inspect']);
    expect(page).toContain('<a class="step status-skipped" href="?step=skipped-2" data-step="skipped-2" data-skipped-step="2" data-outcome="skipped">');
    expect(page).toContain('Skipped: branch feature/x is not main, release/*');
  });

  it('can be selected like a step that ran: its panel says why it was skipped', () => {
    const model = executionModel({ execution: listed('x', history), history, pods: new Map() });
    const page = executionPage(model, layoutGraph(stateGraph(loadDefinition())), 'skipped-2', new Date()).text;
    expect(page).toContain('data-selected="skipped-2"');
    expect(page).toMatch(/data-step="skipped-2" data-skipped-step="2" data-outcome="skipped" aria-current="true">/);
    const panel = page.match(/<section class="step-detail" data-step-detail="skipped-2" aria-label="Step deploy">([\s\S]*?)<\/section>/);
    expect(panel?.[1]).toContain('Skipped: branch feature/x is not main, release/*.');
    // The other panels are hidden, the failed step's included; an unknown key falls back to it.
    expect(page).toMatch(/data-step-detail="1" aria-label="Step count" hidden>/);
    expect(page).toContain('step <strong>deploy</strong> was skipped');
    expect(executionPage(model, layoutGraph(stateGraph(loadDefinition())), 'skipped-9', new Date()).text).toContain('data-selected="1"');
  });

  it('are in the run --json steps, in file order, with status skipped and the reason', () => {
    expect(summarize(history, false).steps).toMatchObject([
      { name: 'lint', status: 'skipped', exitCode: null, error: null, reason: 'event push is not pull_request' },
      { name: 'greet', status: 'succeeded', exitCode: 0, error: null },
      { name: 'deploy', status: 'skipped', exitCode: null, error: null, reason: 'branch feature/x is not main, release/*' },
      { name: 'count', status: 'failed', exitCode: null, error: 'ImagePullFailed' },
      { name: 'inspect', status: 'not-run', exitCode: null, error: null },
    ]);
  });
});

describe('text from a build is escaped', () => {
  it('cannot inject markup through a Cause, a log, a pod event or an execution name', () => {
    const evil = '</script><img src=x onerror=alert(1)>';
    const history = failedBuildHistory().map((e) => (e.Cause ? { ...e, Cause: evil } : e));
    const finished = history.find((e) => e.type === 'TaskSucceeded' && e.state?.name === 'FinishStep')!;
    (finished.state!.output as { logTail: string }).logTail = `<b>${evil}</b>`;
    const pods = new Map([[1, { podName: 'p', phase: 'Pending', container: null, node: null, deleted: true, observedAt: '', events: [{ type: 'Warning', reason: 'Failed', message: evil, count: 1, source: 'kubelet', firstSeen: null, lastSeen: null }] }]]);
    const detail = { execution: { ...listed(`run-<i>`, history), cause: evil }, history, pods };
    const page = executionPage(executionModel(detail), layoutGraph(stateGraph(loadDefinition())), 1, new Date()).text;
    expect(page).not.toContain('<img');
    expect(page).not.toContain('<b>');
    expect(page).not.toContain('<i>');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    // The JSON for the script cannot close its <script> element either.
    expect(page.match(/<\/script>/g)).toHaveLength(2);
  });
});

describe('terminal colours in build text', () => {
  const ESC = '\u001b';
  /** The failed build, its Cause in red and its first step's log as jest prints it (erasing the line first). */
  function colouredBuildHistory(): ExecutionEvent[] {
    const history = failedBuildHistory().map((e) => (e.Cause ? { ...e, Cause: `${ESC}[31m${CAUSE}${ESC}[0m` } : e));
    const finished = history.find((e) => e.type === 'TaskSucceeded' && e.state?.name === 'FinishStep')!;
    (finished.state!.output as { logTail: string }).logTail = `${ESC}[2K${ESC}[1G${ESC}[1;32mPASS${ESC}[0m test/x.test.ts\n${ESC}[41m${ESC}[37m<script>alert(1)</script>${ESC}[0m`;
    return history;
  }

  it('are drawn as colours in the Cause, the log and the history, never as escape codes or markup', () => {
    const history = colouredBuildHistory();
    const detail = { execution: { ...listed('x', history), cause: `${ESC}[31m${CAUSE}${ESC}[0m` }, history, pods: new Map() };
    const page = executionPage(executionModel(detail), layoutGraph(stateGraph(loadDefinition())), 0, new Date()).text;
    expect(page).not.toContain(ESC);
    expect(page).not.toContain('[31m');
    expect(page).toContain('<pre class="cause"><span class="ansi-red-fg">Step &quot;count&quot; could not start');
    expect(page).toContain('<pre class="log"><span class="ansi-green-fg ansi-bold">PASS</span> test/x.test.ts');
    expect(page).toContain('<span class="ansi-white-fg ansi-red-bg">&lt;script&gt;alert(1)&lt;/script&gt;</span>');
    expect(page).not.toContain('<script>alert');
    expect(page).toContain('<td class="message">ImagePullFailed: Step &quot;count&quot; could not start');
  });

  it('reach the browser over HTTP, on the page and in its live updates, without an escape code', async () => {
    const executions = new LocalExecutions({
      run: (_name, _input, onEvent) => {
        const history = colouredBuildHistory();
        return { result: Promise.resolve().then(() => (history.forEach(onEvent), summarize(history, false))), abort: () => {}, refused: [] };
      },
      consoleUrl: (name) => `/executions/${name}`,
    });
    await executions.start('coloured', { build: { id: 'c1', trigger: 'generic', repository: 'team/app', commit: 'abc1234def' }, pipeline: { file: 'p', text: '' } });
    await executions.stopAll();
    const server = createLocalHttpServer({
      webhook: async () => ({ statusCode: 404 }),
      executions,
      console: createConsoleRoutes({ executions, graph: () => layoutGraph(stateGraph(loadDefinition())) }),
      maxBodyBytes: 1024,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const page = await (await fetch(`${base}/executions/coloured?step=0`, { headers: { accept: 'text/html' } })).text();
      expect(page).toContain('<span class="ansi-red-fg">Step &quot;count&quot;');
      expect(page).toContain('<span class="ansi-green-fg ansi-bold">PASS</span>');
      expect(page).not.toContain(ESC);
      const stream = await (await fetch(`${base}/executions/coloured/stream`)).text();
      expect(stream).toContain('ansi-red-fg');
      expect(stream).toContain('ansi-green-fg ansi-bold');
      expect(stream).not.toContain(ESC);
      expect(stream).not.toContain('\\u001b');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("a step's services", () => {
  it("are read from the pod with the step's status, and kept once the pod is gone", () => {
    const example = loadServiceExamples().find((e) => e.name.startsWith('service exits before the step starts'))!;
    const seen = podView('p', serviceObservation(example));
    expect(seen.services).toEqual([{ name: 'db', state: 'waiting', reason: 'CrashLoopBackOff', message: expect.stringContaining('back-off 20s'), exitCode: 1, restarts: 2 }]);
    expect(seen.events.find((e) => e.reason === 'BackOff')?.container).toBe('db');
    const gone = podView('p', { pod: null, events: [], observedAt: new Date() }, seen);
    expect(gone.services).toEqual(seen.services);
  });

  it('are listed in its panel with their state, their own events and their log tail', () => {
    const db = { name: 'db', image: 'postgres:16-alpine', env: {}, ports: [5432], secrets: [], pull: 'if-not-present' };
    const steps = STEPS.map((step) => (step.name === 'count' ? { ...step, services: [db] } : step));
    const history = failedBuildHistory({ steps });
    const finished = history.find((e) => e.type === 'TaskSucceeded' && e.state?.name === 'FinishFailedStep')!;
    (finished.state!.output as { services: unknown }).services = [
      { name: 'db', image: 'postgres:16-alpine', state: 'waiting', exitCode: 3, restarts: 2, logTail: 'initdb: error: <data> exists', log: '/logs/b/count.services.db.log' },
    ];
    const event = (container: string | null, reason: string, message: string) => ({ container, type: 'Warning', reason, message, count: 2, source: 'kubelet', firstSeen: null, lastSeen: null });
    const pods = new Map([
      [
        1,
        {
          podName: 'p',
          phase: 'Pending',
          container: null,
          node: null,
          deleted: true,
          observedAt: '',
          events: [event('db', 'BackOff', 'Back-off restarting failed container db in pod p_default(1)'), event('step', 'Failed', 'words of the step itself')],
          services: [{ name: 'db', state: 'waiting', reason: 'CrashLoopBackOff', message: null, exitCode: 3, restarts: 2 }],
        },
      ],
    ]);
    const model = executionModel({ execution: listed('x', history), history, pods });
    expect(model.steps[1]!.services).toEqual([{ name: 'db', image: 'postgres:16-alpine' }]);
    expect(model.steps[0]!.services).toEqual([]);
    const page = executionPage(model, layoutGraph(stateGraph(loadDefinition())), 1, new Date()).text;
    const panel = page.slice(page.indexOf('aria-label="Service db"'));
    expect(panel).toContain('<code>postgres:16-alpine</code>');
    expect(panel).toContain('waiting <strong>CrashLoopBackOff</strong> (exit 3), restarted 2 times');
    expect(panel).toContain('Back-off restarting failed container db');
    expect(panel.slice(0, panel.indexOf('</section>'))).not.toContain('words of the step itself');
    expect(panel).toContain('initdb: error: &lt;data&gt; exists');
    expect(panel).toContain('/logs/b/count.services.db.log');
  });
});

describe('the same addresses answer browsers with HTML and scripts with JSON', () => {
  let server: Server;
  let base: string;
  let executions: LocalExecutions;

  beforeAll(async () => {
    executions = new LocalExecutions({
      // A recorded build instead of the executor: this is about the HTTP side.
      run: (_name, _input, onEvent) => {
        const history = failedBuildHistory();
        return {
          result: Promise.resolve().then(() => {
            history.forEach(onEvent);
            return summarize(history, false);
          }),
          abort: () => {},
          refused: [],
        };
      },
      consoleUrl: (name) => `/executions/${name}`,
    });
    await executions.start('build-1', { build: { id: 'b1', trigger: 'generic', repository: 'team/app', commit: 'abc1234def' }, pipeline: { file: 'p', text: '' } });
    await executions.stopAll();
    server = createLocalHttpServer({
      webhook: async () => ({ statusCode: 404 }),
      executions,
      console: createConsoleRoutes({ executions, graph: () => layoutGraph(stateGraph(loadDefinition())) }),
      maxBodyBytes: 1024,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
  const curl = { accept: '*/*' };

  it('lists executions as a page for a browser, as JSON for curl', async () => {
    for (const path of ['/', '/executions']) {
      const page = await fetch(base + path, { headers: browser });
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toContain('href="/executions/build-1"');
    }
    const json = await fetch(`${base}/executions`, { headers: curl });
    expect(json.headers.get('content-type')).toBe('application/json');
    // What a script has always got: the execution's name, outcome and where it came from.
    expect(await json.json()).toEqual([
      expect.objectContaining({ name: 'build-1', status: 'FAILED', error: 'ImagePullFailed', cause: CAUSE, buildId: 'b1', trigger: 'generic', repository: 'team/app', commit: 'abc1234def' }),
    ]);
    // `/` gives a script (curl's */*, or fetch() with no Accept) the very same list, as it gives a
    // browser the list page; and, like /executions, answers nothing but GET.
    for (const headers of [curl, {}]) {
      const root = await fetch(`${base}/`, { headers });
      expect(root.headers.get('content-type')).toBe('application/json');
      expect(await root.json()).toEqual(await (await fetch(`${base}/executions`, { headers: curl })).json());
    }
    const posted = await fetch(`${base}/`, { method: 'POST' });
    expect(posted.status).toBe(405);
    expect(await posted.json()).toMatchObject({ error: 'MethodNotAllowed' });
  });

  it('shows one execution as a page for a browser, and the run --json object for curl and fetch()', async () => {
    const page = await fetch(`${base}/executions/build-1`, { headers: browser });
    const html = await page.text();
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toContain('ImagePullFailed');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    for (const headers of [curl, {}]) {
      const json = await fetch(`${base}/executions/build-1`, { headers });
      // The run --json object: outcome, steps and the history, as the executor recorded them.
      expect(await json.json()).toMatchObject({
        status: 'FAILED',
        error: 'ImagePullFailed',
        cause: CAUSE,
        steps: [
          { name: 'greet', status: 'succeeded', exitCode: 0, error: null },
          { name: 'count', status: 'failed', error: 'ImagePullFailed' },
          { name: 'inspect', status: 'not-run', exitCode: null, error: null },
        ],
        events: expect.arrayContaining([expect.objectContaining({ type: 'ExecutionStarted' }), expect.objectContaining({ type: 'ExecutionFailed' })]),
      });
    }
    const missing = await fetch(`${base}/executions/nope`, { headers: curl });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'ExecutionDoesNotExist' });
  });

  it('streams an ended execution once, then says it has ended', async () => {
    const stream = await (await fetch(`${base}/executions/build-1/stream`)).text();
    expect(stream).toMatch(/event: update\ndata: \{.*"status":"FAILED"/);
    expect(stream).toContain('event: end');
  });
});

function listed(name: string, history: ExecutionEvent[]) {
  const summary = summarize(history, false);
  return {
    ...summary,
    name,
    executionArn: `arn:${name}`,
    startedAt: new Date(history[0]!.timestamp).toISOString(),
    stoppedAt: new Date(history.at(-1)!.timestamp).toISOString(),
    buildId: name,
    trigger: 'generic',
    repository: 'team/app',
    commit: 'abc1234',
    ref: null,
    rerunOf: null,
    reruns: [] as string[],
    redriveCount: 0,
    redrivable: false,
  };
}
