/**
 * PollStep's memory: the peak resident set of the deployed bundle (functions/poll-step.ts as
 * cold-start.ts bundles it) in a fresh `node` process, from start-up through the invocation that
 * holds a watch on a running pod until the container exits, then classifies it (and any further
 * invocation, should a watch return before the exit, as the next poll would follow at once).
 *
 * The process has the deployed function's environment. Its EKS connection is real code too: the
 * SDK's DescribeCluster goes to a stand-in endpoint on loopback (AWS_ENDPOINT_URL_EKS) that names
 * the embedded cluster behind a TLS proxy (a throwaway self-signed certificate from `openssl`, as
 * the client refuses plain HTTP with a CA), and the token is signed with dummy credentials (the
 * embedded API does not check it). The live log's parts go to an S3 stand-in on loopback
 * (AWS_ENDPOINT_URL_S3) that takes every request. The step's pod is launched and polled until it runs by the handlers over the local
 * runtime, as api-requests.ts does; the child then gets the next poll's input, as Step Functions
 * would pass it, with the running watch as deployed (it returns at the container's exit).
 */
import { execFile } from 'node:child_process';
import { createServer, request } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { writeFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { deployedFunction } from '../lib/emulators/lambda/deployed-functions.js';
import { localLambdaContext } from '../lib/emulators/lambda/lambda-context.js';
import { launchStepHandler, pollStepHandler } from '../lib/workflow/handlers.js';
import type { PollState, StepInput } from '../lib/workflow/state-data.js';
import type { TaskRuntime } from '../lib/workflow/task-deps.js';
import { prepareBuild } from '../lib/workflow/tasks/prepare-build.js';
import { DEPLOYED_ENV } from './cold-start.js';

export interface PollMemory {
  scenario: string;
  /** RSS of the fresh process before the handler's module is imported (Node itself). */
  nodeRssMb: number;
  /** RSS once the bundle is imported (the cold start). */
  importedRssMb: number;
  /** Peak RSS while the invocation ran (sampled every 20 ms) and getrusage's maxRSS for the whole process. */
  peakRssMb: number;
  maxRssMb: number;
  /** Peak V8 heap used during the invocation. */
  peakHeapUsedMb: number;
  /** How long the invocations held (the watch, then the classification), and how many (a watch may return before the exit). */
  invocationMs: number;
  invocations: number;
  phase: string;
  /** MB of the step's log PollStep kept (the live log's bytes at the end), and MB its PUTs carried (a part is rewritten as it grows). */
  logMb: number;
  putMb: number;
}

const run = promisify(execFile);
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

const CHILD = `
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [bundle, inputFile, outFile] = process.argv.slice(2);
const nodeRss = process.memoryUsage().rss;
const { handler } = await import(pathToFileURL(bundle).href);
const importedRss = process.memoryUsage().rss;
let peakRss = importedRss, peakHeap = 0;
const sample = () => { const m = process.memoryUsage(); peakRss = Math.max(peakRss, m.rss); peakHeap = Math.max(peakHeap, m.heapUsed); };
const timer = setInterval(sample, 20);
const deadline = Date.now() + 300000;
const context = {
  callbackWaitsForEmptyEventLoop: false, functionName: 'pollStep', functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:pollStep', memoryLimitInMB: '${deployedFunction('pollStep').memorySize}',
  awsRequestId: 'bench-memory', logGroupName: '/aws/lambda/pollStep', logStreamName: 'bench',
  getRemainingTimeInMillis: () => deadline - Date.now(),
};
const started = Date.now();
const input = JSON.parse(readFileSync(inputFile, 'utf8'));
let output;
let invocations = 0;
const each = [];
try {
  // As Step Functions would: while the step runs, the next poll follows (same warm process).
  do {
    const at = Date.now();
    output = await handler(output ? { ...input, poll: output } : input, context);
    invocations++;
    each.push((Date.now() - at) + ' ms ' + output.phase + ' (' + output.reason + ')');
  } while (output.phase === 'running' && invocations < 5);
} catch (error) {
  writeFileSync(outFile, JSON.stringify({ error: String(error?.message ?? error).slice(0, 2000) }));
  process.exit(0);
}
const invocationMs = Date.now() - started;
sample();
clearInterval(timer);
writeFileSync(outFile, JSON.stringify({ nodeRss, importedRss, peakRss, peakHeap, maxRss: process.resourceUsage().maxRSS * 1024, invocationMs, invocations, each, phase: output.phase, logBytes: output.log?.bytes ?? 0 }));
`;

/** The embedded cluster's API over TLS, as EKS serves it: a proxy with a self-signed certificate for 127.0.0.1. */
async function tlsProxy(clusterUrl: string, workDir: string) {
  const key = path.join(workDir, 'proxy-key.pem');
  const cert = path.join(workDir, 'proxy-cert.pem');
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1']);
  const certPem = await readFile(cert, 'utf8');
  const server = createTlsServer({ key: await readFile(key), cert: certPem }, (req, res) => {
    const upstream = request(`${clusterUrl}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caData: Buffer.from(certPem).toString('base64'),
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

/** A stand-in for EKS DescribeCluster that names the embedded cluster's API (behind the TLS proxy), and for S3. */
async function eksStandIn(endpoint: string, caData: string) {
  const counted = { putBytes: 0 };
  const server = createServer((req, res) => {
    // S3 (the live log's parts, written while the watch holds): every request is taken, its bytes counted.
    if (!req.url?.startsWith('/clusters/')) {
      req.on('data', (chunk: Buffer) => { counted.putBytes += chunk.length; });
      req.on('end', () => {
        res.setHeader('etag', '"bench"');
        res.end();
      });
      return;
    }
    req.resume();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({
      cluster: {
        name: DEPLOYED_ENV.EKS_CLUSTER_NAME,
        status: 'ACTIVE',
        endpoint,
        certificateAuthority: { data: caData },
      },
    }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, counted, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** `loud`'s output: lines of 250 bytes, 1,400 a second (350 KB/s, 20 MiB a minute) for 70 s. */
const LOUD = { lineBytes: 250, linesPerSecond: 1400, seconds: 70 } as const;

/**
 * `quiet`: the step prints nothing, exits after 4 s (the default runs). `loud`: it prints 20 MiB a
 * minute for 70 s (some 23 MiB; the bar is 10 MB a minute), so the watch follows a log that
 * fills several 2 MiB parts (the default runs). `noisy`: it prints about
 * 6.8 MB over some 8 s (the live log's copy holds it in one part), then exits after 4 s more; not
 * in the default runs: on the embedded cluster, behind the bench's TLS proxy, its watches return
 * before the exit and the step runs far longer than it should (not understood yet).
 */
export const MEMORY_SCENARIOS = {
  quiet: ['sleep 4'],
  loud: [`line=$(printf '%0${LOUD.lineBytes - 1}d' 0); for i in $(seq 1 ${LOUD.seconds}); do yes "$line" | head -n ${LOUD.linesPerSecond}; sleep 1; done`],
  noisy: ['for i in $(seq 1 40); do seq 1 30000; sleep 0.2; done', 'sleep 4'],
} as const;

const pipeline = (commands: readonly string[]) => `version: 1
checkout: false
steps:
  - name: held
    image: alpine:3.20
    commands: ${JSON.stringify(commands)}
`;

export async function measurePollMemory(
  bundle: string,
  workDir: string,
  clusterUrl: string,
  runtime: TaskRuntime,
  runs: readonly (keyof typeof MEMORY_SCENARIOS)[] = ['quiet', 'quiet', 'quiet', 'loud', 'loud', 'loud'],
): Promise<PollMemory[]> {
  const proxy = await tlsProxy(clusterUrl, workDir);
  const eks = await eksStandIn(proxy.url, proxy.caData);
  const childFile = path.join(workDir, 'measure-rss.mjs');
  await writeFile(childFile, CHILD);
  const launchStep = launchStepHandler(runtime);
  const pollStep = pollStepHandler(runtime);
  const { namespace } = runtime.settings;
  const results: PollMemory[] = [];
  try {
    for (const [sample, scenario] of runs.entries()) {
      const prepared = await prepareBuild(
        { build: { id: `memory-${sample}-${Date.now().toString(36)}`, trigger: 'benchmark' }, pipeline: { file: 'memory.yml', text: pipeline(MEMORY_SCENARIOS[scenario]) }, namespace, withoutSource: 'the benchmark measures its steps' },
        runtime.settings,
        runtime.deps,
      );
      const step = prepared.steps[0]!;
      const input: StepInput = { build: prepared.build, namespace: prepared.namespace, settings: prepared.settings, step, index: 0 };
      let poll = (await launchStep(input as never, localLambdaContext('launchStep'))) as PollState;
      for (let i = 0; i < 100 && poll.phase === 'pending'; i++) {
        poll = (await pollStep({ ...input, poll } as never, localLambdaContext('pollStep', 300_000))) as PollState;
      }
      if (poll.phase !== 'running') throw new Error(`the memory sample's step is ${poll.phase}, not running`);
      const inputFile = path.join(workDir, `poll-input-${sample}.json`);
      const outFile = path.join(workDir, `poll-memory-${sample}.json`);
      await writeFile(inputFile, JSON.stringify({ ...input, poll }));
      const putBytesBefore = eks.counted.putBytes;
      await run(process.execPath, [childFile, bundle, inputFile, outFile], {
        cwd: workDir,
        maxBuffer: 16 * 2 ** 20,
        env: {
          PATH: process.env.PATH ?? '',
          NODE_OPTIONS: '',
          ...DEPLOYED_ENV,
          AWS_ENDPOINT_URL_EKS: eks.url,
          AWS_ENDPOINT_URL_S3: eks.url,
          AWS_ACCESS_KEY_ID: 'AKIDBENCHMARK',
          AWS_SECRET_ACCESS_KEY: 'benchmark',
        },
      });
      const r = JSON.parse(await readFile(outFile, 'utf8')) as Record<string, number | string>;
      if (r.error) throw new Error(`the bundled PollStep failed: ${r.error}`);
      results.push({
        scenario,
        nodeRssMb: mb(r.nodeRss as number),
        importedRssMb: mb(r.importedRss as number),
        peakRssMb: mb(r.peakRss as number),
        maxRssMb: mb(r.maxRss as number),
        peakHeapUsedMb: mb(r.peakHeap as number),
        invocationMs: r.invocationMs as number,
        invocations: r.invocations as number,
        phase: String(r.phase),
        logMb: mb(r.logBytes as number),
        putMb: mb(eks.counted.putBytes - putBytesBefore),
      });
    }
  } finally {
    await eks.close();
    await proxy.close();
  }
  return results;
}
