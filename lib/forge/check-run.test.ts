import { requestBodyProblems } from '../../test/fixtures/webhooks/github-openapi.js';
import { parsePipeline } from '../pipeline/index.js';
import {
  annotationBatches,
  annotationFor,
  CHECK_NAME,
  checkRunCompletion,
  checkRunCreation,
  checkRunProgress,
  conclusionFor,
  duration,
  endingOf,
  Endings,
  MAX_ANNOTATIONS_PER_REQUEST,
  MAX_OUTPUT_BYTES,
  splitCause,
  summaryWith,
  type CheckStep,
  type Ending,
} from './check-run.js';

const SHA = '6113728f27ae82c7b1a177c8d03f9e96e0adf246';
const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
/** No lone surrogate: in `u` mode a pair is one code point, so only half of a character matches. */
const wellFormed = (text: string) => !/[\uD800-\uDFFF]/u.test(text);
const ARN = 'arn:aws:states:eu-west-1:123456789012:execution:step-runner:gh-hello-world-6113728-d1';
const AT = '2026-03-01T10:00:00Z';

const PIPELINE = `version: 1
steps:
  - name: build
    image: node:22-alpine
    commands: [npm ci]
  - name: test
    image: node:22-alpine
    commands: [npm test]
`;

const STEP_FAILED_CAUSE = 'Step "test" exited with code 1 (image node:22-alpine)\nLast lines of the log:\n> jest\nFAIL src/sum.test.ts\n  expected 3, received 4';

describe('check run conclusions', () => {
  it.each<[Ending, string]>([
    [Endings.succeeded, 'success'],
    [Endings.failed, 'failure'],
    [Endings.cancelled, 'cancelled'],
    [Endings.timedOut, 'timed_out'],
    [Endings.superseded, 'neutral'],
    [Endings.skipped, 'skipped'],
  ])('%s ends as %s', (ending, conclusion) => {
    expect(conclusionFor(ending)).toBe(conclusion);
  });

  it.each<[string, Ending, Parameters<typeof endingOf>]>([
    ['ReportSucceeded', Endings.succeeded, ['succeeded']],
    ['ReportSkipped', Endings.skipped, ['succeeded', undefined, "Skipped by the pipeline's when.paths"]],
    ['ReportFailed', Endings.failed, ['failed', { Error: 'StepFailed', Cause: 'x' }]],
    ['an aborted execution', Endings.cancelled, ['stopped', { Error: 'ExecutionAborted' }]],
    ['a timed-out execution', Endings.timedOut, ['stopped', { Error: 'ExecutionTimedOut' }]],
    ['a superseded build', Endings.superseded, ['stopped', { Error: 'Superseded', Cause: 'Superseded by 1a2b3c4' }]],
    ['an uncatchable error', Endings.failed, ['stopped', { Error: 'States.Runtime' }]],
  ])('%s is %s', (_what, ending, args) => {
    expect(endingOf(...args)).toBe(ending);
  });
});

