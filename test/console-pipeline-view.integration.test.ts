/**
 * The console page's pipeline view, over HTTP against a local server that runs real builds: one
 * box per step coloured by what became of it, one arrow per resolved need (the step above, in a
 * file without `needs`), shown by default with the state machine one click away, and redrawn in
 * the live updates while the build runs.
 */
import { FAST_TIMINGS } from '../lib/emulators/kubernetes/index.js';
import { startLocalServer, type LocalServer } from '../lib/local/server/local-server.js';
import { waitFor } from './fixtures/wait-for.js';
import { deliverGeneric } from './fixtures/webhooks/generic-delivery.js';

const SECRET = 'console-pipeline-secret-5c1e';
const BROWSER = { accept: 'text/html,application/xhtml+xml' };

const step = (name: string, commands: string, extra = '') => `  - name: ${name}\n    image: alpine:3.20\n    commands: [${commands}]\n${extra}`;

let server: LocalServer;

beforeAll(async () => {
  server = await startLocalServer({ port: 0, secret: SECRET, timings: FAST_TIMINGS, overrides: { waitMs: 20, retryMs: 20 } });
}, 60_000);
afterAll(() => server?.close());

async function build(delivery: string, pipeline: string): Promise<string> {
  const name = await deliverGeneric(server.url, SECRET, delivery, { repository: 'team/app', commit: 'd1a3011dc0ffee', ref: 'refs/heads/main', pipeline });
  await waitFor(async () => ((await (await fetch(`${server.url}/executions/${name}`)).json()) as { status: string }).status !== 'RUNNING', {
    timeoutMs: 30_000,
    intervalMs: 100,
    what: 'the build to end',
  });
  return name;
}

/** The pipeline view's boxes (step -> its status class) and arrows (`from -> to`), as the page has them. */
function pipelineView(page: string) {
  const start = page.indexOf('data-graph-view="pipeline"');
  const view = page.slice(start, page.indexOf('data-graph-view="states"'));
  const boxes = Object.fromEntries([...view.matchAll(/<g class="node step-box status-([\w-]+)" data-pipeline-step="([^"]+)"/g)].map((m) => [m[2]!, m[1]!]));
  const arrows = [...view.matchAll(/data-need-from="([^"]+)" data-need-to="([^"]+)"/g)].map((m) => `${m[1]} -> ${m[2]}`);
  return { boxes, arrows };
}

const openingTag = (page: string, marker: string) => {
  const at = page.indexOf(marker);
  return page.slice(page.lastIndexOf('<', at), page.indexOf('>', at) + 1);
};

describe('the pipeline view', () => {
  it("draws a file with needs as its steps and their needs, each coloured by its outcome, and is the view shown first", async () => {
    const name = await build(
      'pipeline-diamond',
      'checkout: false\nversion: 1\nsteps:\n' +
        step('deps', 'echo deps') +
        step('unit', 'echo unit', '    needs: [deps]\n') +
        step('lint', 'exit 3', '    needs: [deps]\n') +
        step('deploy', 'echo deploy', '    needs: [unit, lint]\n    when: {branch: production}\n') +
        step('e2e', 'echo e2e', '    needs: [unit, lint]\n'),
    );
    const page = await (await fetch(`${server.url}/executions/${name}`, { headers: BROWSER })).text();
    const { boxes, arrows } = pipelineView(page);
    expect(boxes).toEqual({ deps: 'succeeded', unit: expect.stringMatching(/^(succeeded|aborted)$/), lint: 'failed', deploy: 'skipped', e2e: 'not-run' });
    // e2e's two needs; deploy's needs are not kept for a skipped step: it is drawn after the step above it.
    expect(arrows.sort()).toEqual(['deps -> lint', 'deps -> unit', 'lint -> deploy', 'lint -> e2e', 'unit -> e2e']);
    // Shown by default; the state machine is one click away, its graph on the page but hidden.
    expect(openingTag(page, 'data-graph-view="pipeline"')).not.toMatch(/\shidden/);
    expect(openingTag(page, 'data-graph-view="states"')).toMatch(/\shidden/);
    expect(openingTag(page, 'data-view="pipeline"')).toContain('aria-pressed="true"');
    expect(openingTag(page, 'data-view="states"')).toContain('aria-pressed="false"');
    expect(page.slice(page.indexOf('data-graph-view="states"'))).toContain('data-node="RunSteps/LaunchStep"');
    // Each box selects its step, as the step list does: the failed one is selected first.
    expect(openingTag(page, 'data-pipeline-step="lint"')).toContain('data-outcome="failed"');
    expect(page).toMatch(/<a href="\?step=2" data-step="2" aria-current="true"><g class="node step-box status-failed" data-pipeline-step="lint"/);
  }, 60_000);

  it('draws a file without needs as a chain, one arrow from each step to the next', async () => {
    const name = await build('pipeline-chain', 'checkout: false\nversion: 1\nsteps:\n' + step('one', 'echo one') + step('two', 'exit 1') + step('three', 'echo three'));
    const { boxes, arrows } = pipelineView(await (await fetch(`${server.url}/executions/${name}`, { headers: BROWSER })).text());
    expect(boxes).toEqual({ one: 'succeeded', two: 'failed', three: 'not-run' });
    expect(arrows).toEqual(['one -> two', 'two -> three']);
  }, 60_000);

  it('is redrawn in the live updates: a running step, then the same step succeeded', async () => {
    const name = await deliverGeneric(server.url, SECRET, 'pipeline-live', {
      repository: 'team/app',
      commit: 'd1a3011dc0ffee',
      ref: 'refs/heads/main',
      pipeline: 'checkout: false\nversion: 1\nsteps:\n' + step('slow', 'sleep 2') + step('after', 'echo after'),
    });
    const response = await fetch(`${server.url}/executions/${name}/stream`);
    const decoder = new TextDecoder();
    const seen: string[] = [];
    let buffered = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      const frames = buffered.split('\n\n');
      buffered = frames.pop()!;
      for (const frame of frames) {
        const data = /^event: update\ndata: (.*)$/m.exec(frame)?.[1];
        if (!data) continue;
        const { boxes } = pipelineView(`data-graph-view="pipeline"${(JSON.parse(data) as { fragments: Record<string, string> }).fragments['x-pipeline']}data-graph-view="states"`);
        const state = `slow ${boxes.slow}, after ${boxes.after}`;
        if (seen.at(-1) !== state) seen.push(state);
      }
    }
    // Seen running while it ran, then succeeded with the step after it: in that order, each redrawn.
    expect(seen).toContain('slow in-progress, after not-run');
    expect(seen.at(-1)).toBe('slow succeeded, after succeeded');
    expect(seen.indexOf('slow in-progress, after not-run')).toBeLessThan(seen.length - 1);
  }, 60_000);
});
