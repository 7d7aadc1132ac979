/**
 * Approval steps through the real definition on the local server (issue 40): a build stops at its
 * approval step with no pod of its own and nothing polled (the history shows no state between the
 * wait's start and its end), its task token kept where only the runner reads it; approved with the
 * CLI it goes on to the next step, and its check run's very next update (the build's
 * ReportDecision) names who approved, with their comment, and takes the buttons; rejected with the
 * route it ends ApprovalRejected with who and the comment in the Cause, which completes its check
 * run, the buttons gone; with nobody deciding it ends ApprovalTimedOut after its (one second)
 * timeout. Each step's result records the decision (steps[].approval). On GitHub (a push through
 * the server's App, against the GitHub stand-in that checks every check-run body against GitHub's
 * OpenAPI description): the check run shows the message, who may decide and the Approve and Reject
 * buttons while the step waits; GitHub's own `check_run` `requested_action` example, signed, from
 * someone not among the approvers is refused and the wait goes on; from a member of the listed team
 * it approves the step, which the check run says next, as for the CLI. Side by side (`needs`): a
 * step beside the approval runs on while it waits, and rejected, the step that needs it never
 * starts. And the README's example (examples/deploy.yml): test on a matrix while the image builds,
 * deploy to staging, wait for an approver (asked once staging is up), deploy to production
 * (waiting for it in a callback of its own, with no pod).
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { FAST_TIMINGS, startEmbeddedCluster, type EmbeddedCluster } from '../lib/emulators/kubernetes/index.js';
import { startLocalServer, type LocalServer } from '../lib/local/server/local-server.js';
import { approvalTokenName, APPROVAL_TOKEN_KEY } from '../lib/kube/index.js';
import { decide } from '../lib/cli/commands/decide.js';
import { deliverGeneric } from './fixtures/webhooks/generic-delivery.js';
import { branchPush, checkRun } from './fixtures/webhooks/examples.js';
import { startFakeGitHub, type FakeCheckRun, type FakeGitHub } from './fixtures/webhooks/github-server.js';
import { sign } from '@octokit/webhooks-methods';

const SECRET = 'approval-secret-7c2e';
const APP_ID = '515151';
const INSTALLATION = 24680;
const INSTALLATION_TOKEN = 'ghs_approvalInstallationToken0051';
// What GitHub deliveries build: the approval names who may decide.
const GITHUB_PIPELINE = `version: 1\ncheckout: false\nsteps:\n  - name: build\n    image: alpine:3.20\n    commands: ["echo built"]\n  - name: production\n    approval:\n      message: Deploy to production?\n      approvers: {users: [octocat], teams: [acme/release]}\n  - name: deploy\n    image: alpine:3.20\n    commands: ["echo deployed"]\n`;
const pipeline = (timeout: string) =>
  `version: 1\ncheckout: false\nsteps:\n  - name: build\n    image: alpine:3.20\n    commands: ["echo built"]\n  - name: production\n    approval: {message: Deploy to production?, timeout: ${timeout}}\n  - name: deploy\n    image: alpine:3.20\n    commands: ["echo deployed"]\n`;

interface Listed {
  status: string;
  buildId: string;
  error: string | null;
  cause: string | null;
  steps: { name: string; status: string; reason?: string; image: string | null; startedAt?: string | null; approval?: Record<string, unknown> }[];
  events: { type: string; state: string | null }[];
}

let cluster: EmbeddedCluster;
let server: LocalServer;
let scratch: string;
let api: CoreV1Api;
let github: FakeGitHub;
const printed: string[] = [];

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'approvals-'));
  cluster = await startEmbeddedCluster({ workspace: scratch, timings: FAST_TIMINGS });
  const kubeconfig = path.join(scratch, 'kubeconfig');
  await writeFile(kubeconfig, cluster.kubeconfigYaml());
  api = cluster.kubeConfig().makeApiClient(CoreV1Api);
  const pipelineFile = path.join(scratch, 'github.step-runner.yml');
  await writeFile(pipelineFile, GITHUB_PIPELINE);
  const key = path.join(scratch, 'app.pem');
  await writeFile(key, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  github = await startFakeGitHub();
  github.installations.set(INSTALLATION, { token: INSTALLATION_TOKEN });
  server = await startLocalServer({
    port: 0,
    secret: SECRET,
    kubeconfig,
    pipeline: pipelineFile,
    githubApp: { appId: APP_ID, privateKeyFile: key, apiUrl: github.url },
    overrides: { waitMs: 20, retryMs: 20 },
    print: (line) => printed.push(line),
  });
}, 30_000);

afterAll(async () => {
  await server?.close();
  await github?.close();
  await cluster?.stop();
  await rm(scratch, { recursive: true, force: true });
});

const deliver = (delivery: string, timeout: string) =>
  deliverGeneric(server.url, SECRET, delivery, { repository: 'team/app', commit: 'a1b2c3d4e5f6', ref: 'refs/heads/main', pipeline: pipeline(timeout) });

async function get(name: string): Promise<{ text: string; json: Listed }> {
  const text = await (await fetch(`${server.url}/executions/${name}`)).text();
  return { text, json: JSON.parse(text) as Listed };
}

/** Each change of the execution is an event of the server's registry: waits for the one that satisfies `done`. */
async function until(name: string, what: string, done: (execution: Listed) => boolean): Promise<Listed> {
  const reached = new Promise<void>((resolve) => {
    const stop = server.executions.subscribe((change) => {
      if (change.name === name && done(server.executions.get(name) as unknown as Listed)) {
        stop();
        resolve();
      }
    });
  });
  if (!done((await get(name)).json)) await reached;
  const execution = (await get(name)).json;
  if (!done(execution)) throw new Error(`${what}: not so once reached`);
  return execution;
}

