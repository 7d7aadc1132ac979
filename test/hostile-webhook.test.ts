/**
 * Hostile webhook requests through the real middy handler (the one Lambda and the local server
 * run): any body, any headers, signed or not. The answer is always a 4xx with a JSON
 * {error, message} (a 2xx only for a well-formed, signed, valid delivery), never a 500 or a stack
 * trace, and nothing is started for a refusal. Shell metacharacters in refs, repositories and clone
 * URLs that do start a build reach the pods only as data: as environment values (CI_REF, ...) and,
 * in the clone step's script, single-quoted, where no shell acts on them.
 *
 * Corpora: random bytes (base64 bodies), random text, random JSON values, 100 000-deep JSON
 * arrays, a 1 MiB + 1 body, generic payloads with arbitrary field values and hostile inline
 * pipelines, GitHub push/pull_request/ping payloads with fields of the wrong type.
 */
import './fixtures/handler-logs-shown.js';
import { jest } from '@jest/globals';
import fc from 'fast-check';
import { sign } from '@octokit/webhooks-methods';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createWebhookHandler, staticSecrets } from '../lib/forge/webhook-handler.js';
import { fixedPipelineSource } from '../lib/local/source/pipeline-file.js';
import type { ExecutionStarter } from '../lib/forge/execution-starter.js';
import { localLambdaContext } from '../lib/emulators/lambda/lambda-context.js';
import { logger } from '../lib/workflow/lambda-task.js';
import { prepareBuild } from '../lib/workflow/tasks/prepare-build.js';
import { workflowSettings } from '../lib/workflow/settings.js';
import { kubeStepCluster, stepPodManifest } from '../lib/kube/index.js';
import { buildEnvironment } from '../lib/workflow/build-environment.js';
import type { BuildInput } from '../lib/contract/index.js';

const SECRET = 'hostile-webhook-secret';

/** What a POSIX shell would act on: the text less its single-quoted parts and backslash escapes. */
function outsideSingleQuotes(script: string): string {
  let out = '';
  for (let i = 0; i < script.length; i++) {
    if (script[i] === '\\') i++;
    else if (script[i] === "'") {
      i = script.indexOf("'", i + 1);
      if (i < 0) throw new Error('an unterminated single quote: the script would not even run');
    }
    else out += script[i];
  }
  return out;
}
const silent = { info: () => undefined, warn: () => undefined };
/** PrepareBuild's one API call, the workspace claim, answered as the API server would. */
const claimsAccepted = async () =>
  ({ createNamespacedPersistentVolumeClaim: async ({ body }: { body: unknown }) => body }) as never;
const GOOD_PIPELINE = 'version: 1\nsteps:\n  - name: test\n    image: alpine:3.20\n    commands: [echo hi]\n';
const started: BuildInput[] = [];
const starter: ExecutionStarter = {
  start: async (name, input) => {
    started.push(input as BuildInput);
    return { executionArn: `arn:local:${name}`, executionName: name, consoleUrl: 'http://localhost', alreadyStarted: false };
  },
};
let githubPipeline = GOOD_PIPELINE;
const handler = createWebhookHandler({
  logger,
  secrets: staticSecrets({ githubWebhookSecret: SECRET, genericWebhookSecret: SECRET }),
  deps: { starter, pipelines: () => ({ load: (request) => fixedPipelineSource({ file: '.step-runner.yml', text: githubPipeline }).load(request) }), log: logger },
});

let written = '';
beforeAll(() => {
  for (const stream of [process.stdout, process.stderr]) {
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written += chunk.toString();
      return true;
    });
  }
});
afterAll(() => jest.restoreAllMocks());
beforeEach(() => {
  started.length = 0;
  githubPipeline = GOOD_PIPELINE;
});

interface Request {
  path?: string;
  body: string | Buffer;
  headers?: Record<string, string>;
}

