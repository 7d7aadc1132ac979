/** The local server's answers to `/`: the list, as JSON for scripts and as the page for browsers. */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { stateGraph } from '../console/asl-graph.js';
import { layoutGraph } from '../console/graph-layout.js';
import { LocalExecutions } from '../executions.js';
import { summarize, type ExecutionEvent } from '../executor.js';
import { loadDefinition } from '../../workflow/definition.js';
import { createConsoleRoutes } from './console-routes.js';
import { createLocalHttpServer } from './server.js';

let server: Server;
let base: string;

beforeAll(async () => {
  const history: ExecutionEvent[] = [
    { type: 'ExecutionStarted', timestamp: Date.parse('2026-01-05T10:00:00Z') },
    { type: 'ExecutionSucceeded', timestamp: Date.parse('2026-01-05T10:00:02Z') },
  ];
  const executions = new LocalExecutions({
    run: (_name, _input, onEvent) => ({ result: Promise.resolve().then(() => (history.forEach(onEvent), summarize(history, false))), abort: () => {}, refused: [] }),
    consoleUrl: (name) => `/executions/${name}`,
  });
  await executions.start('listed-build', { build: { id: 'l1', trigger: 'generic' }, pipeline: { file: 'p', text: '' } });
  await executions.stopAll();
  server = createLocalHttpServer({
    webhook: async () => ({ statusCode: 404 }),
    executions,
    console: createConsoleRoutes({ executions, graph: layoutGraph(stateGraph(loadDefinition())) }),
    maxBodyBytes: 1024,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('GET /', () => {
  it('answers a script with the list of executions, as GET /executions does', async () => {
    const root = await fetch(`${base}/`);
    expect(root.status).toBe(200);
    expect(root.headers.get('content-type')).toBe('application/json');
    const listed = (await root.json()) as { name: string; status: string }[];
    expect(listed).toEqual(await (await fetch(`${base}/executions`)).json());
    expect(listed.map((x) => [x.name, x.status])).toEqual([['listed-build', 'SUCCEEDED']]);
  });

  it('answers a browser with the list page', async () => {
    const page = await fetch(`${base}/`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('listed-build');
  });

  it('refuses anything but GET, as /executions does', async () => {
    const posted = await fetch(`${base}/`, { method: 'POST' });
    expect(posted.status).toBe(405);
    expect(await posted.json()).toMatchObject({ error: 'MethodNotAllowed' });
  });
});