/** The check run's update titled so, once the stand-in has it; undefined if the build ends without it (rather than waiting for ever). */
const updateTitled = (run: FakeCheckRun, title: string, name: string) =>
  Promise.race([github.checkRunBody((r, body) => r === run && (body.output as { title?: string } | undefined)?.title === title), until(name, 'the build to end', ended).then(() => undefined)]);
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const step = (execution: Listed, name: string) => execution.steps.find((s) => s.name === name)!;
const waiting = (execution: Listed) => step(execution, 'production')?.status === 'waiting';
const ended = (execution: Listed) => execution.status !== 'RUNNING';

async function buildPods(buildId: string): Promise<string[]> {
  const pods = await api.listNamespacedPod({ namespace: 'default', labelSelector: `step-runner.dev/build=${buildId}` });
  return pods.items.filter((p) => !p.metadata?.deletionTimestamp).map((p) => p.metadata!.name!);
}

/** The events between the approval's wait starting (its task's entry) and ending. */
function duringTheWait(execution: Listed): { type: string; state: string | null }[] {
  const from = execution.events.findIndex((e) => e.type === 'StateEntered' && e.state === 'AwaitApproval');
  const to = execution.events.findIndex((e, at) => at > from && e.state === 'AwaitApproval' && e.type !== 'StateEntered');
  return execution.events.slice(from + 1, to);
}

