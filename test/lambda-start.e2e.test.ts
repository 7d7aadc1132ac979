/**
 * A deployed function starts only with its settings: each functions/ entry point is loaded in a
 * fresh Node process, with only the environment serverless.yml would give it (tsx stands in for
 * the bundle), so a missing setting is a failed start naming it, never a quiet local fallback.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What serverless.yml's provider environment gives every function, plus what Lambda sets. */
const PROVIDER_ENV = {
  AWS_REGION: 'eu-west-1',
  EKS_CLUSTER_NAME: 'ci',
  EKS_CLUSTER_ROLE_ARN: 'arn:aws:iam::123456789012:role/serverless-step-runner-dev-EksClusterRole-AbC',
  STEP_RUNNER_NAMESPACE: 'step-runner',
  STEP_LOGS_BUCKET: 'step-logs',
  STEP_LOGS_PREFIX: 'builds/',
};
/** serverless.yml's default: no GitHub App, only where its key would be. */
const NO_APP = { GITHUB_APP_ID: '', GITHUB_APP_PRIVATE_KEY_SECRET_ID: 'ci/github-app-key' };
const FUNCTION_ENV: Record<string, Record<string, string>> = {
  webhook: { STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:123456789012:stateMachine:build', GITHUB_WEBHOOK_SECRET_ID: 'ci/github-webhook', ...NO_APP },
  'report-status': { GITHUB_TOKEN_SECRET_ID: 'ci/github-token', ...NO_APP },
  'prepare-build': { GITHUB_TOKEN_SECRET_ID: 'ci/github-token', ...NO_APP },
  'launch-step': NO_APP,
  'cleanup-ended-execution': { GITHUB_TOKEN_SECRET_ID: 'ci/github-token', ...NO_APP },
  'cleanup-orphans': { ORPHAN_MARGIN_SECONDS: '600' },
};
/** The setting each of these cannot start without, beyond the provider's. */
const OWN_REQUIRED: Record<string, string> = { webhook: 'STATE_MACHINE_ARN', 'report-status': 'GITHUB_TOKEN_SECRET_ID' };
/** What talks to nothing (AwaitRerun only decides) needs no setting: it starts without the runner's. */
const NEEDS_NOTHING = new Set(['await-rerun']);

const entryPoints = readdirSync(new URL('../functions/', import.meta.url))
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.replace(/\.ts$/, ''))
  .sort();

type Start = { name: string; started: boolean; error?: string };

/** One process for every case: a process per start would cost seconds each. */
async function startAll(cases: { name: string; env: Record<string, string> }[]): Promise<Start[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'test/fixtures/start-functions.ts', JSON.stringify(cases)],
    // Nothing of this machine's AWS set-up: only what each case gives.
    { cwd: ROOT, env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: '', POWERTOOLS_LOG_LEVEL: 'SILENT', AWS_EC2_METADATA_DISABLED: 'true' }, timeout: 120_000 },
  );
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Start);
}

let withSettings: Start[];
let withoutRunnerSettings: Start[];
let withoutOwnSetting: Start[];

beforeAll(async () => {
  const starts = await startAll([
    ...entryPoints.map((name) => ({ name, env: { ...PROVIDER_ENV, ...FUNCTION_ENV[name] } })),
    ...entryPoints.filter((name) => !OWN_REQUIRED[name]).map((name) => ({ name, env: { AWS_REGION: 'eu-west-1', ...FUNCTION_ENV[name] } })),
    ...Object.keys(OWN_REQUIRED).map((name) => ({ name, env: PROVIDER_ENV })),
  ]);
  withSettings = starts.slice(0, entryPoints.length);
  withoutRunnerSettings = starts.slice(entryPoints.length, starts.length - Object.keys(OWN_REQUIRED).length);
  withoutOwnSetting = starts.slice(starts.length - Object.keys(OWN_REQUIRED).length);
}, 120_000);

describe('a deployed function', () => {
  it('exists for each of the thirteen functions of serverless.yml', () => {
    expect(entryPoints).toEqual(
      ['approval-waits', 'await-approval', 'await-rerun', 'cleanup-build', 'cleanup-ended-execution', 'cleanup-orphans', 'finish-step', 'launch-step', 'poll-step', 'prepare-build', 'report-status', 'wait-for-needs', 'webhook'],
    );
  });

  it('starts with the settings serverless.yml gives it', () => {
    expect(withSettings).toEqual(entryPoints.map((name) => ({ name, started: true })));
  });

  it('refuses to start without the cluster, the namespace and the log bucket, naming each', () => {
    expect(withoutRunnerSettings.map((s) => s.name)).toEqual(entryPoints.filter((name) => !OWN_REQUIRED[name]));
    for (const start of withoutRunnerSettings) {
      if (NEEDS_NOTHING.has(start.name)) {
        expect(start).toEqual({ name: start.name, started: true });
        continue;
      }
      expect(start).toMatchObject({ started: false, error: expect.stringMatching(/^DeploymentSettingsError: This function cannot start/) });
      for (const setting of ['EKS_CLUSTER_NAME', 'STEP_RUNNER_NAMESPACE', 'STEP_LOGS_BUCKET']) expect(start.error).toContain(`${setting} is not set`);
    }
  });

  it('refuses to start the webhook without its state machine, and ReportStatus without its token', () => {
    expect(withoutOwnSetting).toEqual(
      Object.entries(OWN_REQUIRED).map(([name, setting]) => ({ name, started: false, error: expect.stringContaining(`${setting} is not set`) })),
    );
  });
});