describe('check run requests', () => {
  it('creates the run in progress, named as the status was, with the execution and its console page', () => {
    const body = checkRunCreation({ headSha: SHA, execution: ARN, startedAt: AT, detailsUrl: 'https://console.example/x' });
    expect(body).toMatchObject({ name: CHECK_NAME, head_sha: SHA, status: 'in_progress', started_at: AT, external_id: ARN, details_url: 'https://console.example/x' });
    expect(requestBodyProblems('checks/create', body)).toEqual([]);
  });

  it('keeps the summary current as steps end', () => {
    const steps: CheckStep[] = [
      { name: 'build', status: 'succeeded', durationSeconds: 65 },
      { name: 'test', status: 'running' },
      { name: 'ship', status: 'queued', identity: 'deploy' },
      { name: 'image', status: 'succeeded', durationSeconds: 42, pushed: { digest: 'sha256:4656465646564656465646564656465646564656465646564656465646564656', tags: ['ghcr.io/org/app:1'] } },
    ];
    const body = checkRunProgress(steps);
    expect(body.output?.title).toBe('Build running: 2 of 4 steps done');
    expect(body.output?.summary).toContain('| `build` | ✅ succeeded | 1m 05s |  |');
    // Which identity a step has (its AWS role), in the step's cell.
    expect(body.output?.summary).toContain('| `ship` as `deploy` | 🕒 queued |  |  |');
    // What a build step pushed, by the digest a later step or a deploy can pin.
    expect(body.output?.summary).toContain('| `image` | ✅ succeeded, pushed `sha256:4656465646564656465646564656465646564656465646564656465646564656` | 42s |  |');
    expect(requestBodyProblems('checks/update', body)).toEqual([]);
  });

  it("completes a failed build with the Error, the Cause, the log tail as code and an annotation on the failing step's line", () => {
    const pipeline = parsePipeline(PIPELINE, '.step-runner.yml');
    const steps: CheckStep[] = pipeline.steps.map((step, index) => ({
      name: step.name,
      status: index === 0 ? 'succeeded' : 'failed',
      durationSeconds: 12,
      error: index === 0 ? null : 'StepFailed',
      ...(step.line !== undefined ? { line: step.line } : {}),
    }));
    const [body, ...more] = checkRunCompletion({ ending: Endings.failed, completedAt: AT, failure: { Error: 'StepFailed', Cause: STEP_FAILED_CAUSE }, steps, pipelineFile: '.step-runner.yml' });
    expect(more).toEqual([]);
    expect(body).toMatchObject({ status: 'completed', conclusion: 'failure', completed_at: AT });
    expect(body!.output!.title).toBe('StepFailed in step "test"');
    expect(body!.output!.summary).toMatch(/^\*\*StepFailed\*\*: Step "test" exited with code 1/);
    expect(body!.output!.text).toContain('```text\n> jest\nFAIL src/sum.test.ts\n  expected 3, received 4\n```');
    expect(body!.output!.annotations).toEqual([
      {
        path: '.step-runner.yml',
        start_line: 6,
        end_line: 6,
        annotation_level: 'failure',
        title: 'StepFailed in step "test"',
        message: 'Step "test" exited with code 1 (image node:22-alpine)',
      },
    ]);
    expect(requestBodyProblems('checks/update', body)).toEqual([]);
  });

  it('says what the build cost under the headline, by part, at which prices, and where it is explained', () => {
    const cost = { usd: 0.01234, parts: { stepFunctions: 0.0011, lambda: 0.00042, s3: 0.00001, pods: 0.01081 }, prices: { region: 'us-east-1', asOf: '2026-12-06' } };
    const [body] = checkRunCompletion({ ending: Endings.succeeded, completedAt: AT, steps: [{ name: 'build', status: 'succeeded', durationSeconds: 61 }], cost });
    expect(body!.output!.summary.split('\n\n').slice(0, 2)).toEqual([
      'Build succeeded',
      '**Cost: $0.0123** (Step Functions $0.0011, Lambda $0.0004, S3 $0.0000, step pods $0.0108), at list prices for us-east-1 as of 2026-12-06; how each part is counted and how exact it is: the runner\'s docs/cost.md.',
    ]);
    expect(body!.output!.summary).toContain('| `build` |');
    expect(requestBodyProblems('checks/update', body)).toEqual([]);
  });

  it("shows a Lambda error's message, never its trace", () => {
    const cause = JSON.stringify({ errorType: 'InvalidPipeline', errorMessage: '.step-runner.yml line 6: bad', trace: ['at /var/task/index.mjs:1:2'] });
    const [body] = checkRunCompletion({ ending: Endings.failed, completedAt: AT, failure: { Error: 'InvalidPipeline', Cause: cause } });
    expect(JSON.stringify(body)).not.toContain('/var/task');
    expect(body!.output!.text).toContain('.step-runner.yml line 6: bad');
  });

  it.each<[Ending, string, Partial<Parameters<typeof checkRunCompletion>[0]>]>([
    [Endings.succeeded, 'Build succeeded', {}],
    [Endings.cancelled, 'Build cancelled', { failure: { Error: 'ExecutionAborted', Cause: 'The execution was stopped' } }],
    [Endings.timedOut, 'Build timed out', { failure: { Error: 'ExecutionTimedOut', Cause: "The execution ran 192h, past the state machine's time limit, and Step Functions ended it" } }],
    [Endings.superseded, 'Superseded by 1a2b3c4', { failure: { Error: 'Superseded', Cause: 'Superseded by 1a2b3c4' } }],
    [Endings.skipped, 'Skipped: no changed file matches src/**', { skipped: 'no changed file matches src/**' }],
  ])('titles a build that ended %s "%s", in a body GitHub accepts', (ending, title, rest) => {
    const [body] = checkRunCompletion({ ending, completedAt: AT, ...rest });
    expect(body!.output!.title).toBe(title);
    expect(body!.conclusion).toBe(conclusionFor(ending));
    expect(requestBodyProblems('checks/update', body)).toEqual([]);
  });
});