test('a build waits at its approval with no pod and nothing polled, its token out of sight; approved with the CLI, it goes on, its check run saying so at once', async () => {
  // Through the server's App, so that it has a check run.
  const started = await deliverGitHub('push', 'approval-push-cli-1', { ...branchPush(), installation: { id: INSTALLATION } });
  const name = String(started.json.executionName);
  const atTheWait = await until(name, 'the approval step to wait', waiting);
  const run = [...github.checkRuns.values()].find((r) => r.external_id?.endsWith(name))!;
  expect(run.actions).toHaveLength(2);
  const updatesBefore = run.bodies.length;
  expect(step(atTheWait, 'build').status).toBe('succeeded');
  expect(step(atTheWait, 'production')).toMatchObject({ status: 'waiting', reason: 'waiting for an approval: Deploy to production?', image: null });
  expect(step(atTheWait, 'production').approval).toBeUndefined();
  // The build's first step ended with its pod deleted; the approval has none.
  expect(await buildPods(atTheWait.buildId)).toEqual([]);

  // Kept in a Secret of the build, and in nothing a person reads.
  const secret = await api.readNamespacedSecret({ namespace: 'default', name: approvalTokenName(atTheWait.buildId, 'production') });
  const token = Buffer.from(secret.data![APPROVAL_TOKEN_KEY]!, 'base64').toString('utf8');
  expect(token.length).toBeGreaterThan(20);
  const page = await (await fetch(`${server.url}/executions/${name}`, { headers: { accept: 'text/html' } })).text();
  expect([(await get(name)).text.includes(token), page.includes(token)]).toEqual([false, false]);
  // The console page offers the decision, as the CLI makes it.
  expect(page).toContain(`data-action="approve" data-step="production" data-href="/executions/${name}/approve"`);
  expect(page).toContain(`data-action="reject" data-step="production"`);

  const out: string[] = [];
  const code = await decide('approve', [name, 'production', '--comment', 'ship it', '--server', server.url], { out: (l) => out.push(l), err: (l) => out.push(l), stopSignal: new Promise(() => {}) }, { GITHUB_WEBHOOK_SECRET: SECRET });
  expect([code, out]).toEqual([0, [`Approved step "production" of ${name}: ship it`]]);
  // The check run's very next update says who approved, with their comment, and takes the buttons
  // (none other waits), while the build goes on: not the next step's end.
  const by = userInfo().username;
  const decided = await updateTitled(run, `Step "production" approved by ${by}`, name);
  expect(decided?.index).toBe(updatesBefore);
  expect(decided?.body).toMatchObject({ status: 'in_progress', actions: [] });
  expect((decided?.body.output as { text: string }).text).toMatch(new RegExp(`^Step \`production\` was approved by @${escaped(by)} at \\d{4}-\\S+\\.\n\n> ship it$`));

  const done = await until(name, 'the build to end', ended);
  expect(done).toMatchObject({ status: 'SUCCEEDED', error: null });
  expect(done.steps.map((s) => [s.name, s.status])).toEqual([['build', 'succeeded'], ['production', 'succeeded'], ['deploy', 'succeeded']]);
  expect(step(done, 'production').approval).toEqual({ decision: 'approved', by: userInfo().username, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string, comment: 'ship it' });
  // Nothing ran while it waited: its task's own events, and the next state only once it was decided.
  expect(duringTheWait(done)).toEqual([]);
  // What `serve` prints: the wait, how to decide, and who did.
  expect(printed.filter((line) => line.includes('AwaitApproval')).map((line) => line.trim())).toEqual([
    '⏸ AwaitApproval: waiting for a person: step-runner approve (or reject) EXECUTION production [--comment TEXT]',
    `✓ AwaitApproval: approved by ${userInfo().username}: ship it`,
  ]);

  // Decided once: the same again is refused, as Step Functions refuses a closed task's token.
  const again = await fetch(`${server.url}/executions/${name}/approve`, { method: 'POST', body: '{"step": "production"}' });
  expect(again.status).toBe(409);
}, 60_000);

test('rejected through the route: the build ends ApprovalRejected with who and the comment, and the next step never runs; its check run says so, its buttons gone', async () => {
  const started = await deliverGitHub('push', 'approval-push-reject-1', { ...branchPush(), installation: { id: INSTALLATION } });
  const name = String(started.json.executionName);
  await until(name, 'the approval step to wait', waiting);
  const run = [...github.checkRuns.values()].find((r) => r.external_id?.endsWith(name))!;
  expect(run.actions).toHaveLength(2);
  // Not an approval step, or not one of the build: refused, and the wait goes on.
  const wrong = await fetch(`${server.url}/executions/${name}/reject`, { method: 'POST', body: '{"step": "build"}' });
  expect([wrong.status, ((await wrong.json()) as { error: string }).error]).toEqual([409, 'ApprovalNotWaiting']);

  const answer = await fetch(`${server.url}/executions/${name}/reject`, { method: 'POST', body: JSON.stringify({ step: 'production', comment: 'not on a Friday' }) });
  expect(answer.status).toBe(200);
  const done = await until(name, 'the build to end', ended);
  const by = userInfo().username;
  expect(done).toMatchObject({ status: 'FAILED', error: 'ApprovalRejected', cause: expect.stringMatching(new RegExp(`^Step "production" was rejected by ${by} at \\S+: not on a Friday$`)) as string });
  expect(done.steps.map((s) => [s.name, s.status])).toEqual([['build', 'succeeded'], ['production', 'failed'], ['deploy', 'not-run']]);
  expect(step(done, 'production').approval).toMatchObject({ decision: 'rejected', by, comment: 'not on a Friday' });
  // The build's end report (ReportFailed) completes the run with the Cause, and takes the buttons.
  expect(run).toMatchObject({ status: 'completed', conclusion: 'failure', actions: [] });
  expect(JSON.stringify(run.output)).toContain(`was rejected by ${by} at `);
}, 60_000);

