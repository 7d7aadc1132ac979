/**
 * The webhook's answer time against a GitHub API that takes 5 s a call (a loopback stand-in that
 * answers every request after GITHUB_DELAY_MS): functions/webhook bundled as deployed (esbuild
 * with serverless.yml's options, the AWS SDK inside), Secrets Manager and Step Functions a
 * loopback stand-in too (AWS_ENDPOINT_URL), so every request goes through the real SDK over HTTP.
 *
 * Each sample set is a fresh `node` process: cold is the first delivery timed from the bundle's
 * import (module init, the secrets read, the GitHub calls waited on up to the budget,
 * StartExecution), which is what a Lambda cold start adds to the runtime's own start; warm is the
 * deliveries after it in the same process, each with a delivery id of its own.
 */
import { execFile } from 'node:child_process';
import { writeFile, mkdir } from 'node:fs/promises';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { sign } from '@octokit/webhooks-methods';
import { deployedEsbuildOptions } from './cold-start.js';
import { percentile, round } from './stats.js';
import type { WebhookLatency } from './webhook-latency-report.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

export const GITHUB_DELAY_MS = 5_000;
const SECRET = 'bench-webhook-secret';
const STATE_MACHINE_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:bench-build';

interface ChildFigures {
  initMs: number;
  coldMs: number;
  warmMs: number[];
  statuses: number[];
  deferred: number;
}

async function listen(listener: RequestListener) {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
}

/** A GitHub whose every answer (a 404: no pipeline file) comes after `delayMs`. */
const slowGitHub = (delayMs: number) =>
  listen((request, response) => {
    request.resume();
    const timer = setTimeout(() => response.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}'), delayMs);
    response.on('close', () => clearTimeout(timer));
  });

/** Secrets Manager's GetSecretValue and Step Functions' StartExecution, as their JSON protocols answer. */
const awsStandIn = () =>
  listen((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { SecretId?: string; name?: string; stateMachineArn?: string };
      const target = String(request.headers['x-amz-target'] ?? '');
      const answer = (value: unknown) => response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(value));
      if (target === 'secretsmanager.GetSecretValue') return answer({ Name: body.SecretId, SecretString: body.SecretId === 'ci/webhook' ? SECRET : 'ghp_bench' });
      if (target === 'AWSStepFunctions.StartExecution') {
        return answer({ executionArn: `${body.stateMachineArn!.replace(':stateMachine:', ':execution:')}:${body.name}`, startDate: Date.now() / 1000 });
      }
      response.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify({ __type: 'UnknownOperationException', message: target }));
    });
  });

const CHILD = `
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [bundle, deliveryFile, warm] = process.argv.slice(2);
const { body, signature } = JSON.parse(readFileSync(deliveryFile, 'utf8'));
const context = (id) => ({ functionName: 'webhook', functionVersion: '$LATEST', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:webhook', memoryLimitInMB: '256', awsRequestId: 'req-' + id, logGroupName: 'bench', logStreamName: 'bench', getRemainingTimeInMillis: () => 10000, callbackWaitsForEmptyEventLoop: false });
const event = (id) => ({ version: '2.0', routeKey: '$default', rawPath: '/webhook', rawQueryString: '', headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': 'bench-' + id, 'x-hub-signature-256': signature }, requestContext: { http: { method: 'POST', path: '/webhook' }, stage: '$default', requestId: 'req-' + id }, body, isBase64Encoded: false });
const statuses = new Set(); let deferred = 0;
const deliver = async (handler, id) => { const a = await handler(event(id), context(id)); statuses.add(a.statusCode); if ('deferred' in JSON.parse(a.body)) deferred += 1; };
const started = performance.now();
const { handler } = await import(pathToFileURL(bundle).href);
const initMs = performance.now() - started;
await deliver(handler, 0);
const coldMs = performance.now() - started;
const warmMs = [];
for (let i = 1; i <= Number(warm); i++) { const t = performance.now(); await deliver(handler, i); warmMs.push(performance.now() - t); }
process.stdout.write(JSON.stringify({ initMs, coldMs, warmMs, statuses: [...statuses], deferred }) + '\\n');
// The GitHub calls left behind end by their own timeouts; the figures are out.
process.exit(0);
`;