async function post({ path = '/webhook/generic', body, headers = {} }: Request) {
  const base64 = Buffer.isBuffer(body);
  const event = {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', ...headers },
    requestContext: { http: { method: 'POST', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'x' }, stage: '$default' },
    body: base64 ? body.toString('base64') : body,
    isBase64Encoded: base64,
  } as unknown as APIGatewayProxyEventV2;
  const answer = (await handler(event, localLambdaContext('webhook'))) as APIGatewayProxyStructuredResultV2;
  return { status: answer.statusCode ?? 0, text: answer.body ?? '' };
}

/** Every answer: a known status, JSON with error and message for refusals, and no stack trace. */
function expectSafeAnswer(answer: { status: number; text: string }, allowed: number[] = []) {
  const json = JSON.parse(answer.text) as { error?: unknown; message?: unknown };
  if (!allowed.includes(answer.status)) {
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(typeof json.error).toBe('string');
    expect(typeof json.message).toBe('string');
    expect(started).toEqual([]);
  }
  expect(answer.text).not.toMatch(/\n\s+at |\.ts:\d+|node_modules/);
}

const signed = async (text: string) => ({ 'x-signature-256': await sign(SECRET, text), 'x-hub-signature-256': await sign(SECRET, text) });

describe('unsigned or wrongly signed junk', () => {
  it('is refused with a 4xx whatever the bytes, headers and signature', async () => {
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)),
      fc.string({ unit: 'binary', maxLength: 2048 }),
      fc.jsonValue({ maxDepth: 6 }).map((value) => JSON.stringify(value) ?? 'null'),
    );
    const headers = fc.record(
      {
        'content-type': fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', '', 'application/json\u0000'),
        'x-signature-256': fc.oneof(fc.string({ maxLength: 80 }), fc.stringMatching(/^[0-9a-f]{64}$/).map((h) => `sha256=${h}`)),
        'x-hub-signature-256': fc.string({ maxLength: 80 }),
        'x-github-event': fc.constantFrom('push', 'pull_request', 'ping', 'issues', '', '\u202e'),
        'x-delivery-id': fc.string({ maxLength: 200 }),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, headers, fc.constantFrom('/webhook', '/webhook/generic', '/webhook/../admin', '/'), async (b, h, path) => {
        started.length = 0;
        expectSafeAnswer(await post({ path, body: b, headers: h }));
      }),
      { numRuns: 300 },
    );
  });
});

