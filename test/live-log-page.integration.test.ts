/**
 * The console page and the log route while a step runs: a line the step prints is there while the
 * step runs, with no event in the execution's history to announce it (the poll holds its watch
 * the whole time the step sleeps), through GET /executions/NAME/steps/0/log, the page, and the
 * page's live stream.
 */
import { get as httpGet } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalServer, type LocalServer } from '../lib/local/server/local-server.js';
import { waitFor } from './fixtures/wait-for.js';
import { deliverGeneric } from './fixtures/webhooks/generic-delivery.js';

const SECRET = 'live-log-page-secret-7c1d';
const TALKS_THEN_SLEEPS =
  'version: 1\ncheckout: false\nsteps:\n  - name: talk\n    image: alpine:3.20\n    commands: [echo first words, sleep 2, echo second words, sleep 30]\n';

let cluster: EmbeddedCluster;
let server: LocalServer;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'live-log-page-'));
  cluster = await startEmbeddedCluster({ workspace: scratch, timings: FAST_TIMINGS });
  const kubeconfig = path.join(scratch, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  server = await startLocalServer({ port: 0, secret: SECRET, kubeconfig, print: () => {} });
}, 30_000);

afterAll(async () => {
  await server?.close();
  await cluster?.stop();
  await rm(scratch, { recursive: true, force: true });
});

/** Resolves with the moment the page's live stream first sends `text`. */
function streamed(url: string, text: string): { seen: Promise<number>; close: () => void } {
  let close = () => {};
  const seen = new Promise<number>((resolve, reject) => {
    const request = httpGet(url, { headers: { accept: 'text/event-stream' } }, (response) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (chunk.includes(text)) resolve(Date.now());
      });
    });
    request.on('error', reject);
    close = () => request.destroy();
  });
  return { seen, close };
}

test('a running step\'s lines reach the log route, the page and its stream while it runs', async () => {
  const name = await deliverGeneric(server.url, SECRET, 'live-page-1', { repository: 'team/app', commit: 'a1b2c3d4e5f6', ref: 'refs/heads/main', pipeline: TALKS_THEN_SLEEPS });
  const stream = streamed(`${server.url}/executions/${name}/stream`, 'second words');
  try {
    const logUrl = `${server.url}/executions/${name}/steps/0/log`;
    const firstAt = await waitFor(
      async () => {
        const response = await fetch(logUrl);
        return response.status === 200 && (await response.text()).includes('first words') ? Date.now() : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'the first line in the log route' },
    );

    // The page while the step runs: its log so far, and the whole-log link.
    const page = await (await fetch(`${server.url}/executions/${name}`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('first words');
    expect(page).toContain(`href="/executions/${name}/steps/0/log"`);
    const running = (await (await fetch(`${server.url}/executions/${name}`)).json()) as { status: string; steps: { status: string }[] };
    expect(running).toMatchObject({ status: 'RUNNING', steps: [{ status: 'running' }] });

    // The second line comes 2 s after the first, and the stream sends it while the step still runs
    // (it sleeps 30 s after it), and after the first line was in the log route.
    const secondAt = await stream.seen;
    expect(secondAt).toBeGreaterThan(firstAt);
    const stillRunning = (await (await fetch(`${server.url}/executions/${name}`)).json()) as { status: string; steps: { status: string }[] };
    expect(stillRunning).toMatchObject({ status: 'RUNNING', steps: [{ status: 'running' }] });
    expect(await (await fetch(logUrl)).text()).toBe('+ echo first words\nfirst words\n+ sleep 2\n+ echo second words\nsecond words\n+ sleep 30\n');
  } finally {
    stream.close();
    await fetch(`${server.url}/executions/${name}/stop`, { method: 'POST' });
  }
}, 40_000);