export async function measureWebhookLatency(workDir: string, options: { warm?: number; cold?: number } = {}): Promise<WebhookLatency> {
  await mkdir(workDir, { recursive: true });
  const bundle = path.join(workDir, 'functions/webhook.mjs');
  await esbuild.build({ ...(await deployedEsbuildOptions(ROOT)), entryPoints: [path.join(ROOT, 'functions/webhook.ts')], outfile: bundle, logLevel: 'error' });
  await writeFile(path.join(workDir, 'deliver.mjs'), CHILD);
  const { branchPush } = await import('../test/fixtures/webhooks/examples.js');
  const body = JSON.stringify(branchPush());
  await writeFile(path.join(workDir, 'delivery.json'), JSON.stringify({ body, signature: await sign(SECRET, body) }));
  const { WEBHOOK_LOOKUP_BUDGET_MS } = await import('../lib/lambda/webhook.js');

  const github = await slowGitHub(GITHUB_DELAY_MS);
  const aws = await awsStandIn();
  const figures: ChildFigures[] = [];
  try {
    for (let i = 0; i < (options.cold ?? 5); i++) {
      const warm = i === 0 ? (options.warm ?? 50) : 0;
      const { stdout } = await run(process.execPath, [path.join(workDir, 'deliver.mjs'), bundle, path.join(workDir, 'delivery.json'), String(warm)], {
        cwd: workDir,
        // A clean environment: what serverless.yml gives the function, the stand-ins as its endpoints.
        env: {
          PATH: process.env.PATH ?? '',
          NODE_OPTIONS: '',
          POWERTOOLS_LOG_LEVEL: 'SILENT',
          AWS_REGION: 'eu-west-1',
          AWS_ACCESS_KEY_ID: 'AKIDBENCH',
          AWS_SECRET_ACCESS_KEY: 'bench-secret-key',
          AWS_ENDPOINT_URL: aws.url,
          STATE_MACHINE_ARN,
          GITHUB_WEBHOOK_SECRET_ID: 'ci/webhook',
          GITHUB_TOKEN_SECRET_ID: 'ci/token',
          GITHUB_API_URL: github.url,
        },
        maxBuffer: 1 << 20,
      });
      figures.push(JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildFigures);
    }
  } finally {
    await github.close();
    await aws.close();
  }
  const warmMs = figures[0]!.warmMs;
  const cold = figures.map((f) => round(f.coldMs));
  return {
    githubDelayMs: GITHUB_DELAY_MS,
    budgetMs: WEBHOOK_LOOKUP_BUDGET_MS,
    warm: { p50: round(percentile(warmMs, 50)), p99: round(percentile(warmMs, 99)), max: round(Math.max(...warmMs)), samples: warmMs.length },
    cold: { each: cold, initEach: figures.map((f) => round(f.initMs)), max: Math.max(...cold), samples: cold.length },
    statuses: [...new Set(figures.flatMap((f) => f.statuses))],
    deferred: figures.reduce((n, f) => n + f.deferred, 0),
  };
}

/** Alone: `npx tsx bench/webhook-latency.ts [--json]`, the section bench/index.ts prints among the others. */
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await import('./quiet.js');
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { printWebhookLatency } = await import('./webhook-latency-report.js');
  const json = process.argv.includes('--json');
  const dir = await mkdtemp(path.join(tmpdir(), 'step-runner-bench-webhook-'));
  try {
    const figures = await measureWebhookLatency(dir);
    printWebhookLatency(figures, (line = '') => (json ? process.stderr : process.stdout).write(`${line}\n`));
    if (json) process.stdout.write(`${JSON.stringify({ webhookLatencyMs: figures })}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
