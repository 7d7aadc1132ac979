/**
 * `osls package` as a user runs it before deploying: offline, with no AWS credentials. Asserts on
 * the CloudFormation template it writes: what gets deployed, who may do what, and that the state
 * machine is the very definition the local runner and the tests execute.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import YAML from 'yaml';
import { WEBHOOK_GITHUB_CALL_MS } from '../lib/lambda/webhook.js';
import { localLambdaArn as localArn } from '../lib/emulators/stepfunctions/executor.js';
import { LAMBDA_WAIT_FOR_TASK_TOKEN, loadDefinition, resolveResources, taskStates, type AslDefinition } from '../lib/workflow/definition.js';
import { CFN_LINT_ON_PATH, cfnLint, describeFinding } from './fixtures/cfn-lint.js';
import { itRequiring } from './fixtures/requirements.js';
import { roleBindings } from './fixtures/rbac-permissions.js';
import { emfDocument } from '../lib/lambda/emf-metrics.js';
import { deploymentPrices } from '../lib/lambda/settings.js';
import { buildMetricRecord, stepMetricRecord } from '../lib/workflow/metric-records.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORK_FOLDER = `.esbuild/package-test-${process.pid}`;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Resource = { Type: string; Condition?: string; DeletionPolicy?: string; Properties: Record<string, Json> };
interface Template {
  Resources: Record<string, Resource>;
  Conditions?: Record<string, Json>;
}

const IDENTITIES_FILE = 'test/fixtures/deploy/identities.yml';
const SCHEDULES_FILE = 'test/fixtures/deploy/schedules.yml';
const COST_PRICES = JSON.stringify({ region: 'eu-west-1', asOf: '2026-12-01', instanceTypes: { 'm7g.large': { hourly: 0.0892, vcpu: 2, memoryGib: 8 } } });

let outDir: string;
let template: Template;
let packageLog: string;

beforeAll(async () => {
  outDir = await mkdtemp(path.join(tmpdir(), 'package-test-'));
  // No credentials, no profile, no region from the environment: packaging must need none.
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));
  Object.assign(env, {
    AWS_CONFIG_FILE: path.join(outDir, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: path.join(outDir, 'no-aws-credentials'),
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
    STEP_RUNNER_ESBUILD_WORK_FOLDER: WORK_FOLDER,
    // serverless-esbuild bundles the 13 functions at once in one esbuild process (Go): about 28
    // CPU-seconds, none of which the suite's CPU profile sees (the process outlives osls, and no
    // one reaps it). GOGC=400 lets its heap grow by four times its live size before a collection
    // instead of once (https://pkg.go.dev/runtime, "Environment Variables"): the same bundles for
    // 7 CPU-seconds less, at about the same peak (5.7-6.2 GB for the whole run either way).
    GOGC: '400',
  });
  const osls = path.join(ROOT, 'node_modules/osls/bin/serverless.js');
  // With the identities and schedules a deployer writes (docs/deploy.md, "Identities"; README,
  // "Schedules"), so the one run checks them too.
  // And a price table of the deployment's own, which both functions that price must be given.
  const settings = ['--param', `identitiesFile=${IDENTITIES_FILE}`, '--param', `schedulesFile=${SCHEDULES_FILE}`, '--param', `costPrices=${COST_PRICES}`];
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [osls, 'package', '--package', outDir, ...settings], {
    cwd: ROOT,
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
  packageLog = `${stdout}\n${stderr}`;
  template = JSON.parse(await readFile(path.join(outDir, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;
}, 240_000);

afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
  await rm(path.join(ROOT, WORK_FOLDER), { recursive: true, force: true });
  // The shared work folder goes too, once no other packaging run is using it.
  await rmdir(path.join(ROOT, '.esbuild')).catch(() => undefined);
});

// --- reading the template ---------------------------------------------------------------------

const FAKE = { 'AWS::Partition': 'aws', 'AWS::Region': 'us-east-1', 'AWS::AccountId': '000000000000' } as Record<string, string>;

/**
 * A CloudFormation value as a string, the intrinsics replaced by readable stand-ins: pseudo
 * parameters by fixed values, `Ref X` by `ref:X`, `GetAtt X.Arn` by `arn-of:X`.
 */
function render(value: Json): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    if ('Ref' in value) return FAKE[value.Ref as string] ?? `ref:${value.Ref as string}`;
    if ('Fn::GetAtt' in value) {
      const [id, attribute] = value['Fn::GetAtt'] as string[];
      return attribute === 'Arn' ? `arn-of:${id}` : `${attribute}-of:${id}`;
    }
    if ('Fn::Join' in value) {
      const [separator, parts] = value['Fn::Join'] as [string, Json[]];
      return parts.map(render).join(separator);
    }
    if ('Fn::Sub' in value) {
      const sub = value['Fn::Sub'];
      const [text, params] = (Array.isArray(sub) ? sub : [sub, {}]) as [string, Record<string, Json>];
      return text.replace(/\$\{([^}]+)\}/g, (whole, name: string) =>
        name in params ? render(params[name]!) : (FAKE[name] ?? whole),
      );
    }
  }
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}

const resourcesOfType = (type: string) => Object.entries(template.Resources).filter(([, r]) => r.Type === type);
const asList = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

interface Statement {
  role: string;
  actions: string[];
  resources: string[];
  condition?: Json;
}

function statements(): Statement[] {
  return resourcesOfType('AWS::IAM::Role').flatMap(([role, resource]) =>
    ((resource.Properties.Policies ?? []) as { PolicyDocument: { Statement: Record<string, Json>[] } }[]).flatMap((policy) =>
      policy.PolicyDocument.Statement.map((statement) => {
        expect({ role, effect: statement.Effect }).toEqual({ role, effect: 'Allow' });
        return {
          role,
          actions: asList(statement.Action as string | string[]),
          resources: asList(statement.Resource as Json).map(render),
          condition: statement.Condition,
        };
      }),
    ),
  );
}