describe("the API's limits", () => {
  const many = (count: number, error = 'StepFailed: '.padEnd(250, 'x')): CheckStep[] =>
    Array.from({ length: count }, (_, i) => ({ name: `step-${i}`, status: 'failed', durationSeconds: i, error }));

  it.each([
    ['a few steps', 3],
    ['just over the limit', 240],
    ['far over it', 5_000],
  ])('keeps the summary within 65,535 bytes with %s, whole rows only, saying how many are left out', (_what, count) => {
    const summary = summaryWith('Build failed', many(count));
    expect(bytes(summary)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
    const rows = summary.split('\n').filter((line) => line.startsWith('| `step-'));
    for (const row of rows) expect(row).toMatch(/^\| `step-\d+` \| .* \|$/);
    const left = count - rows.length;
    if (left > 0) expect(summary).toMatch(new RegExp(`_${left} more steps? not shown here`));
    else expect(summary).not.toContain('not shown');
    expect(requestBodyProblems('checks/update', { output: { title: 't', summary } })).toEqual([]);
  });

  it('fits the summary when it is just one row too long, leaving that row out', () => {
    const steps = many(2);
    const full = summaryWith('Build failed', steps);
    const cut = summaryWith('Build failed', steps, bytes(full) - 1);
    expect(bytes(cut)).toBeLessThanOrEqual(bytes(full) - 1);
    expect(cut).toContain('`step-0`');
    expect(cut).not.toContain('`step-1`');
    expect(cut).toContain('1 more step not shown here');
  });

  it('keeps the end of a log tail too long for the text, inside a fence the log cannot close', () => {
    const log = `${'```\n'}${Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n')}`;
    const [body] = checkRunCompletion({ ending: Endings.failed, completedAt: AT, failure: { Error: 'StepFailed', Cause: 'Step "test" exited with code 1' }, logTail: log });
    const text = body!.output!.text!;
    expect(bytes(text)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
    expect(text).toContain('line 19999\n````');
    expect(text).toContain('````text\n…\n');
    expect(requestBodyProblems('checks/update', body)).toEqual([]);
  });

  it('sends at most 50 annotations a request, the rest in further updates with the same output', () => {
    const annotations = Array.from({ length: 120 }, (_, i) => annotationFor('.step-runner.yml', i + 1, 'InvalidPipeline', `s${i}`, 'bad'));
    const batches = annotationBatches({ title: 'Build failed', summary: 's' }, annotations);
    expect(batches.map((b) => b.output!.annotations!.length)).toEqual([50, 50, 20]);
    expect(batches.flatMap((b) => b.output!.annotations!)).toEqual(annotations);
    for (const batch of batches) {
      expect(batch.output).toMatchObject({ title: 'Build failed', summary: 's' });
      expect(requestBodyProblems('checks/update', batch)).toEqual([]);
    }
    expect(MAX_ANNOTATIONS_PER_REQUEST).toBe(50);
    // The schema says so too: 51 would be refused.
    const refused = requestBodyProblems('checks/update', { output: { title: 't', summary: 's', annotations: [...annotations.slice(0, 51)] } });
    expect(refused.join('\n')).toMatch(/annotations must NOT have more than 50 items/);
  });

  // GitHub counts a summary's and a text's 65,535 in bytes of UTF-8, not the characters its
  // documentation says (github/docs#35252): a Cause, a log or an Error in other scripts takes 2 to
  // 4 bytes a character. é is 2 bytes, a CJK character 3, an emoji 4 (and 2 UTF-16 units).
  const SCRIPTS = [
    ['é (2 bytes)', 'é'],
    ['CJK (3 bytes)', '错'],
    ['emoji (4 bytes)', '🔥'],
    ['mixed', 'aé错🔥'],
  ] as const;

  it.each(SCRIPTS)('keeps a summary of steps whose Errors are %s within 65,535 bytes, whole characters only', (_what, char) => {
    const steps = many(2_000, `StepFailed: ${char.repeat(120)}`);
    const summary = summaryWith(`**StepFailed**: ${char.repeat(40_000)}`, steps);
    expect(bytes(summary)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
    // Nearly full: the rows and the note fill what the headline leaves, short of less than a row
    // (a cell is cut at 300 characters, 1,200 bytes at most).
    expect(bytes(summary)).toBeGreaterThan(MAX_OUTPUT_BYTES - 1_500);
    expect(wellFormed(summary)).toBe(true);
    expect(summary).toMatch(/ more steps not shown here/);
    expect(requestBodyProblems('checks/update', { output: { title: 't', summary } })).toEqual([]);
  });

  it.each(SCRIPTS)('keeps a failure text of a Cause and a log tail in %s within 65,535 bytes, never cutting a character', (_what, char) => {
    const cause = `Step "test" exited with code 1: ${char.repeat(70_000)}`;
    const log = Array.from({ length: 3_000 }, (_, i) => `${i} ${char.repeat(15)}`).join('\n');
    for (const [body] of [
      checkRunCompletion({ ending: Endings.failed, completedAt: AT, failure: { Error: 'StepFailed', Cause: cause } }),
      checkRunCompletion({ ending: Endings.failed, completedAt: AT, failure: { Error: 'StepFailed', Cause: 'Step "test" exited with code 1' }, logTail: log }),
    ]) {
      const { text, summary } = body!.output!;
      expect(bytes(text!)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
      expect(bytes(text!)).toBeGreaterThan(MAX_OUTPUT_BYTES - 300);
      expect([wellFormed(text!), wellFormed(summary)]).toEqual([true, true]);
      expect(requestBodyProblems('checks/update', body)).toEqual([]);
    }
  });

  it.each(SCRIPTS)('keeps a text that fits to the last byte whole, and cuts one a byte over (%s)', (_what, char) => {
    // `### StepFailed\n\n` and a paragraph that brings it to exactly 65,535 bytes.
    const head = '### StepFailed\n\n';
    const fill = MAX_OUTPUT_BYTES - bytes(head);
    const paragraph = char.repeat(Math.floor(fill / bytes(char))) + 'x'.repeat(fill % bytes(char));
    const exact = checkRunCompletion({ ending: Endings.failed, completedAt: AT, failure: { Error: 'StepFailed', Cause: paragraph } })[0]!.output!.text!;
    expect(bytes(exact)).toBe(MAX_OUTPUT_BYTES);
    expect(exact).toBe(head + paragraph);
    const over = checkRunCompletion({ ending: Endings.failed, completedAt: AT, failure: { Error: 'StepFailed', Cause: `${paragraph}x` } })[0]!.output!.text!;
    expect(bytes(over)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
    expect(over.endsWith('…')).toBe(true);
    expect(wellFormed(over)).toBe(true);
  });

  it("makes the GitHub stand-in refuse, as GitHub does, a summary of 65,535 characters that is more than 65,535 bytes", () => {
    const summary = 'é'.repeat(MAX_OUTPUT_BYTES);
    expect(requestBodyProblems('checks/create', { name: 'n', head_sha: SHA, output: { title: 't', summary } })).toEqual([
      `/output/summary summary exceeds a maximum bytesize of ${MAX_OUTPUT_BYTES}`,
    ]);
    expect(requestBodyProblems('checks/update', { output: { title: 't', summary: 's', text: '🔥'.repeat(16_384) } })).toEqual([
      `/output/text text exceeds a maximum bytesize of ${MAX_OUTPUT_BYTES}`,
    ]);
    expect(requestBodyProblems('checks/update', { output: { title: 't', summary: 'é'.repeat(32_767) + 'x' } })).toEqual([]);
  });
});