describe('signed but hostile', () => {
  it('refuses what it cannot use, and starts only valid builds, for any generic payload', async () => {
    const field = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.constantFrom('$(rm -rf /)', '`id`', 'refs/heads/$(touch${IFS}pwned)', 'a;b|c&&d', '../../../etc/passwd', 'main\nInjected: header', '\u0000', 'ステップ'),
      fc.integer(), fc.constant(null), fc.constant(['x']), fc.constant({ nested: true }),
    );
    const pipeline = fc.oneof(
      fc.constant(GOOD_PIPELINE),
      fc.string({ maxLength: 200 }),
      fc.constantFrom('[[[[[[[[[[', 'a: &a [*a]', 'version: 1\nsteps: *x', GOOD_PIPELINE.replace('test', '$(id)'), GOOD_PIPELINE.replace('alpine:3.20', 'alpine;reboot')),
      fc.integer(),
    );
    // Well-formed payloads (printable ASCII fields, a valid pipeline) holding values a shell would
    // act on. The random ones above almost never get past the refusal (all four fields must be
    // right at once), so without these what a started build does with hostile values went unchecked.
    const printableHostile = fc.oneof(
      fc.constantFrom('`id`', 'refs/heads/$(touch${IFS}pwned)', 'a;b|c&&d', '../../../etc/passwd', `x'y"z`, '$(reboot)', '<script>', 'a\\b{c}'),
      fc.stringMatching(/^[\x21-\x7e]{1,60}$/),
    );
    const cloneUrl = fc.oneof(fc.constant('https://git.example.com/team/app.git'), printableHostile.map((v) => `https://git.example.com/${v}`));
    const startable = fc.record({ repository: printableHostile, commit: printableHostile, ref: printableHostile, pipeline: fc.constant(GOOD_PIPELINE), cloneUrl });
    // What the runs came to: a run that never started a build, or never had a shell-like value to
    // look for, would check nothing below the refusal.
    const seen = { refused: 0, started: 0, shellishChecked: 0 };
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.record({ repository: field, commit: field, ref: field, pipeline }, { requiredKeys: [] }), startable), async (payload) => {
        started.length = 0;
        const text = JSON.stringify(payload);
        const answer = await post({ body: text, headers: await signed(text) });
        expectSafeAnswer(answer, [202]);
        if (answer.status !== 202) {
          seen.refused++;
          return;
        }
        seen.started++;
        // Started: then every pod it would launch carries the ref and repository nowhere in its spec.
        expect(started).toHaveLength(1);
        const input = started[0]!;
        const prepared = await prepareBuild(input, workflowSettings({ namespace: 'default' }), { cluster: kubeStepCluster(claimsAccepted), log: silent });
        expect(prepared.steps.map((s) => s.name)).toEqual(['clone', 'test']);
        for (const step of prepared.steps) {
          const container = stepPodManifest({ buildId: input.build.id, step, namespace: 'ci', buildEnv: buildEnvironment(input.build) }).spec!
            .containers[0]!;
          const unquoted = outsideSingleQuotes(container.command!.join('\n'));
          // Checked for values a shell would act on; plain words may occur in any spec by chance.
          const shellish = [input.build.ref!, input.build.repository!, input.source!.url].filter((v) => /[$`;|&<>(){}\\'"\n]/.test(v) && v.length >= 3);
          if (shellish.length > 0) seen.shellishChecked++;
          for (const value of shellish) {
            // In the script only ever single-quoted, and in the environment only ever a value.
            expect(unquoted.includes(value)).toBe(false);
            expect(container.env!.filter((e) => e.name.includes(value))).toEqual([]);
          }
        }
      }),
      { numRuns: 300 },
    );
    // Half the runs are well-formed: most of them start, and most of those carry a shell-like value.
    expect(seen.refused).toBeGreaterThanOrEqual(50);
    expect(seen.started).toBeGreaterThanOrEqual(50);
    expect(seen.shellishChecked).toBeGreaterThanOrEqual(25);
  });

  it('refuses GitHub payloads of the wrong shape with 400, and hostile pipelines with 400', async () => {
    const sha = fc.oneof(fc.stringMatching(/^[0-9a-f]{40}$/), fc.string({ maxLength: 45 }), fc.integer());
    const payload = fc.record(
      {
        ref: fc.oneof(fc.constantFrom('refs/heads/main', 'refs/heads/$(id)', 'refs/tags/v1', ''), fc.string(), fc.integer()),
        after: sha,
        deleted: fc.oneof(fc.boolean(), fc.string()),
        action: fc.constantFrom('opened', 'synchronize', 'closed', '$(id)'),
        number: fc.oneof(fc.integer(), fc.string()),
        pull_request: fc.oneof(fc.record({ head: fc.record({ sha }) }), fc.constant(null)),
        repository: fc.oneof(fc.record({ full_name: fc.oneof(fc.constantFrom('o/r', 'o/r;x', 'o/ r', '../x'), fc.string()) }), fc.string()),
        zen: fc.oneof(fc.string(), fc.integer()),
      },
      { requiredKeys: [] },
    );
    // Deliveries of the right shape (a push to a branch, a pull request opened from the repository
    // itself) holding values a shell would act on. The random shapes above almost never get as far
    // as the pipeline, so without these the hostile pipelines were never refused at all.
    const hex40 = fc.stringMatching(/^[0-9a-f]{40}$/);
    const fullName = fc.constantFrom('o/r', 'o/r;x', '../x', 'o/$(id)');
    const wellFormedPush = fc.record({
      ref: fc.constantFrom('refs/heads/main', 'refs/heads/$(id)', 'refs/heads/a;b'),
      after: hex40,
      repository: fullName.map((name) => ({ full_name: name })),
    });
    const wellFormedPullRequest = fc
      .record({ action: fc.constantFrom('opened', 'synchronize', 'reopened'), number: fc.nat(), sha: hex40, name: fullName })
      .map(({ action, number, sha: head, name }) => ({ action, number, pull_request: { head: { sha: head, repo: { full_name: name } } }, repository: { full_name: name } }));
    const deliveries = fc.oneof(
      fc.tuple(fc.constantFrom('push', 'pull_request', 'ping'), payload as fc.Arbitrary<unknown>),
      fc.tuple(fc.constant('push'), wellFormedPush as fc.Arbitrary<unknown>),
      fc.tuple(fc.constant('pull_request'), wellFormedPullRequest as fc.Arbitrary<unknown>),
    );
    const pipelines = fc.constantFrom(GOOD_PIPELINE, 'version: 2', '&a [*a, *a]', 'version: 1\nsteps:\n  - name: "`reboot`"\n    image: x\n    commands: [y]');
    const seen = { shapeRefused: 0, pipelineRejected: 0, built: 0 };
    await fc.assert(
      fc.asyncProperty(deliveries, pipelines, async ([event, body], pipelineText) => {
        started.length = 0;
        githubPipeline = pipelineText;
        const text = JSON.stringify(body);
        const answer = await post({ path: '/webhook', body: text, headers: { ...(await signed(text)), 'x-github-event': event, 'x-github-delivery': 'd-1' } });
        expectSafeAnswer(answer, [200, 202]);
        if (answer.status >= 400 && answer.text.includes('PipelineRejected')) {
          seen.pipelineRejected++;
          expect(JSON.parse(answer.text).pipelineError).toMatch(/^(InvalidPipeline|InvalidImage)$/);
        } else if (answer.status === 400) {
          seen.shapeRefused++;
        }
        if (started.length > 0) {
          // Only a valid pipeline starts a build.
          seen.built++;
          expect(answer.status).toBe(202);
          expect(started.map((input) => input.pipeline.text)).toEqual([GOOD_PIPELINE]);
        }
      }),
      { numRuns: 300 },
    );
    // A third of the runs are random shapes, two thirds well-formed with one good pipeline in four:
    // each kind of answer was reached many times over.
    expect(seen.shapeRefused).toBeGreaterThanOrEqual(30);
    expect(seen.pipelineRejected).toBeGreaterThanOrEqual(50);
    expect(seen.built).toBeGreaterThanOrEqual(15);
  });

  it('refuses a body past 1 MiB (413) and 100 000-deep JSON (400) without starting anything', async () => {
    const huge = JSON.stringify({ repository: 'a/b', commit: 'c', ref: 'r', pipeline: 'x'.repeat(1024 * 1024) });
    const big = await post({ body: huge, headers: await signed(huge) });
    expect(big.status).toBe(413);
    expectSafeAnswer(big);

    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const nested = await post({ body: deep, headers: await signed(deep) });
    expectSafeAnswer(nested);
    const inPipeline = JSON.stringify({ repository: 'a/b', commit: 'c', ref: 'r', pipeline: `version: 1\nsteps: ${'['.repeat(50_000)}` });
    const yamlDeep = await post({ body: inPipeline, headers: await signed(inPipeline) });
    expect(yamlDeep.status).toBe(400);
    expectSafeAnswer(yamlDeep);
  });

  it('refuses a pipeline too large for the build\'s state data with 413, naming the file and the limit', async () => {
    const pipeline = `${GOOD_PIPELINE}${'# padding\n'.repeat(7000)}`;
    const body = JSON.stringify({ repository: 'a/b', commit: 'c', ref: 'r', pipeline, cloneUrl: 'https://example.com/a/b.git' });
    const answer = await post({ body, headers: await signed(body) });
    expect(answer.status).toBe(413);
    expectSafeAnswer(answer);
    expect(JSON.parse(answer.text)).toMatchObject({
      error: 'PipelineTooLarge',
      pipelineError: 'InvalidPipeline',
      message: expect.stringMatching(/: the file is 69 KiB; a pipeline file may be at most 64 KiB/),
    });
  });

  it('never logged a stack trace for any of it', () => {
    expect(written).not.toContain('"level":"ERROR"');
    expect(written).not.toMatch(/"stack":/);
  });
});