const grants = (action: string) => statements().filter((s) => s.actions.includes(action));

/** The role a function runs with (its `role:` in serverless.yml). */
function roleOf(functionId: string): string {
  const role = template.Resources[functionId]!.Properties.Role as { 'Fn::GetAtt': string[] };
  return role['Fn::GetAtt'][0]!;
}

/** The file names inside a zip, from its central directory (no unzip tool needed). */
function zipEntries(zip: Buffer): string[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    names.push(zip.subarray(offset + 46, offset + 46 + nameLength).toString('utf8'));
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return names.sort();
}

// --- what is deployed -------------------------------------------------------------------------

const HANDLERS: Record<string, string> = {
  WebhookLambdaFunction: 'functions/webhook.handler',
  ReportStatusLambdaFunction: 'functions/report-status.handler',
  PrepareBuildLambdaFunction: 'functions/prepare-build.handler',
  LaunchStepLambdaFunction: 'functions/launch-step.handler',
  PollStepLambdaFunction: 'functions/poll-step.handler',
  WaitForNeedsLambdaFunction: 'functions/wait-for-needs.handler',
  FinishStepLambdaFunction: 'functions/finish-step.handler',
  CleanupBuildLambdaFunction: 'functions/cleanup-build.handler',
  CleanupEndedExecutionLambdaFunction: 'functions/cleanup-ended-execution.handler',
  CleanupOrphansLambdaFunction: 'functions/cleanup-orphans.handler',
  AwaitRerunLambdaFunction: 'functions/await-rerun.handler',
  AwaitApprovalLambdaFunction: 'functions/await-approval.handler',
  ApprovalWaitsLambdaFunction: 'functions/approval-waits.handler',
};

/**
 * The one grant on Resource "*" the template may hold: CloudWatch Logs' vended-log delivery
 * actions, which take no resource ARN (AWS, "Using CloudWatch Logs to log execution history in
 * Step Functions"). serverless-step-functions gives them to the state machine's role for its
 * `loggingConfig`; exactly these actions, for that role only.
 */
const LOG_DELIVERY_ON_ANY_RESOURCE: Statement = {
  role: 'BuildStateMachineRole',
  actions: [
    'logs:CreateLogDelivery',
    'logs:GetLogDelivery',
    'logs:UpdateLogDelivery',
    'logs:DeleteLogDelivery',
    'logs:ListLogDeliveries',
    'logs:PutResourcePolicy',
    'logs:DescribeResourcePolicies',
    'logs:DescribeLogGroups',
  ],
  resources: ['*'],
};