describe('masking', () => {
  const SECRET = 'hunter2-db-password';
  const mask = (text: string) => text.split(SECRET).join('***');

  it('keeps what FinishStep masked as it is, and masks what the caller names everywhere the build speaks', () => {
    const cause = `Step "test" exited with code 1\nLast lines of the log:\npassword=*** from the Secret\nconnecting with ${SECRET}`;
    const steps: CheckStep[] = [{ name: 'test', status: 'failed', error: `StepFailed ${SECRET}`, line: 6 }];
    const bodies = checkRunCompletion({ ending: Endings.failed, completedAt: AT, failure: { Error: 'StepFailed', Cause: cause }, steps, pipelineFile: '.step-runner.yml', mask });
    const sent = JSON.stringify(bodies);
    expect(sent).not.toContain(SECRET);
    expect(sent).toContain('password=*** from the Secret');
    expect(bodies[0]!.output!.text).toContain('connecting with ***');
  });

  it('splits the log tail FinishStep appends from the Cause, a service tail too', () => {
    expect(splitCause(STEP_FAILED_CAUSE)).toEqual({ paragraph: 'Step "test" exited with code 1 (image node:22-alpine)', logTail: '> jest\nFAIL src/sum.test.ts\n  expected 3, received 4' });
    expect(splitCause('Service "db" exited\nLast lines of the log of service "db":\nFATAL: no').logTail).toBe('FATAL: no');
    expect(splitCause('Image node:99 not found')).toEqual({ paragraph: 'Image node:99 not found' });
  });
});

describe('durations', () => {
  it.each([
    [0, '0s'],
    [42, '42s'],
    [65, '1m 05s'],
    [7380, '2h 03m'],
  ])('%d s reads %s', (seconds, words) => {
    expect(duration(seconds)).toBe(words);
  });
});
