/**
 * The console page end to end, in real headless Chromium (Debian's, driven by playwright-core;
 * no browser is downloaded): the local server on the embedded cluster (fast kubelet), builds
 * started by signed generic webhooks, and the page watched the way a person would. Screenshots go
 * to test-artifacts/ for a human to look at. Among them a build whose steps run side by side: the
 * steps that need the same steps are drawn next to each other (same row, different columns), in
 * the step list and in the pipeline view shown first (the state machine a click away), and a
 * skipped step is selected like the others, by click and by address, its panel saying why it was
 * skipped. One server and one browser for them all.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { FAST_TIMINGS } from '../lib/emulators/kubernetes/index.js';
import { startLocalServer, type LocalServer } from '../lib/local/server/local-server.js';
import { ARTIFACTS, chromiumInstalled, launchChromium } from './fixtures/chromium.js';
import { describeRequiring } from './fixtures/requirements.js';
import { branchPush } from './fixtures/webhooks/examples.js';
import { sign } from '@octokit/webhooks-methods';
import { deliverGeneric } from './fixtures/webhooks/generic-delivery.js';
import { waitFor } from './fixtures/wait-for.js';

// Callbacks passed to page.evaluate run in the browser; the project's tsconfig has no DOM types.
interface QueriedElement {
  querySelector(selector: string): QueriedElement | null;
}
declare const document: { activeElement: unknown; documentElement: { scrollWidth: number }; querySelector(selector: string): QueriedElement | null };
declare const window: { innerWidth: number; notReloaded?: boolean; injected?: number };
declare function getComputedStyle(element: unknown): { outlineStyle: string; color: string };

const SECRET = 'console-page-secret-5e1f';
/** A developer machine without Chromium skips, saying why; under CI=true (which installs it, .ci/run) it fails. */

/** Steps side by side: unit and lint both need deps, e2e needs both; deploy is skipped off its branch. */
const step = (name: string, commands: string, extra = '') => `  - name: ${name}\n    image: alpine:3.20\n    commands: [${commands}]\n${extra}`;
const SIDE_BY_SIDE =
  'checkout: false\nversion: 1\nsteps:\n' +
  step('deps', 'echo deps') +
  step('unit', 'sleep 1, echo unit', '    needs: [deps]\n') +
  step('lint', 'sleep 1, echo lint', '    needs: [deps]\n') +
  step('deploy', 'echo deploy', '    needs: [unit, lint]\n    when: {branch: production}\n') +
  step('e2e', 'echo e2e', '    needs: [unit, lint]\n');

let server: LocalServer;
let browser: Browser;

/** A generic delivery of a pipeline that needs no source. */
async function startBuild(pipelineFile: string, delivery: string): Promise<string> {
  return deliverGeneric(server.url, SECRET, delivery, {
    repository: 'team/app',
    commit: `${delivery.padEnd(12, '0')}c0ffee`,
    ref: 'refs/heads/main',
    pipeline: `checkout: false\n${readFileSync(pipelineFile, 'utf8')}`,
  });
}

/**
 * A GitHub push of this repository's HEAD: the server builds its default pipeline
 * (examples/hello.yml) on a checkout of that commit from the current work tree.
 */
