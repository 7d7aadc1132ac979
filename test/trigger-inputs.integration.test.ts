/**
 * `step-runner trigger` against a local `step-runner serve`: a signed manual run through the
 * generic webhook, of the --source repository's pipeline at the head of the ref it names, whose
 * steps see the inputs as CI_INPUT_<NAME> and the event as manual; inputs the pipeline refuses
 * start nothing, refused by the server (422) or, with --pipeline, before anything is sent.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { run as serve } from '../lib/cli/commands/serve.js';
import { run as trigger } from '../lib/cli/commands/trigger.js';
import { waitFor } from './fixtures/wait-for.js';

const SECRET = 'trigger-test-secret-6d1f';
const PIPELINE = `version: 1
checkout: false
inputs:
  - name: target
    description: where to deploy
    required: true
    choices: [staging, production]
  - name: dry-run
    default: "true"
steps:
  - name: deploy
    image: alpine:3.20
    commands: ['echo "deploying to $CI_INPUT_TARGET dry-run=$CI_INPUT_DRY_RUN on $CI_EVENT at $CI_COMMIT_SHA"']
  - name: on-push
    image: alpine:3.20
    commands: [echo push]
    when: {event: push}
`;

let repo: string;
let head: string;
const out: string[] = [];
const err: string[] = [];
let stop = (_signal: string) => {};
let exited: Promise<number>;
let url: string;

beforeAll(async () => {
  repo = await mkdtemp(path.join(tmpdir(), 'trigger-'));
  const git = (...args: string[]) => promisify(execFile)('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', ...args], { cwd: repo });
  await git('init', '-q', '-b', 'main');
  await writeFile(path.join(repo, '.step-runner.yml'), PIPELINE);
  await git('add', '.');
  await git('commit', '-q', '-m', 'pipeline');
  head = (await git('rev-parse', 'HEAD')).stdout.trim();
  const stopSignal = new Promise<string>((resolve) => (stop = resolve));
  exited = serve(['--port', '0', '--pipeline', path.join(repo, '.step-runner.yml'), '--source', repo, '--secret', SECRET, '--runtime', 'process'], {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    stopSignal,
  });
  url = await waitFor(() => out.map((line) => /^Listening on (http:\/\/\S+)$/.exec(line)?.[1]).find(Boolean), { timeoutMs: 30_000, intervalMs: 50, what: `the server's address (printed: ${out.join('\n')} ${err.join('\n')})` });
}, 60_000);

afterAll(async () => {
  stop('SIGINT');
  expect(await exited).toBe(0);
  await rm(repo, { recursive: true, force: true });
});

async function triggered(...argv: string[]) {
  const lines: string[] = [];
  const code = await trigger(['--repository', 'acme/app', ...argv], { out: (line) => lines.push(line), err: (line) => lines.push(line), stopSignal: new Promise(() => {}) }, {
    STEP_RUNNER_URL: url,
    STEP_RUNNER_WEBHOOK_SECRET: SECRET,
  });
  return { code, lines };
}

const executions = async () => (await (await fetch(`${url}/executions`)).json()) as unknown[];

test('runs a build of the ref\'s head whose step prints the inputs, the defaults filled in, as a manual run', async () => {
  const { code, lines } = await triggered('--ref', 'main', '--input', 'target=production');
  expect({ code, lines }).toEqual({ code: 0, lines: [expect.stringMatching(/^Started \S+$/), expect.stringMatching(/^Watch it at http:\/\/\S+\/executions\/\S+$/)] });
  const page = lines[1]!.replace(/^Watch it at /, '');
  const ended = await waitFor(
    async () => {
      const execution = (await (await fetch(page)).json()) as { status: string; steps: { name: string; status: string; reason?: string }[] };
      return execution.status !== 'RUNNING' && execution;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: 'the triggered build to end' },
  );
  expect(ended.status).toBe('SUCCEEDED');
  expect(ended.steps.map((s) => [s.name, s.status, s.reason])).toEqual([
    ['deploy', 'succeeded', undefined],
    ['on-push', 'skipped', 'event manual is not push'],
  ]);
  expect(out).toContainEqual(expect.stringContaining(`deploying to production dry-run=true on manual at ${head}`));
}, 90_000);

test.each([
  ['a required input missing', [], 'input "target" is required (where to deploy), and no value was given'],
  ['a value outside its choices', ['--input', 'target=prod'], 'input "target": "prod" is not one of its choices ("staging", "production")'],
])('refuses %s: the server answers 422 naming it, and nothing starts', async (_what, inputs, message) => {
  const before = (await executions()).length;
  const { code, lines } = await triggered('--ref', 'main', ...inputs);
  expect(code).toBe(1);
  expect(lines.join('\n')).toContain('the deployment refused the build (422 InputsRejected)');
  expect(lines.join('\n')).toContain(message);
  expect((await executions()).length).toBe(before);
});

test('with --pipeline, refuses the inputs before sending anything (exit 2)', async () => {
  const before = (await executions()).length;
  const { code, lines } = await triggered('--ref', 'main', '--input', 'target=prod', '--pipeline', path.join(repo, '.step-runner.yml'));
  expect(code).toBe(2);
  expect(lines[0]).toContain('input "target": "prod" is not one of its choices');
  expect((await executions()).length).toBe(before);
});

test('refuses a ref the repository does not have: 422, nothing starts', async () => {
  const { code, lines } = await triggered('--ref', 'no-such-branch', '--input', 'target=staging');
  expect(code).toBe(1);
  expect(lines.join('\n')).toContain('(422 RefNotFound)');
});
