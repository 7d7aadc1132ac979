/**
 * The console page of a build whose steps run side by side, in Chromium: the steps that need the
 * same steps are drawn next to each other (same row, different columns), in the step list and in
 * the pipeline view shown first (the state machine a click away), and a skipped step is selected
 * like the others, by click and by address, its panel saying why it was skipped.
 */
import type { Browser } from 'playwright-core';
import { FAST_TIMINGS } from '../lib/emulators/kubernetes/index.js';
import { startLocalServer, type LocalServer } from '../lib/local/server/local-server.js';
import { ARTIFACTS, chromiumInstalled, launchChromium } from './fixtures/chromium.js';
import { describeRequiring } from './fixtures/requirements.js';
import { waitFor } from './fixtures/wait-for.js';
import { deliverGeneric } from './fixtures/webhooks/generic-delivery.js';

const SECRET = 'console-parallel-secret-3b9a';

const step = (name: string, commands: string, extra = '') => `  - name: ${name}\n    image: alpine:3.20\n    commands: [${commands}]\n${extra}`;
const PIPELINE =
  'checkout: false\nversion: 1\nsteps:\n' +
  step('deps', 'echo deps') +
  step('unit', 'sleep 1, echo unit', '    needs: [deps]\n') +
  step('lint', 'sleep 1, echo lint', '    needs: [deps]\n') +
  step('deploy', 'echo deploy', '    needs: [unit, lint]\n    when: {branch: production}\n') +
  step('e2e', 'echo e2e', '    needs: [unit, lint]\n');

let server: LocalServer;
let browser: Browser;

describeRequiring('the console page of steps side by side, in Chromium', chromiumInstalled, () => {
  beforeAll(async () => {
    server = await startLocalServer({ port: 0, secret: SECRET, timings: FAST_TIMINGS, overrides: { waitMs: 20, retryMs: 20 } });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('draws unit and lint side by side between deps and e2e, and selects the skipped deploy to show why', async () => {
    const name = await deliverGeneric(server.url, SECRET, 'diamond-1', { repository: 'team/app', commit: 'd1a3011dc0ffee', ref: 'refs/heads/main', pipeline: PIPELINE });
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