async function startGitHubBuild(delivery: string): Promise<string> {
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  const body = JSON.stringify({ ...branchPush(), after: head });
  const response = await fetch(`${server.url}/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': delivery, 'x-hub-signature-256': await sign(SECRET, body) },
    body,
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { executionName: string }).executionName;
}

async function statusOf(name: string): Promise<string> {
  const response = await fetch(`${server.url}/executions/${name}`);
  return ((await response.json()) as { status: string }).status;
}

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every request the page makes, to prove none leaves this server. */
function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (request) => urls.push(request.url()));
  return urls;
}

describeRequiring('the console page in Chromium', chromiumInstalled, () => {
  beforeAll(async () => {
    server = await startLocalServer({ port: 0, secret: SECRET, timings: FAST_TIMINGS, overrides: { waitMs: 20, retryMs: 20 } });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('marks the step whose image cannot be pulled, shows ImagePullFailed and its Cause, and the kubelet events of the step', async () => {
    const name = await startBuild('test/fixtures/pipelines/good/missing-image-kubelet.yml', 'missing-image-1');
    await until(async () => (await statusOf(name)) !== 'RUNNING');

    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    const requests = recordRequests(page);
    await page.goto(`${server.url}/executions/${name}`);

    const banner = page.locator('.banner-failed');
    await expect(banner.locator('.error-name').textContent()).resolves.toBe('ImagePullFailed');
    const cause = await banner.locator('.cause').textContent();
    expect(cause).toContain('Step "count" could not start');
    expect(cause).toContain('alpine:3.99-does-not-exist');
    await expect(banner.textContent()).resolves.toContain('in step count');

    // The graph, coloured as the console does: the Map caught the failure, the iteration failed.
    const nodeClass = (id: string) => page.locator(`g[data-node="${id}"]`).getAttribute('class');
    await expect(nodeClass('RunSteps')).resolves.toContain('status-caught');
    // It fails in AwaitRerun, the Task a redrive ("Re-run failed steps") schedules again; not in BuildFailed.
    await expect(nodeClass('AwaitRerun')).resolves.toContain('status-failed');
    await expect(nodeClass('BuildFailed')).resolves.toContain('status-not-run');
    await expect(nodeClass('ReportSucceeded')).resolves.toContain('status-not-run');
    await expect(nodeClass('RunSteps/StepFailed')).resolves.toContain('status-failed');
    await expect(nodeClass('RunSteps/FinishStep')).resolves.toContain('status-not-run');
    const stepClass = (i: number) => page.locator(`#x-steps a[data-step="${i}"]`).getAttribute('class');
    await expect(stepClass(0)).resolves.toContain('status-succeeded');
    await expect(stepClass(1)).resolves.toContain('status-failed');
    await expect(stepClass(2)).resolves.toContain('status-not-run');

    // Keyboard only: Tab to the first step, Enter; its iteration is the one coloured now.
    await tabTo(page, '#x-steps a[data-step="0"]');
    await page.keyboard.press('Enter');
    await expect(nodeClass('RunSteps/FinishStep')).resolves.toContain('status-succeeded');
    await expect(nodeClass('RunSteps/StepFailed')).resolves.toContain('status-not-run');
    await expect(page.locator('[data-step-detail="0"] pre.log').textContent()).resolves.toContain('Hello from step one');
    const logHref = await page.locator('[data-step-detail="0"] a', { hasText: 'Whole log' }).getAttribute('href');
    const log = await fetch(new URL(logHref!, server.url));
    expect(log.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await log.text()).toContain('+ uname -s');

    // Then the failed step: its pod's events as the kubelet recorded them, registry words included.
    await tabTo(page, '#x-steps a[data-step="1"]');
    await page.keyboard.press('Enter');
    const detail = page.locator('[data-step-detail="1"]');
    await expect(detail.isVisible()).resolves.toBe(true);
    await expect(nodeClass('RunSteps/StepFailed')).resolves.toContain('status-failed');
    const reasons = await detail.locator('table.pod-events tbody tr td:nth-child(2)').allTextContents();
    // The build fails at the registry's "not found", so whether the kubelet's BackOff came before
    // the pod was deleted is a matter of milliseconds: it is not asked for.
    expect(reasons).toEqual(expect.arrayContaining(['Scheduled', 'Pulling', 'Failed']));
    await expect(detail.locator('table.pod-events').textContent()).resolves.toContain('Failed to pull image "alpine:3.99-does-not-exist"');
    await expect(detail.textContent()).resolves.toContain('the pod was deleted when its step ended');
    // Focus is visible on the selected step.
    const outline = await page.locator('#x-steps a[data-step="1"]').evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(outline).not.toBe('none');

    // The event history, like the console's table.
    const types = await page.locator('#x-history tr td:nth-child(2)').allTextContents();
    expect(types[0]).toBe('ExecutionStarted');
    expect(types.at(-1)).toBe('ExecutionFailed');

    await page.screenshot({ path: `${ARTIFACTS}/console-failed-build.png`, fullPage: true });
    await page.locator('.graph-panel').screenshot({ path: `${ARTIFACTS}/console-failed-build-graph.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('h1').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}/console-failed-build-phone.png` });
    await detail.screenshot({ path: `${ARTIFACTS}/console-failed-step-phone.png` });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(requests.filter((url) => !url.startsWith(server.url))).toEqual([]);
    await page.close();
  }, 60_000);

  it('draws terminal colours in the live log instead of escape codes, and wraps a long image digest inside the step panel', async () => {
    const name = await startBuild('test/fixtures/pipelines/good/ansi-long-digest.yml', 'ansi-digest-1');
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    await page.goto(`${server.url}/executions/${name}?step=0`);
    const log = page.locator('[data-step-detail="0"] pre.log');
    // While it runs the log comes over the live stream (the page swaps the server's fragments in).
    await log.filter({ hasText: 'npm ERR!' }).waitFor({ timeout: 20_000 });
    const visible = () => page.locator('main').innerText();
    const noEscapes = (text: string) => {
      expect(text).not.toContain('\u001b');
      // The shell's trace of the printf shows its `\\033[31m` as typed: that is the command, not a code.
      expect(text).not.toMatch(/(?<!\\033)\[(\d+;)*\d*[mKG]/);
    };
    noEscapes(await visible());
    await expect(log.locator('.ansi-green-fg.ansi-bold').textContent()).resolves.toBe(' PASS ');
    // Both colours read in one go: the live stream may swap the log's fragment in between two reads.
    const colours = await page.evaluate(() => {
      const logElement = document.querySelector('[data-step-detail="0"] pre.log');
      const red = logElement?.querySelector('.ansi-red-fg');
      return { log: logElement ? getComputedStyle(logElement).color : 'no log', red: red ? getComputedStyle(red).color : 'no red span' };
    });
    expect(colours.red).not.toBe(colours.log);
    expect(colours.red).toMatch(/^rgb/);
    await expect(log.locator('.ansi-red-bg').textContent()).resolves.toBe('<script>window.injected=1</script>');
    expect(await page.evaluate(() => window.injected)).toBeUndefined();

    await until(async () => (await statusOf(name)) !== 'RUNNING');
    await page.reload();
    noEscapes(await visible());
    const digest = 'docker.io/library/alpine@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
    await expect(page.locator('.banner-failed .cause').textContent()).resolves.toContain(digest);
    await tabTo(page, '#x-steps a[data-step="1"]');
    await page.keyboard.press('Enter');
    const panel = page.locator('.steps-panel');
    await expect(panel.locator('[data-step-detail="1"]').textContent()).resolves.toContain(digest);
    for (const width of [1366, 390]) {
      await page.setViewportSize({ width, height: 900 });
      // Nothing sticks out of the step panel, the Cause box, or the page.
      for (const box of [panel, page.locator('.banner-failed .cause')]) {
        const { scrollWidth, clientWidth } = await box.evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
        expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    }
    await page.screenshot({ path: `${ARTIFACTS}/console-ansi-long-digest-phone.png`, fullPage: true });
    await page.close();
  }, 60_000);

  it('lists a new build as it starts, and its page turns green live, without a reload', async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    const requests = recordRequests(page);
    await page.goto(`${server.url}/`);
    const rowsBefore = await page.locator('#x-list tr[data-execution]').count();

    const name = await startGitHubBuild('hello-1');
    const row = page.locator(`#x-list tr[data-execution="${name}"]`);
    await row.waitFor({ timeout: 10_000 });
    expect(await page.locator('#x-list tr[data-execution]').count()).toBe(rowsBefore + 1);
    await page.screenshot({ path: `${ARTIFACTS}/console-list.png` });

    await row.locator('a').click();
    await page.waitForURL(`**/executions/${name}`);
    await page.locator('.execution-page[data-live="on"]').waitFor({ timeout: 5_000 });
    await expect(page.locator('#x-status [data-status]').getAttribute('data-status')).resolves.toBe('RUNNING');
    // Anything set now is gone if the page reloads.
    await page.evaluate(() => (window.notReloaded = true));
    // The pipeline view, shown first, turns a step blue live; the state graph behind its toggle too.
    await page.locator('#x-pipeline g.step-box.status-in-progress').waitFor({ timeout: 10_000 });
    await page.locator('g[data-node="RunSteps"].status-in-progress').waitFor({ state: 'attached', timeout: 10_000 });
    await page.screenshot({ path: `${ARTIFACTS}/console-passing-build-running.png` });

    await page.locator('#x-status [data-status="SUCCEEDED"]').waitFor({ timeout: 30_000 });
    await page.locator('.execution-page[data-live="ended"]').waitFor({ timeout: 5_000 });
    expect(await page.evaluate(() => window.notReloaded)).toBe(true);
    await expect(page.locator('.banner-succeeded').isVisible()).resolves.toBe(true);
    for (const state of ['PrepareBuild', 'RunSteps', 'ReportSucceeded', 'BuildSucceeded']) {
      await expect(page.locator(`g[data-node="${state}"]`).getAttribute('class')).resolves.toContain('status-succeeded');
    }
    await expect(page.locator('g[data-node="CleanupBuild"]').getAttribute('class')).resolves.toContain('status-not-run');
    const steps = await page.locator('#x-steps a[data-step]').evaluateAll((links) => links.map((l) => l.className));
    // The checkout first, then the three steps of examples/hello.yml.
    expect(steps).toEqual(Array(4).fill(expect.stringContaining('status-succeeded')));
    await expect(page.locator('#x-steps a[data-step="0"]').textContent()).resolves.toContain('clone');
    // The pipeline view: the same four, the clone first, green, a chain of three arrows.
    const boxes = await page.locator('#x-pipeline g.step-box').evaluateAll((gs) => gs.map((g) => `${g.getAttribute('data-pipeline-step')} ${g.getAttribute('data-outcome')}`));
    expect(boxes[0]).toBe('clone succeeded');
    expect(boxes).toEqual(Array(4).fill(expect.stringMatching(/ succeeded$/)));
    await expect(page.locator('#x-pipeline g.need').count()).resolves.toBe(3);
    await page.screenshot({ path: `${ARTIFACTS}/console-passing-build.png` });
    expect(requests.filter((url) => !url.startsWith(server.url))).toEqual([]);
    await page.close();
  }, 60_000);

  it('stops a running build after a confirmation, and starts it again with New execution, the two pages linked', async () => {
    const name = await startBuild('test/fixtures/pipelines/good/long-step.yml', 'stop-from-page-1');
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    await page.goto(`${server.url}/executions/${name}`);
    await page.locator('.execution-page[data-live="on"]').waitFor({ timeout: 5_000 });
    const stop = page.locator('#x-actions button[data-action="stop"]');

    // Cancelling the confirmation stops nothing.
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await stop.click();
    expect(asked).toEqual([expect.stringContaining(`Stop execution ${name}?`)]);
    expect(await statusOf(name)).toBe('RUNNING');

    page.once('dialog', (dialog) => void dialog.accept());
    await stop.click();
    await page.locator('#x-status [data-status="ABORTED"]').waitFor({ timeout: 15_000 });
    expect(await statusOf(name)).toBe('ABORTED');
    await expect(stop.count()).resolves.toBe(0);
    await expect(page.locator('.banner-cancelled').textContent()).resolves.toContain('Execution aborted');
    await page.screenshot({ path: `${ARTIFACTS}/console-stopped-build.png` });

    await page.locator('#x-actions button[data-action="rerun"]').click();
    await page.waitForURL(`**/executions/${name}-rerun-1`);
    const back = page.locator('#x-summary a[data-rerun-of]');
    await expect(back.textContent()).resolves.toBe(name);
    await expect(page.locator('#x-status [data-status]').getAttribute('data-status')).resolves.toBe('RUNNING');
    // Stopped from a script this time; the page follows it live, and holds still for the click.
    const stopped = await fetch(`${server.url}/executions/${name}-rerun-1/stop`, { method: 'POST' });
    expect(stopped.status).toBe(200);
    await page.locator('#x-status [data-status="ABORTED"]').waitFor({ timeout: 15_000 });
    await back.click();
    await page.waitForURL(`**/executions/${name}`);
    await expect(page.locator('#x-summary a[data-rerun]').textContent()).resolves.toBe(`${name}-rerun-1`);
    await page.close();
  }, 60_000);

  it('draws unit and lint side by side between deps and e2e, and selects the skipped deploy to show why', async () => {
    const name = await deliverGeneric(server.url, SECRET, 'diamond-1', { repository: 'team/app', commit: 'd1a3011dc0ffee', ref: 'refs/heads/main', pipeline: SIDE_BY_SIDE });
    await waitFor(async () => ((await (await fetch(`${server.url}/executions/${name}`)).json()) as { status: string }).status !== 'RUNNING', {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: 'the build to end',
    });
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    await page.goto(`${server.url}/executions/${name}`);
    await page.locator('#x-status [data-status="SUCCEEDED"]').waitFor({ timeout: 5_000 });

    // By the step's name alone ("3. unit", or "deploy" when skipped): the needs lines name steps too.
    const stepLink = (text: string) => page.locator('#x-steps a.step').filter({ has: page.locator('.step-name', { hasText: new RegExp(`^(\\d+\\. )?${text}$`) }) });
    const box = async (text: string) => (await stepLink(text).boundingBox())!;
    const [deps, unit, lint, deploy, e2e] = await Promise.all(['deps', 'unit', 'lint', 'deploy', 'e2e'].map(box));
    // Same row, two columns; deps above them, e2e below.
    expect(Math.abs(unit!.y - lint!.y)).toBeLessThan(2);
    expect(lint!.x).toBeGreaterThanOrEqual(unit!.x + unit!.width);
    expect(deps!.y + deps!.height).toBeLessThanOrEqual(unit!.y);
    expect(e2e!.y).toBeGreaterThanOrEqual(unit!.y + unit!.height);
    // The skipped deploy would have run beside e2e: it is drawn in e2e's row.
    expect(Math.abs(deploy!.y - e2e!.y)).toBeLessThan(2);
    await expect(stepLink('e2e').locator('.step-needs').textContent()).resolves.toBe('needs: unit, lint');
    await page.locator('.steps-panel').screenshot({ path: `${ARTIFACTS}/console-parallel-steps.png` });

    // The pipeline view is the one shown: the user's steps, unit and lint side by side again.
    const pipelineBox = (text: string) => page.locator(`#x-pipeline [data-pipeline-step="${text}"]`);
    const stateNode = page.locator('g[data-node="RunSteps/LaunchStep"]');
    await expect(pipelineBox('e2e').isVisible()).resolves.toBe(true);
    await expect(stateNode.isVisible()).resolves.toBe(false);
    const [pDeps, pUnit, pLint, pE2e] = await Promise.all(['deps', 'unit', 'lint', 'e2e'].map(async (n) => (await pipelineBox(n).boundingBox())!));
    expect(Math.abs(pUnit!.y - pLint!.y)).toBeLessThan(2);
    expect(pDeps!.y + pDeps!.height).toBeLessThanOrEqual(pUnit!.y);
    expect(pE2e!.y).toBeGreaterThanOrEqual(pUnit!.y + pUnit!.height);
    // deps to unit and lint, both to e2e; the skipped deploy (its needs not kept) after the step above it.
    await expect(page.locator('#x-pipeline g.need').count()).resolves.toBe(5);
    await page.locator('.graph-panel').screenshot({ path: `${ARTIFACTS}/console-parallel-pipeline.png` });
    // A box selects its step, as the list does.
    await pipelineBox('lint').click();
    await expect(page.locator('[data-step-detail="2"]').isVisible()).resolves.toBe(true);
    await expect(stepLink('lint').getAttribute('aria-current')).resolves.toBe('true');
    // One click away: the state machine, kept in the address; and back.
    await page.locator('button[data-view="states"]').click();
    await expect(stateNode.isVisible()).resolves.toBe(true);
    await expect(pipelineBox('e2e').isVisible()).resolves.toBe(false);
    await expect(page.locator('button[data-view="states"]').getAttribute('aria-pressed')).resolves.toBe('true');
    expect(new URL(page.url()).searchParams.get('view')).toBe('states');
    await page.locator('.graph-panel').screenshot({ path: `${ARTIFACTS}/console-parallel-state-machine.png` });
    await page.locator('button[data-view="pipeline"]').click();
    await expect(pipelineBox('e2e').isVisible()).resolves.toBe(true);
    await expect(stateNode.isVisible()).resolves.toBe(false);

    // The skipped step is a step like the others: selected, its panel says why, the address keeps it.
    const skipped = page.locator('#x-steps a[data-outcome="skipped"]');
    const key = (await skipped.getAttribute('data-step'))!;
    expect(key).toMatch(/^skipped-\d+$/);
    await skipped.click();
    const panel = page.locator(`[data-step-detail="${key}"]`);
    await expect(panel.isVisible()).resolves.toBe(true);
    await expect(panel.textContent()).resolves.toContain('Skipped: branch main is not production.');
    await expect(skipped.getAttribute('aria-current')).resolves.toBe('true');
    await expect(page.locator('#x-graph-caption').textContent()).resolves.toContain('deploy was skipped');
    expect(new URL(page.url()).searchParams.get('step')).toBe(key);

    await stepLink('unit').click();
    await expect(panel.isHidden()).resolves.toBe(true);
    await expect(skipped.getAttribute('aria-current')).resolves.toBeNull();

    await page.goto(`${server.url}/executions/${name}?step=${key}`);
    await expect(page.locator(`[data-step-detail="${key}"]`).isVisible()).resolves.toBe(true);
    await page.close();
  }, 60_000);
});

/** Presses Tab until `selector` has the focus: proves it is reachable from the keyboard. */
async function tabTo(page: Page, selector: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    if (await page.locator(selector).evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${selector} cannot be reached with Tab`);
}