test('through the signed generic webhook: a wrong step is refused and the wait goes on; then rejected in the name it gives', async () => {
  const name = await deliver('generic-approval-1', '1h');
  await until(name, 'the approval step to wait', waiting);
  const decide = async (approval: Record<string, unknown>, secret = SECRET) => {
    const body = JSON.stringify({ approval: { execution: name, by: 'release-bot', ...approval } });
    const response = await fetch(`${server.url}/webhook/generic`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature-256': await sign(secret, body) }, body });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
  expect(await decide({ step: 'production', decision: 'approve' }, 'not-the-secret')).toMatchObject({ status: 401 });
  expect(await decide({ step: 'build', decision: 'approve' })).toMatchObject({ status: 409, json: { error: 'ApprovalNotWaiting' } });
  expect(waiting((await get(name)).json)).toBe(true);
  expect(await decide({ step: 'production', decision: 'reject', comment: 'freeze' })).toEqual({ status: 200, json: { rejected: 'production', by: 'release-bot', executionName: name } });
  const done = await until(name, 'the build to end', ended);
  expect(done).toMatchObject({ status: 'FAILED', error: 'ApprovalRejected' });
  expect(step(done, 'production').approval).toMatchObject({ decision: 'rejected', by: 'release-bot', comment: 'freeze' });
}, 60_000);

test('nobody decides: ApprovalTimedOut once its timeout has passed', async () => {
  const name = await deliver('timeout-1', '1s');
  const done = await until(name, 'the build to end', ended);
  expect(done).toMatchObject({ status: 'FAILED', error: 'ApprovalTimedOut', cause: 'Nobody approved or rejected step "production" within its approval timeout (1 s).' });
  expect(step(done, 'production')).toMatchObject({ status: 'failed', approval: { decision: 'timed-out', by: null, comment: null } });
  expect(step(done, 'deploy').status).toBe('not-run');
  expect(duringTheWait(done).filter((e) => e.state !== 'ApprovalTimedOut')).toEqual([]);
}, 60_000);

/** A signed GitHub delivery to the server, as GitHub sends it. */
async function deliverGitHub(event: string, delivery: string, payload: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const body = JSON.stringify(payload);
  const response = await fetch(`${server.url}/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': delivery, 'x-hub-signature-256': await sign(SECRET, body) },
    body,
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

test("on GitHub: the check run's buttons; someone not among the approvers is refused and the wait goes on; a member of the listed team approves", async () => {
  const push = { ...branchPush(), installation: { id: INSTALLATION } };
  const repository = push.repository!.full_name;
  const started = await deliverGitHub('push', 'approval-push-0001', push);
  expect(started.status).toBe(202);
  const name = String(started.json.executionName);
  const atTheWait = await until(name, 'the approval step to wait', waiting);
  const [run] = [...github.checkRuns.values()].filter((r) => r.external_id?.endsWith(name));
  // While it waits: what it waits for, who may decide, and the two buttons naming the step's iteration.
  expect(run).toMatchObject({
    status: 'in_progress',
    output: { title: 'Waiting for an approval of step "production"', text: expect.stringContaining('Deploy to production?') },
    actions: [
      { label: 'Approve production', description: 'Let the build go on past production', identifier: 'approve:1' },
      { label: 'Reject production', description: 'Fail the build at production', identifier: 'reject:1' },
    ],
  });
  expect(run!.output.text).toContain('**Who may approve or reject:** @octocat, the team @acme/release.');
  const secret = await api.readNamespacedSecret({ namespace: 'default', name: approvalTokenName(atTheWait.buildId, 'production') });
  const token = Buffer.from(secret.data![APPROVAL_TOKEN_KEY]!, 'base64').toString('utf8');
  expect(JSON.stringify(run!.bodies)).not.toContain(token);

  // GitHub's requested_action example, for this check run of this App, clicked by `login`.
  const click = (identifier: string, login: string) => {
    const payload = checkRun('requested_action') as Record<string, unknown> & { check_run: Record<string, unknown> & { app: Record<string, unknown> }; sender: Record<string, unknown> };
    return {
      ...payload,
      check_run: { ...payload.check_run, id: run!.id, head_sha: run!.head_sha, external_id: run!.external_id, app: { ...payload.check_run.app, id: Number(APP_ID) }, output: { ...run!.output } },
      requested_action: { identifier },
      sender: { ...payload.sender, login },
      repository: push.repository,
      installation: { id: INSTALLATION },
    };
  };
  // Write access to the repository, but none of the approvers.
  github.roles.set(`${repository}:mallory`, 'write');
  const refused = await deliverGitHub('check_run', 'approval-click-0001', click('approve:1', 'mallory'));
  expect(refused).toEqual({ status: 403, json: { error: 'ApproverRefused', message: 'mallory is not among the approvers: the users octocat; the teams acme/release; step "production" still waits.' } });
  expect(run!.output.text).toContain('> **Refused:** mallory is not among the approvers');
  expect(run!.actions).toHaveLength(2);
  expect(waiting((await get(name)).json)).toBe(true);

  // A reader of the repository, in the listed team: asked of GitHub with the App's token.
  github.roles.set(`${repository}:hubot`, 'read');
  github.teams.set('acme/release', ['hubot']);
  const updatesBefore = run!.bodies.length;
  const approved = await deliverGitHub('check_run', 'approval-click-0002', click('approve:1', 'hubot'));
  expect(approved).toEqual({ status: 200, json: { approved: 'production', by: 'hubot', executionName: name } });
  // Said by the build (ReportDecision), as for any other way of deciding: the next update.
  const decided = await updateTitled(run!, 'Step "production" approved by hubot', name);
  expect(decided?.index).toBe(updatesBefore);
  expect(decided?.body).toMatchObject({ status: 'in_progress', actions: [], output: { text: expect.stringMatching(/^Step `production` was approved by @hubot at \d{4}-\S+\.$/) as string } });
  const done = await until(name, 'the build to end', ended);
  expect(done).toMatchObject({ status: 'SUCCEEDED', error: null });
  expect(step(done, 'production').approval).toEqual({ decision: 'approved', by: 'hubot', at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string, comment: null });
  expect(step(done, 'deploy').status).toBe('succeeded');
  const asked = github.requests.filter((r) => /\/collaborators\/|\/memberships\//.test(r.path)).map((r) => [r.path, r.headers.authorization]);
  expect(asked).toEqual([
    [`/repos/${repository}/collaborators/mallory/permission`, `Bearer ${INSTALLATION_TOKEN}`],
    ['/orgs/acme/teams/release/memberships/mallory', `Bearer ${INSTALLATION_TOKEN}`],
    [`/repos/${repository}/collaborators/hubot/permission`, `Bearer ${INSTALLATION_TOKEN}`],
    ['/orgs/acme/teams/release/memberships/hubot', `Bearer ${INSTALLATION_TOKEN}`],
  ]);
  // The buttons went with the decision; the build's end completed the run.
  expect(run).toMatchObject({ status: 'completed', conclusion: 'success', actions: [] });
  expect(github.refusedBodies).toEqual([]);
  // Every update while it waited named its buttons (the refusal's too), none left them to GitHub's guess.
  expect(github.actionsLeftOut).toEqual([]);
}, 60_000);

test('side by side: a step beside the approval runs on while it waits; rejected, the step that needs it never starts', async () => {
  const text =
    'version: 1\ncheckout: false\nsteps:\n  - name: build\n    needs: []\n    image: alpine:3.20\n    commands: ["echo built"]\n' +
    '  - name: approve\n    needs: [build]\n    approval: {message: Ship?}\n' +
    '  - name: production\n    needs: [approve]\n    image: alpine:3.20\n    commands: ["echo deployed"]\n' +
    '  - name: docs\n    needs: [build]\n    image: alpine:3.20\n    commands: ["echo docs"]\n';
  const name = await deliverGeneric(server.url, SECRET, 'side-by-side-reject-1', { repository: 'team/app', commit: 'a1b2c3d4e5f6', ref: 'refs/heads/main', pipeline: text });
  const beside = (execution: Listed) =>
    step(execution, 'approve')?.reason?.startsWith('waiting for an approval') === true && step(execution, 'docs')?.status === 'succeeded' && step(execution, 'production')?.status === 'waiting';
  const atTheGate = await until(name, 'the approval to wait, the step beside it done', beside);
  expect(atTheGate.status).toBe('RUNNING');
  const answer = await fetch(`${server.url}/executions/${name}/reject`, { method: 'POST', body: JSON.stringify({ step: 'approve', comment: 'not today' }) });
  expect(answer.status).toBe(200);
  const done = await until(name, 'the build to end', ended);
  expect(done).toMatchObject({ status: 'FAILED', error: 'ApprovalRejected' });
  // In the order they start: the step that awaits an approval last (step-plan.ts).
  expect(done.steps.map((s) => [s.name, s.status])).toEqual([
    ['build', 'succeeded'],
    ['approve', 'failed'],
    ['docs', 'succeeded'],
    ['production', 'not-run'],
  ]);
  // Not `aborted`: it never launched, its wait for the approval ended with the build.
  expect(step(done, 'production').startedAt).toBeNull();
}, 60_000);

test("the README's example: tests on a matrix, deploys to staging, waits for an approver, then deploys to production", async () => {
  const text = await readFile(new URL('../examples/deploy.yml', import.meta.url), 'utf8');
  const name = await deliverGeneric(server.url, SECRET, 'example-deploy-1', { repository: 'team/app', commit: 'a1b2c3d4e5f6', ref: 'refs/heads/main', pipeline: text });
  const gate = (execution: Listed) => step(execution, 'production-approval')?.reason?.startsWith('waiting for an approval') === true;
  const atTheGate = await until(name, 'the approval to wait', gate);
  expect(atTheGate.steps.map((s) => [s.name, s.status])).toEqual([
    ['test-node-20', 'succeeded'],
    ['test-node-22', 'succeeded'],
    ['build', 'succeeded'],
    ['staging', 'succeeded'],
    ['production-approval', 'waiting'],
    ['production', 'waiting'],
  ]);
  // Production waits in a callback of its own, with no pod: what is left are the needed steps'
  // succeeded pods, kept for the build's cleanup (FinishStep), none of them running.
  expect(step(atTheGate, 'production').reason).toBe('waiting for "production-approval" to be approved');
  const pods = await api.listNamespacedPod({ namespace: 'default', labelSelector: `step-runner.dev/build=${atTheGate.buildId}` });
  expect(new Set(pods.items.map((pod) => pod.status?.phase))).toEqual(new Set(['Succeeded']));
  const answer = await fetch(`${server.url}/executions/${name}/approve`, { method: 'POST', body: JSON.stringify({ step: 'production-approval', comment: 'staging looks good' }) });
  expect(answer.status).toBe(200);
  const done = await until(name, 'the build to end', ended);
  expect(done).toMatchObject({ status: 'SUCCEEDED', error: null });
  expect(done.steps.map((s) => [s.name, s.status])).toEqual([
    ['test-node-20', 'succeeded'],
    ['test-node-22', 'succeeded'],
    ['build', 'succeeded'],
    ['staging', 'succeeded'],
    ['production-approval', 'succeeded'],
    ['production', 'succeeded'],
  ]);
  expect(step(done, 'production-approval').approval).toMatchObject({ decision: 'approved', comment: 'staging looks good' });
}, 60_000);