describe('osls package', () => {
  it('packages offline, and asl-validator checks the definition while it does', () => {
    expect(packageLog).toMatch(/State machine "build" definition is valid/);
  });

  it('deploys every function on nodejs22.x / arm64, each zip holding only its own minified ESM bundle and source map', async () => {
    const functions = resourcesOfType('AWS::Lambda::Function');
    expect(Object.fromEntries(functions.map(([id, f]) => [id, f.Properties.Handler]))).toEqual(HANDLERS);
    for (const [id, fn] of functions) {
      expect({ id, runtime: fn.Properties.Runtime, architectures: fn.Properties.Architectures }).toEqual({
        id,
        runtime: 'nodejs22.x',
        architectures: ['arm64'],
      });
      const zipName = path.basename(render((fn.Properties.Code as { S3Key: Json }).S3Key));
      const file = (fn.Properties.Handler as string).replace(/\.handler$/, '');
      const zip = await readFile(path.join(outDir, zipName));
      expect(zipEntries(zip)).toEqual([`${file}.mjs`, `${file}.mjs.map`]);
    }
    const zips = (await readdir(outDir)).filter((name) => name.endsWith('.zip'));
    expect(zips).toHaveLength(functions.length);
  });

  it('routes POST /webhook and POST /webhook/generic of an HTTP API to the webhook function', () => {
    const integrations = Object.fromEntries(
      resourcesOfType('AWS::ApiGatewayV2::Integration').map(([id, r]) => [id, render(r.Properties.IntegrationUri!)]),
    );
    const routes = resourcesOfType('AWS::ApiGatewayV2::Route').map(([, r]) => {
      const integration = render(r.Properties.Target!).replace(/^integrations\/ref:/, '');
      return [r.Properties.RouteKey, integrations[integration]];
    });
    expect(routes.sort()).toEqual([
      ['POST /webhook', 'arn-of:WebhookLambdaFunction'],
      ['POST /webhook/generic', 'arn-of:WebhookLambdaFunction'],
    ]);
    const webhookEnv = (template.Resources.WebhookLambdaFunction!.Properties.Environment as { Variables: Record<string, Json> }).Variables;
    expect({
      STATE_MACHINE_ARN: render(webhookEnv.STATE_MACHINE_ARN!),
      GITHUB_WEBHOOK_SECRET_ID: webhookEnv.GITHUB_WEBHOOK_SECRET_ID,
      GENERIC_WEBHOOK_SECRET_ID: webhookEnv.GENERIC_WEBHOOK_SECRET_ID,
      GITHUB_TOKEN_SECRET_ID: webhookEnv.GITHUB_TOKEN_SECRET_ID,
    }).toEqual({
      STATE_MACHINE_ARN: 'ref:BuildStateMachine',
      GITHUB_WEBHOOK_SECRET_ID: 'step-runner/github-webhook-secret',
      GENERIC_WEBHOOK_SECRET_ID: 'step-runner/generic-webhook-secret',
      GITHUB_TOKEN_SECRET_ID: 'step-runner/github-token',
    });
  });

  it("gives the webhook time for its GitHub calls' own limits, inside GitHub's 10 s per delivery", () => {
    const timeout = template.Resources.WebhookLambdaFunction!.Properties.Timeout as number;
    const calls = WEBHOOK_GITHUB_CALL_MS.installationToken + WEBHOOK_GITHUB_CALL_MS.pipelineFile;
    // What is left is for the secrets, the signature and StartExecution.
    expect(timeout * 1000).toBeLessThanOrEqual(10_000);
    expect(calls).toBeLessThanOrEqual(timeout * 1000 - 3_000);
  });

  it('tells the functions that talk to GitHub where the GitHub App is, and configures no App by default', () => {
    for (const id of ['WebhookLambdaFunction', 'ReportStatusLambdaFunction', 'PrepareBuildLambdaFunction', 'LaunchStepLambdaFunction', 'CleanupEndedExecutionLambdaFunction']) {
      const env = (template.Resources[id]!.Properties.Environment as { Variables: Record<string, Json> }).Variables;
      expect({ id, GITHUB_APP_ID: env.GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY_SECRET_ID: env.GITHUB_APP_PRIVATE_KEY_SECRET_ID }).toEqual({
        id,
        GITHUB_APP_ID: '',
        GITHUB_APP_PRIVATE_KEY_SECRET_ID: 'step-runner/github-app-private-key',
      });
    }
  });

  it('deploys the definition of lib/workflow/state-machine.asl.yml, only the Lambda ARNs resolved', () => {
    const machines = resourcesOfType('AWS::StepFunctions::StateMachine');
    expect(machines.map(([id]) => id)).toEqual(['BuildStateMachine']);
    const deployed = JSON.parse(render(machines[0]![1].Properties.DefinitionString!)) as AslDefinition;
    const byFunctionName = Object.fromEntries(
      resourcesOfType('AWS::Lambda::Function').map(([id, f]) => [f.Properties.FunctionName as string, id]),
    );
    // GetAtt [X, Arn] rendered as arn-of:X; a plugin version that inlines a static ARN names the
    // function instead. Either way, map it to the ARN the local executor gives X.
    const arnToLocal = (resource: string) =>
      resource.startsWith('arn-of:')
        ? localArn(resource.slice('arn-of:'.length))
        : localArn(byFunctionName[resource.replace(/^.*:function:/, '')] ?? resource);
    expect(normalise(deployed, arnToLocal)).toEqual(resolveResources(loadDefinition(), localArn));
  });

  it('keeps step logs in a bucket that expires them and the parts of uploads never completed, refuses requests without TLS, and outlives the stack', () => {
    const bucket = template.Resources.StepLogsBucket!;
    expect(bucket.Properties.LifecycleConfiguration).toMatchObject({
      Rules: [
        { Status: 'Enabled', Prefix: 'builds/', ExpirationInDays: 30 },
        // The cache's entries after cacheExpiryDays; each artifact class after its own days.
        { Id: 'ExpireCache', Status: 'Enabled', Prefix: 'cache/', ExpirationInDays: 7 },
        // A concurrency group's record names a build that ended within 24 h.
        { Id: 'ExpireConcurrencyRecords', Status: 'Enabled', Prefix: 'concurrency/', ExpirationInDays: 2 },
        ...[1, 7, 30, 90, 365].map((days) => ({ Id: `ExpireArtifacts${days}d`, Status: 'Enabled', Prefix: `artifacts/${days}d/`, ExpirationInDays: days })),
        { Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } },
      ],
    });
    // No rule without a prefix: one would expire the other prefixes' objects on its own schedule.
    const rules = (bucket.Properties.LifecycleConfiguration as { Rules: { Prefix?: string; ExpirationInDays?: number }[] }).Rules;
    expect(rules.filter((rule) => rule.ExpirationInDays !== undefined && rule.Prefix === undefined)).toEqual([]);
    expect(bucket.DeletionPolicy).toBe('Retain');
    const policy = resourcesOfType('AWS::S3::BucketPolicy').find(([, p]) => render(p.Properties.Bucket!) === 'ref:StepLogsBucket')?.[1].Properties;
    expect((policy?.PolicyDocument as { Statement: Json[] } | undefined)?.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  it('reserves concurrency for the webhook, and caps the functions that hold watches, as the params say by default', () => {
    const reserved = resourcesOfType('AWS::Lambda::Function')
      .filter(([, fn]) => fn.Properties.ReservedConcurrentExecutions !== undefined)
      .map(([id, fn]) => [id, fn.Properties.ReservedConcurrentExecutions]);
    expect(Object.fromEntries(reserved)).toEqual({ WebhookLambdaFunction: 20, PollStepLambdaFunction: 300, WaitForNeedsLambdaFunction: 150 });
  });

  itRequiring('passes cfn-lint without an error (its warnings printed, not failed)', CFN_LINT_ON_PATH, async () => {
    const templates = ['cloudformation-template-update-stack.json', 'cloudformation-template-create-stack.json'].map((name) => path.join(outDir, name));
    const findings = await cfnLint(templates);
    const others = findings.filter((f) => f.level !== 'Error');
    if (others.length > 0) console.warn(`cfn-lint, ${others.length} not failing the test:\n${others.map(describeFinding).join('\n')}`);
    expect(findings.filter((f) => f.level === 'Error').map(describeFinding)).toEqual([]);
  });

  it('ships a CloudWatch dashboard drawing only metrics the functions write, under the dimensions and in the namespace they write them to', () => {
    const dashboards = resourcesOfType('AWS::CloudWatch::Dashboard');
    expect(dashboards.map(([id]) => id)).toEqual(['MetricsDashboard']);
    const body = JSON.parse(render(dashboards[0]![1].Properties.DashboardBody!)) as { widgets: { properties: { region: string; metrics: { expression: string; label?: string }[][] } }[] };
    const searches = body.widgets.flatMap((w) => w.properties.metrics.flat()).flatMap((m) => [...m.expression.matchAll(/SEARCH\('\{"([^"]+)",([^}]+)\} MetricName="([^"]+)"'/g)]);
    const drawn = new Set(searches.map(([, , dimensions, metric]) => `${metric} by ${dimensions}`));
    // What the functions write: the EMF documents of a step and of a failed build with a cost, every metric present.
    const timings = { created: '2026-03-14T10:00:00Z', scheduled: '2026-03-14T10:00:40Z', started: '2026-03-14T10:00:50Z', finished: '2026-03-14T10:02:50Z', pullSeconds: 7 };
    const build = { id: 'b-42', repository: 'octo-org/app' };
    const endedAt = new Date('2026-03-14T10:03:00Z');
    const records = [
      stepMetricRecord({ build, step: 'test', status: 'failed', error: 'StepFailed', launchedAt: timings.created, timings, endedAt }),
      buildMetricRecord({ build, status: 'failed', error: 'StepFailed', startedAt: timings.created, endedAt, steps: [{ timings }], cost: { usd: 0.01 } }),
    ];
    const written = new Set(
      records.flatMap((record) => emfDocument({ ...record, timestamp: new Date() })._aws.CloudWatchMetrics.flatMap((d) => d.Dimensions.flatMap((set) => d.Metrics.map((m) => `${m.Name} by ${set.join(',')}`)))),
    );
    expect([...drawn].filter((line) => !written.has(line))).toEqual([]);
    expect([...drawn]).toEqual(expect.arrayContaining(['StepQueueTime by Repository', 'BuildDuration by Repository', 'BuildFailure by Repository', 'BuildFailure by Repository,Error']));
    // The namespace the functions write to (Powertools' setting), which every search reads.
    const namespaces = resourcesOfType('AWS::Lambda::Function').map(([, fn]) => (fn.Properties.Environment as { Variables: Record<string, Json> }).Variables.POWERTOOLS_METRICS_NAMESPACE);
    expect(new Set(namespaces)).toEqual(new Set(['StepRunner/dev']));
    expect(new Set(searches.map(([, namespace]) => namespace))).toEqual(new Set(['StepRunner/dev']));
    expect(new Set(body.widgets.map((w) => w.properties.region))).toEqual(new Set([FAKE['AWS::Region']]));
    // One line per repository: each drawn line's label is CloudWatch's dynamic label of the dimension, kept whole through the template.
    const labels = body.widgets.flatMap((w) => w.properties.metrics.flat()).flatMap((m) => (m.label === undefined ? [] : [m.label]));
    expect(labels.filter((label) => !label.startsWith("${PROP('Dim.Repository')}"))).toEqual([]);
  });

  it('keeps every log group, the functions\', the HTTP API access log and the state machine\'s, for the retention the params say', () => {
    const groups = resourcesOfType('AWS::Logs::LogGroup').map(([id, g]) => [id, g.Properties.RetentionInDays]);
    expect(groups.length).toBeGreaterThanOrEqual(11);
    expect(groups.filter(([, days]) => days !== 30)).toEqual([]);
    const stage = resourcesOfType('AWS::ApiGatewayV2::Stage')[0]![1].Properties;
    expect(render((stage.AccessLogSettings as { DestinationArn: Json }).DestinationArn)).toBe('arn-of:HttpApiLogGroup');
  });

  it("logs the state machine's errors, with their Error and Cause, to a log group of its own under /aws/vendedlogs/states/", () => {
    const logging = template.Resources.BuildStateMachine!.Properties.LoggingConfiguration as {
      Level: string;
      IncludeExecutionData: boolean;
      Destinations: { CloudWatchLogsLogGroup: { LogGroupArn: Json } }[];
    };
    expect(['ERROR', 'ALL']).toContain(logging.Level);
    expect({
      includeExecutionData: logging.IncludeExecutionData,
      destinations: logging.Destinations.map((d) => render(d.CloudWatchLogsLogGroup.LogGroupArn)),
    }).toEqual({ includeExecutionData: true, destinations: ['arn-of:BuildStateMachineLogGroup'] });
    const group = template.Resources.BuildStateMachineLogGroup!;
    expect(group.Type).toBe('AWS::Logs::LogGroup');
    // params.logRetentionDays, the same as the functions' log groups.
    expect(group.Properties).toEqual({ LogGroupName: '/aws/vendedlogs/states/serverless-step-runner-dev-build', RetentionInDays: 30 });
    expect(group.Properties.RetentionInDays).toBe(template.Resources.PrepareBuildLogGroup!.Properties.RetentionInDays);
  });

  it('cleans up after an execution of this state machine that ended outside it (aborted, timed out, failed), and sweeps orphans every 15 minutes', () => {
    const rules = resourcesOfType('AWS::Events::Rule').map(([, r]) => r.Properties);
    const ended = rules.filter((r) => r.EventPattern);
    expect(ended).toHaveLength(1);
    const pattern = ended[0]!.EventPattern as { detail: { stateMachineArn: Json[] } } & Record<string, Json>;
    expect({ ...pattern, detail: { ...pattern.detail, stateMachineArn: pattern.detail.stateMachineArn.map(render) } }).toEqual({
      source: ['aws.states'],
      'detail-type': ['Step Functions Execution Status Change'],
      detail: { status: ['ABORTED', 'TIMED_OUT', 'FAILED'], stateMachineArn: ['ref:BuildStateMachine'] },
    });
    expect((ended[0]!.Targets as { Arn: Json }[]).map((t) => render(t.Arn))).toEqual(['arn-of:CleanupEndedExecutionLambdaFunction']);
    // Named by lib/deploy/resource-names.cjs, which keeps a long stage's within 64 characters.
    expect(ended[0]!.Name).toBe('serverless-step-runner-dev-execution-ended');

    const scheduled = rules.filter((r) => r.ScheduleExpression);
    expect(scheduled.map((r) => [r.ScheduleExpression, (r.Targets as { Arn: Json }[]).map((t) => render(t.Arn))])).toEqual([
      ['rate(15 minutes)', ['arn-of:CleanupOrphansLambdaFunction']],
    ]);
    expect(resourcesOfType('AWS::Lambda::Permission').map(([, p]) => render(p.Properties.FunctionName!)).sort()).toEqual(
      expect.arrayContaining(['arn-of:CleanupEndedExecutionLambdaFunction', 'arn-of:CleanupOrphansLambdaFunction']),
    );
  });
});

// --- who may do what ------------------------------------------------------------------------

const ACCOUNT = 'arn:aws:%s:us-east-1:000000000000';
const logGroup = (...functions: string[]) => ({
  actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
  resources: functions.map((fn) => `${ACCOUNT.replace('%s', 'logs')}:log-group:/aws/lambda/serverless-step-runner-dev-${fn}:*`),
});
const secret = (name: string) => `${ACCOUNT.replace('%s', 'secretsmanager')}:secret:${name}-??????`;
const TOKEN = secret('step-runner/github-token');
const APP_KEY = secret('step-runner/github-app-private-key');
const objects = (actions: string[], ...paths: string[]) => ({ actions, resources: paths.map((p) => `arn-of:StepLogsBucket/${p}`) });
/** A listing must name a prefix, and one of these: `StringLike`, never `...IfExists`, which a listing of the whole bucket satisfies. */
const listing = (...prefixes: string[]) => ({ actions: ['s3:ListBucket'], resources: ['arn-of:StepLogsBucket'], condition: { StringLike: { 's3:prefix': prefixes } } });
const ASSUME_CLUSTER_ROLE = { actions: ['sts:AssumeRole'], resources: ['arn-of:EksClusterRole'] };

/** Each function's role, and the roles that several functions share because they need the same. */
const FUNCTION_ROLES: Record<string, string> = {
  WebhookLambdaFunction: 'WebhookRole',
  ReportStatusLambdaFunction: 'ReportStatusRole',
  PrepareBuildLambdaFunction: 'PrepareBuildRole',
  LaunchStepLambdaFunction: 'LaunchStepRole',
  PollStepLambdaFunction: 'PollStepRole',
  WaitForNeedsLambdaFunction: 'ClusterOnlyRole',
  FinishStepLambdaFunction: 'FinishStepRole',
  CleanupBuildLambdaFunction: 'ClusterOnlyRole',
  CleanupEndedExecutionLambdaFunction: 'CleanupEndedExecutionRole',
  CleanupOrphansLambdaFunction: 'ClusterOnlyRole',
  AwaitApprovalLambdaFunction: 'ClusterOnlyRole',
  // The cluster, and the answer to the steps waiting for an approval given.
  ApprovalWaitsLambdaFunction: 'ApprovalWaitsRole',
  // It calls nothing: only its log group.
  AwaitRerunLambdaFunction: 'LogsOnlyRole',
};

/**
 * Every statement of every role the stack defines for its functions, in order: what each
 * function's code calls (lib/lambda, lib/workflow/tasks), on the resources it calls it on, and
 * nothing else. A permission added to serverless.yml fails this until it is listed here.
 */
const ROLE_GRANTS: Record<string, Omit<Statement, 'role'>[]> = {
  WebhookRole: [
    logGroup('webhook'),
    { actions: ['states:StartExecution'], resources: ['ref:BuildStateMachine'] },
    // A check run's Approve or Reject: the waiting approval in the execution's history, its task answered.
    { actions: ['states:GetExecutionHistory'], resources: [`${ACCOUNT.replace('%s', 'states')}:execution:serverless-step-runner-dev-build:*`] },
    { actions: ['states:SendTaskSuccess', 'states:SendTaskFailure'], resources: ['ref:BuildStateMachine'] },
    { actions: ['secretsmanager:GetSecretValue'], resources: [secret('step-runner/github-webhook-secret'), secret('step-runner/generic-webhook-secret'), TOKEN, APP_KEY] },
  ],
  // Commit statuses and check runs; a check run's summary reads how each step ended (builds/BUILD/STEP.result.json), and its cost its own execution's history.
  // And the headers of the OTLP endpoint its traces go to (docs/traces.md).
  ReportStatusRole: [
    logGroup('reportStatus'),
    { actions: ['states:GetExecutionHistory'], resources: [`${ACCOUNT.replace('%s', 'states')}:execution:serverless-step-runner-dev-build:*`] },
    objects(['s3:GetObject'], 'builds/*'),
    listing('builds/*'),
    { actions: ['secretsmanager:GetSecretValue'], resources: [TOKEN, APP_KEY, secret('step-runner/otlp-headers')] },
  ],
  // The clone's token, the image check, superseding (its group's record, StopExecution).
  PrepareBuildRole: [
    logGroup('prepareBuild'),
    ASSUME_CLUSTER_ROLE,
    { actions: ['secretsmanager:GetSecretValue'], resources: [TOKEN, APP_KEY] },
    { actions: ['ecr:DescribeImages'], resources: ['arn:aws:ecr:*:000000000000:repository/*'] },
    objects(['s3:GetObject', 's3:PutObject'], 'concurrency/*'),
    listing('concurrency/*'),
    { actions: ['states:StopExecution'], resources: [`${ACCOUNT.replace('%s', 'states')}:execution:serverless-step-runner-dev-build:*`] },
  ],
  // The cache's lookups and presigned URLs, the artifacts' upload URLs, the clone's key hashes; the App's key to renew a token; a step identity's credentials.
  LaunchStepRole: [
    logGroup('launchStep'),
    ASSUME_CLUSTER_ROLE,
    { actions: ['secretsmanager:GetSecretValue'], resources: [APP_KEY] },
    // A step's AWS secrets, read with its identity's credentials (lib/lambda/pod-identity-credentials.ts).
    { actions: ['eks-auth:AssumeRoleForPodIdentity'], resources: [`${ACCOUNT.replace('%s', 'eks')}:cluster/ci`] },
    objects(['s3:GetObject', 's3:PutObject'], 'cache/*'),
    objects(['s3:PutObject'], 'artifacts/*'),
    objects(['s3:GetObject'], 'builds/*/cache-keys.json'),
    listing('cache/*', 'builds/*/cache-keys.json'),
  ],
  // A running step's log parts; the cache's and artifacts' URLs it signs again while the step runs (a URL acts with its signer's permissions).
  PollStepRole: [
    logGroup('pollStep'),
    ASSUME_CLUSTER_ROLE,
    objects(['s3:PutObject'], 'builds/*.log.parts/*'),
    objects(['s3:GetObject', 's3:PutObject'], 'cache/*'),
    objects(['s3:PutObject'], 'artifacts/*'),
  ],
  // The log joined from its parts, the step's record, the key hashes; the artifacts' manifest.
  FinishStepRole: [
    logGroup('finishStep'),
    ASSUME_CLUSTER_ROLE,
    objects(['s3:PutObject', 's3:GetObject', 's3:DeleteObject', 's3:AbortMultipartUpload'], 'builds/*'),
    objects(['s3:GetObject'], 'artifacts/*'),
    listing('builds/*', 'artifacts/*'),
  ],
  // And the build's metrics and trace, which read how each step ended (builds/BUILD/STEP.result.json), the trace sent with the OTLP endpoint's headers.
  CleanupEndedExecutionRole: [
    logGroup('cleanupEndedExecution'),
    ASSUME_CLUSTER_ROLE,
    // A stopped or timed-out build's cost, counted from its own execution's history as ReportStatus counts the others'.
    { actions: ['states:GetExecutionHistory'], resources: [`${ACCOUNT.replace('%s', 'states')}:execution:serverless-step-runner-dev-build:*`] },
    objects(['s3:GetObject'], 'builds/*'),
    listing('builds/*'),
    { actions: ['secretsmanager:GetSecretValue'], resources: [TOKEN, APP_KEY, secret('step-runner/otlp-headers')] },
  ],
  ClusterOnlyRole: [logGroup('waitForNeeds', 'cleanupBuild', 'awaitApproval', 'cleanupOrphans'), ASSUME_CLUSTER_ROLE],
  // The approvals' Secrets, and SendTaskSuccess for the steps waiting for one given (tasks/approval-waits.ts), on the build's machine by its ARN.
  ApprovalWaitsRole: [
    logGroup('approvalWaits'),
    ASSUME_CLUSTER_ROLE,
    { actions: ['states:SendTaskSuccess'], resources: [`${ACCOUNT.replace('%s', 'states')}:stateMachine:serverless-step-runner-dev-build`] },
  ],
  // For a function that calls no AWS API: `role: LogsOnlyRole` and nothing more.
  LogsOnlyRole: [logGroup('*')],
  // The identity the cluster knows: the endpoint and CA of the configured cluster, nothing else.
  EksClusterRole: [{ actions: ['eks:DescribeCluster'], resources: [`${ACCOUNT.replace('%s', 'eks')}:cluster/ci`] }],
};

const statementsOf = (role: string) => statements().filter((s) => s.role === role).map(({ role: _, ...rest }) => rest);

describe('IAM in the packaged template', () => {
  it('grants no action on every resource ("*") but the state machine\'s log delivery, and no wildcard action', () => {
    const onAnyResource = statements().filter((s) => s.resources.includes('*'));
    // The exception and nothing else: that role, exactly those actions, in a statement of its own.
    expect(onAnyResource.map((s) => ({ ...s, actions: [...s.actions].sort() }))).toEqual([
      { ...LOG_DELIVERY_ON_ANY_RESOURCE, actions: [...LOG_DELIVERY_ON_ANY_RESOURCE.actions].sort() },
    ]);
    for (const statement of statements()) {
      expect({ role: statement.role, actions: statement.actions.filter((a) => a.includes('*')) }).toEqual({ role: statement.role, actions: [] });
    }
  });

  it('gives each function the role for what it does, and no function the framework\'s shared role', () => {
    expect(Object.fromEntries(Object.keys(HANDLERS).map((id) => [id, roleOf(id)]))).toEqual(FUNCTION_ROLES);
    expect(template.Resources.IamRoleLambdaExecution).toBeUndefined();
  });

  it.each(Object.keys(ROLE_GRANTS))("grants %s exactly what its functions' code uses", (role) => {
    expect(statementsOf(role)).toEqual(ROLE_GRANTS[role]);
  });

  it('lets no role but those of the functions that need a GitHub token read the App\'s key, nor any but prepareBuild stop an execution or ask ECR', () => {
    const reading = (resource: string) => grants('secretsmanager:GetSecretValue').filter((s) => s.resources.includes(resource)).map((s) => s.role);
    expect(reading(APP_KEY)).toEqual(['PrepareBuildRole', 'LaunchStepRole', 'CleanupEndedExecutionRole', 'WebhookRole', 'ReportStatusRole']);
    expect(reading(TOKEN)).toEqual(['PrepareBuildRole', 'CleanupEndedExecutionRole', 'WebhookRole', 'ReportStatusRole']);
    expect(grants('states:StopExecution').map((s) => s.role)).toEqual(['PrepareBuildRole']);
    // ...and the role EventBridge Scheduler starts the scheduled builds with.
    expect(grants('states:StartExecution').map((s) => s.role)).toEqual(['ScheduleRole', 'WebhookRole']);
    expect(grants('ecr:DescribeImages').map((s) => s.role)).toEqual(['PrepareBuildRole']);
    // Writing under cache/ (the presigned PUTs): LaunchStep, which signs them, and PollStep, which signs them again; deleting anything: FinishStep alone, its own logs.
    expect(grants('s3:PutObject').filter((s) => s.resources.some((r) => r.includes('/cache/'))).map((s) => s.role)).toEqual(['LaunchStepRole', 'PollStepRole']);
    expect(grants('s3:DeleteObject')).toEqual([{ role: 'FinishStepRole', ...ROLE_GRANTS.FinishStepRole![2] }]);
  });

  it.each(['ReportStatusLambdaFunction', 'CleanupEndedExecutionLambdaFunction'])("gives %s the functions' memory and architecture as deployed, which the build's cost prices Lambda time by, and FinishStep the same prices (StepCost)", (fn) => {
    const environment = (template.Resources[fn]!.Properties.Environment as { Variables: Record<string, Json> }).Variables;
    const sizes = JSON.parse(environment['COST_FUNCTIONS'] as string) as { architecture: string; memoryMb: Record<string, number> };
    const functions = template.Resources;
    expect(sizes.architecture).toBe(functions.PollStepLambdaFunction!.Properties.Architectures ? (functions.PollStepLambdaFunction!.Properties.Architectures as string[])[0] : 'x86_64');
    for (const [name, memory] of Object.entries(sizes.memoryMb)) {
      const id = `${name[0]!.toUpperCase()}${name.slice(1)}LambdaFunction`;
      expect([name, functions[id]?.Properties.MemorySize]).toEqual([name, memory]);
    }
    const finishStep = (template.Resources.FinishStepLambdaFunction!.Properties.Environment as { Variables: Record<string, Json> }).Variables;
    expect([environment['COST_PRICES'], finishStep['COST_PRICES']]).toEqual([COST_PRICES, COST_PRICES]);
    expect(deploymentPrices({ COST_PRICES }).instanceTypes['m7g.large']).toEqual({ hourly: 0.0892, vcpu: 2, memoryGib: 8 });
  });

  it('associates each declared identity\'s service account with its role, and lets no role of the runner pass a role or make an association', async () => {
    const associations = resourcesOfType('AWS::EKS::PodIdentityAssociation').map(([id, r]) => [id, r.Properties]);
    expect(Object.fromEntries(associations)).toEqual({
      IdentityAssociationDeploy: { ClusterName: 'ci', Namespace: 'step-runner', ServiceAccount: 'step-runner-id-deploy', RoleArn: 'arn:aws:iam::123456789012:role/step-runner-deploy' },
      IdentityAssociationPublishDocs: { ClusterName: 'ci', Namespace: 'step-runner', ServiceAccount: 'step-runner-id-publish-docs', RoleArn: 'arn:aws:iam::123456789012:role/ci/publish-docs' },
    });
    // The functions carry the file's rules, to check each build against them.
    const environment = (template.Resources.PrepareBuildLambdaFunction!.Properties.Environment as { Variables: Record<string, Json> }).Variables;
    const declared = YAML.parse(await readFile(path.join(ROOT, IDENTITIES_FILE), 'utf8')) as Json;
    expect(JSON.parse(environment['STEP_IDENTITIES'] as string)).toEqual(declared);
    expect(statements().filter((s) => s.actions.some((action) => /^iam:PassRole$|^eks:.*PodIdentity|^iam:\*$|^eks:\*$/.test(action)))).toEqual([]);
  });

  it('starts each schedule of the file on the state machine itself, with the input a webhook would give for event schedule', () => {
    const schedules = Object.fromEntries(resourcesOfType('AWS::Scheduler::Schedule').map(([id, r]) => [id, r.Properties]));
    expect(Object.keys(schedules)).toEqual(['ScheduleNightly', 'ScheduleHourlyDocs']);
    const nightly = schedules.ScheduleNightly!;
    expect({ ...nightly, Target: undefined, Description: undefined }).toEqual({
      ScheduleExpression: 'cron(0 3 * * ? *)',
      ScheduleExpressionTimezone: 'Europe/Paris',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
      Target: undefined,
      Description: undefined,
    });
    expect(schedules.ScheduleHourlyDocs!.State).toBe('DISABLED');
    // The templated Step Functions target: the state machine's ARN (Ref), StartExecution with Input as the execution input.
    const target = nightly.Target as { Arn: Json; RoleArn: Json; Input: string };
    expect([render(target.Arn), render(target.RoleArn)]).toEqual(['ref:BuildStateMachine', 'arn-of:ScheduleRole']);
    expect(JSON.parse(target.Input)).toEqual({
      build: { trigger: 'github schedule', repository: 'acme/site', ref: 'refs/heads/main', event: 'schedule', inputs: { target: 'staging', retries: '3' } },
      source: { url: 'https://github.com/acme/site.git', ref: 'refs/heads/main', credentials: 'github' },
      lookup: { why: 'schedule "nightly" names refs/heads/main, not a commit', commit: true, pipelineFile: '.step-runner.yml' },
    });
    // Its role: assumed by Scheduler for this account's schedules only, and able to start this state machine, nothing else.
    expect(statementsOf('ScheduleRole')).toEqual([{ actions: ['states:StartExecution'], resources: ['ref:BuildStateMachine'] }]);
    const trust = (template.Resources.ScheduleRole!.Properties.AssumeRolePolicyDocument as { Statement: Record<string, Json>[] }).Statement;
    expect(trust).toEqual([
      { Effect: 'Allow', Principal: { Service: 'scheduler.amazonaws.com' }, Action: 'sts:AssumeRole', Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } } },
    ]);
  });

  it('lets no listing go without a prefix: every s3:ListBucket asks for one (StringLike), never IfExists', () => {
    const lists = grants('s3:ListBucket');
    expect(lists.length).toBeGreaterThan(0);
    for (const { role, condition } of lists) {
      expect({ role, operators: Object.keys(condition as object) }).toEqual({ role, operators: ['StringLike'] });
      const prefixes = (condition as { StringLike: { 's3:prefix': string[] } }).StringLike['s3:prefix'];
      // Each pattern starts with a folder of its own: none matches the whole bucket.
      expect({ role, whole: prefixes.filter((p) => !/^[a-z]+\/./.test(p)) }).toEqual({ role, whole: [] });
    }
  });

  it('lets the functions that talk to the cluster, and only they, assume EksClusterRole, which alone may describe the cluster', () => {
    const assuming = grants('sts:AssumeRole').map((s) => s.role);
    expect(assuming).toEqual(['PrepareBuildRole', 'LaunchStepRole', 'PollStepRole', 'FinishStepRole', 'CleanupEndedExecutionRole', 'ClusterOnlyRole', 'ApprovalWaitsRole']);
    expect(grants('eks:DescribeCluster').map((s) => s.role)).toEqual(['EksClusterRole']);
    // Its trust: the account's principals tagged as this stack's, whose own policy allows it (above).
    const trust = (template.Resources.EksClusterRole!.Properties.AssumeRolePolicyDocument as { Statement: Record<string, Json>[] }).Statement;
    expect(trust.map((t) => ({ ...t, Principal: render((t.Principal as { AWS: Json }).AWS) }))).toEqual([
      { Effect: 'Allow', Principal: 'arn:aws:iam::000000000000:root', Action: 'sts:AssumeRole', Condition: { StringEquals: { 'aws:PrincipalTag/step-runner-eks': 'serverless-step-runner-dev' } } },
    ]);
    const tagged = resourcesOfType('AWS::IAM::Role')
      .filter(([, r]) => ((r.Properties.Tags ?? []) as { Key: string; Value: string }[]).some((t) => t.Key === 'step-runner-eks' && t.Value === 'serverless-step-runner-dev'))
      .map(([id]) => id);
    expect(tagged).toEqual(assuming);
    // Every function that talks to the cluster is told which role to assume.
    for (const id of Object.keys(FUNCTION_ROLES).filter((fn) => assuming.includes(FUNCTION_ROLES[fn]!))) {
      const env = (template.Resources[id]!.Properties.Environment as { Variables: Record<string, Json> }).Variables;
      expect({ id, role: render(env.EKS_CLUSTER_ROLE_ARN!) }).toEqual({ id, role: 'arn-of:EksClusterRole' });
    }
  });

  it('lets the state machine invoke the functions its Task states name, and no other', () => {
    const invoked = grants('lambda:InvokeFunction');
    expect(invoked.map((s) => s.role)).toEqual(['BuildStateMachineRole']);
    const functions = new Set(invoked[0]!.resources.map((r) => r.replace(/^arn-of:/, '').replace(/:\*$/, '')));
    expect([...functions].sort()).toEqual([...new Set(taskStates(loadDefinition()).map((t) => t.functionId))].sort());
  });

  it('maps EksClusterRole in by an EKS access entry, by default with edit rights in the step namespace only', async () => {
    const entry = template.Resources.RunnerEksAccessEntry!;
    expect(entry.Type).toBe('AWS::EKS::AccessEntry');
    // params.eksAccess picks a row; a value with none fails the deploy, and 'none' creates no entry.
    expect((template as { Mappings?: Record<string, Json> }).Mappings?.EksAccessMustBeEditRbacOrNone).toEqual({
      edit: { AccessEntry: 'true' },
      rbac: { AccessEntry: 'true' },
      none: { AccessEntry: 'false' },
    });
    expect(template.Conditions?.[entry.Condition!]).toEqual({ 'Fn::Equals': [{ 'Fn::FindInMap': ['EksAccessMustBeEditRbacOrNone', 'edit', 'AccessEntry'] }, 'true'] });
    expect(template.Conditions?.EksAccessEdit).toEqual({ 'Fn::Equals': ['edit', 'edit'] });
    expect(render(entry.Properties.PrincipalArn!)).toBe('arn-of:EksClusterRole');
    expect(resourcesOfType('AWS::EKS::AccessEntry')).toHaveLength(1);
    expect(entry.Properties.ClusterName).toBe('ci');
    const [, editPolicies, rbacPolicies] = (entry.Properties.AccessPolicies as { 'Fn::If': [string, { PolicyArn: Json; AccessScope: Json }[], Json] })['Fn::If'];
    expect(editPolicies.map((p) => ({ policy: render(p.PolicyArn), scope: p.AccessScope }))).toEqual([
      {
        policy: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSEditPolicy',
        scope: { Type: 'namespace', Namespaces: ['step-runner'] },
      },
    ]);
    expect(rbacPolicies).toEqual({ Ref: 'AWS::NoValue' });
    // With rbac: no policy, only the group deploy/rbac.yaml's RoleBinding grants its Role to.
    const [binding] = roleBindings(await readFile(path.join(ROOT, 'deploy/rbac.yaml'), 'utf8'));
    expect(entry.Properties.KubernetesGroups).toEqual({ 'Fn::If': ['EksAccessEdit', { Ref: 'AWS::NoValue' }, [binding!.subjects[0]!.name]] });
  });
});

/**
 * The deployed definition in the local file's terms: Task ARNs mapped by `arnToLocal`, and the
 * `QueryLanguage: JSONPath` that serverless-step-functions' validation step (asl-validator
 * fills in defaults on the object it checks) writes into every state dropped, since JSONPath is
 * what a state without the field uses anyway.
 */
function normalise(definition: AslDefinition, arnToLocal: (arn: string) => string): AslDefinition {
  const visit = (machine: AslDefinition) => {
    if (machine.QueryLanguage === 'JSONPath') delete machine.QueryLanguage;
    for (const state of Object.values(machine.States)) {
      if (state.QueryLanguage === 'JSONPath') delete state.QueryLanguage;
      // The callback pattern's integration names its function in Parameters.FunctionName (definition.ts).
      const parameters = state.Parameters as { FunctionName?: unknown } | undefined;
      if (state.Type === 'Task' && state.Resource === LAMBDA_WAIT_FOR_TASK_TOKEN && typeof parameters?.FunctionName === 'string') parameters.FunctionName = arnToLocal(parameters.FunctionName);
      else if (state.Type === 'Task' && typeof state.Resource === 'string') state.Resource = arnToLocal(state.Resource);
      if (state.ItemProcessor) visit(state.ItemProcessor);
    }
  };
  visit(definition);
  return definition;
}
