/**
 * A step's artifacts, through the real definition on the embedded cluster, with the local stack's
 * S3 as the store: what the step kept is in `run --json`'s steps (size, sha256, where), and the
 * bytes in the store are what the step wrote; a step that fails keeps its artifacts too; and
 * `run --artifacts DIR` leaves them on disk with their names and a SHA256SUMS sha256sum checks.
 * Test reports go the same way (`reports:`): a failing step's reports of the four dialects read
 * (test/fixtures/junit: jest-junit's and pytest's as the reporters wrote them, gotestsum's and
 * Surefire's from their projects' own fixtures) give its `tests` and the check run's annotations on
 * each test's own file and line, which GitHub's schema accepts; a report that is no XML is a log
 * line, never a failure.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { localBuildsForFile, type LocalBuild } from './fixtures/local-builds.js';
import { LOCAL_CACHE_BUCKET } from '../lib/local/stores/local-cache-store.js';
import { stateGraph } from '../lib/console/asl-graph.js';
import { layoutGraph } from '../lib/console/graph-layout.js';
import { LocalExecutions } from '../lib/local/server/executions.js';
import { createConsoleRoutes } from '../lib/local/server/http/console-routes.js';
import { createLocalHttpServer } from '../lib/local/server/http/server.js';
import { loadDefinition } from '../lib/workflow/definition.js';
import { main } from '../lib/cli/main.js';
import type { RunSummary } from '../lib/cli/commands/run.js';
import { capturedIO } from './fixtures/captured-io.js';
import { requestBodyProblems } from './fixtures/webhooks/github-openapi.js';
import { parseStepRecord, stepResultName } from '../lib/workflow/step-log-store.js';
import { endedSteps } from '../lib/workflow/status-steps.js';
import { checkRunCompletion, Endings } from '../lib/forge/check-run.js';

const builds = localBuildsForFile({ prefix: 'artifact-builds', repository: true, cache: true });

const pipeline = (last: string, reports = '') => `version: 1
steps:
  - name: build
    image: busybox:1.37
    commands:
      - mkdir -p dist coverage
      - echo "console.log('app')" > dist/app.js
      - printf 'TN:\\nSF:src/app.js\\nend_of_record\\n' > coverage/lcov.info
      - ${last}
    artifacts:
      paths: [dist/app.js, coverage/lcov.info, reports/]
      expire-in: 2w
${reports}`;

const REPORTS = `    reports:
      junit: [test-results/*.xml, "go/**/junit.xml"]
`;
/** Where the step writes each reporter's report, and its fixture. */
const REPORT_FIXTURES = { 'test-results/junit.xml': 'jest-junit.xml', 'test-results/pytest.xml': 'pytest-xunit2.xml', 'test-results/gotestsum.xml': 'gotestsum.xml', 'test-results/TEST-surefire.MyTest.xml': 'surefire.xml' };
/** The reports a step writes: each dialect's, of failing tests, and one that is no XML. */
const writeReports = [
  'mkdir -p test-results',
  ...Object.entries(REPORT_FIXTURES).map(([file, fixture]) => `echo ${readFileSync(path.join('test', 'fixtures', 'junit', fixture)).toString('base64')} | base64 -d > ${file}`),
  "echo 'PASS src/sum.test.js' > test-results/broken.xml",
].join(' && ');

async function storedBytes(location: string): Promise<Buffer> {
  const prefix = `s3://${LOCAL_CACHE_BUCKET}/`;
  expect(location.startsWith(prefix)).toBe(true);
  const object = await builds.cache.store.download(location.slice(prefix.length));
  const chunks: Buffer[] = [];
  for await (const chunk of object!.body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

let succeeded: LocalBuild | undefined;

describe('artifacts of a local build', () => {
  it('lists what a step that succeeded kept, with sizes and sha256s the stored bytes match', async () => {
    // A report that is no XML: a line of the log and of the tests' problems, never a failure.
    succeeded = await builds.build('artifacts-ok', pipeline("mkdir -p test-results && echo 'PASS src/sum.test.js' > test-results/broken.xml", '    reports:\n      junit: test-results/*.xml\n'));
    const { summary } = succeeded;
    expect(summary).toMatchObject({ status: 'SUCCEEDED', error: null });
    const step = summary.steps.find((s) => s.name === 'build')!;
    const problem = "test-results/broken.xml is not well-formed XML (line 1: char 'P' is not expected)";
    expect(step.tests).toEqual({ passed: 0, failed: 0, skipped: 0, failures: [], problems: [problem] });
    expect(step.artifacts?.map((a) => a.path)).toEqual(['dist/app.js', 'coverage/lcov.info']);
    for (const artifact of step.artifacts!) {
      // In the 30-day class (2w rounded up), under the build and the step.
      expect(artifact.location).toMatch(new RegExp(`^s3://${LOCAL_CACHE_BUCKET}/artifacts/30d/[^/]+/artifacts-ok/build/\\d-[^/]+$`));
      const bytes = await storedBytes(artifact.location);
      expect({ size: bytes.length, sha256: sha256(bytes) }).toEqual({ size: artifact.size, sha256: artifact.sha256 });
    }
    expect((await storedBytes(step.artifacts![0]!.location)).toString()).toBe("console.log('app')\n");
    const log = await readFile(path.join(builds.root, 'logs', 'artifacts-ok', 'build.log'), 'utf8');
    expect(log).toMatch(/^\+ keeping the artifacts and sending the test reports\nartifact dist\/app\.js: kept \(\d+ B, sha256 [0-9a-f]{12}…\)\nartifact coverage\/lcov\.info: kept \(.+\)\nartifact reports\/: does not exist, not kept\nreport test-results\/broken\.xml: 21 B$/m);
    expect(log.endsWith(`test reports: 0 passed, 0 failed, 0 skipped\ntest reports: ${problem}\n`)).toBe(true);
  });

  it("keeps a failed step's artifacts too, and reads its test reports, and the step still fails with its own exit code", async () => {
    const { summary } = await builds.build('artifacts-failed', pipeline(`${writeReports} && exit 7`, REPORTS));
    expect(summary.status).toBe('FAILED');
    const step = summary.steps.find((s) => s.name === 'build')!;
    expect({ status: step.status, exitCode: step.exitCode, error: step.error }).toEqual({ status: 'failed', exitCode: 7, error: 'StepFailed' });
    const problems = ['no file matches go/**/junit.xml', "test-results/broken.xml is not well-formed XML (line 1: char 'P' is not expected)"];
    // jest-junit 1 passed, 1 failed, 1 skipped; pytest the same; gotestsum 2, 5, 1; Surefire one error. The cases' times: 3 ms, 2 ms, 0, 100 ms.
    expect(step.tests).toMatchObject({ passed: 4, failed: 8, skipped: 3, durationMs: 105, problems });
    // In the files' order (the pod sorts them: C's collation, capitals first); where each failed as its report says it.
    const stub = 'testjson/internal/stub/stub_test.go';
    expect(step.tests!.failures.map((f) => [f.name, f.file, f.line])).toEqual([
      ['test', 'src/test/java/surefire/MyTest.java', 13],
      ['TestMain', undefined, undefined],
      ['TestFailed', stub, 34],
      ['TestFailedWithStderr', stub, 43],
      ['TestNestedWithFailure/c', stub, 65],
      ['TestNestedWithFailure', undefined, undefined],
      ['sum adds negative numbers', 'src/sum.test.js', 9],
      ['test_adds_negative', 'tests/test_calc.py', 13],
    ]);
    const failure = step.tests!.failures.find((f) => f.file === 'src/sum.test.js')!;
    expect(failure.message).toBe('Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: -4\nReceived: -3');
    const log = await readFile(path.join(builds.root, 'logs', 'artifacts-failed', 'build.log'), 'utf8');
    expect(log).toContain('+ keeping the artifacts and sending the test reports\n');
    expect(log).toMatch(/^reports: no file matches go\/\*\*\/junit\.xml$/m);
    expect(log).toMatch(/^report test-results\/junit\.xml: 2\.\d kB$/m);
    expect(log.endsWith(`test reports: 4 passed, 8 failed, 3 skipped (105 ms)\n${problems.map((p) => `test reports: ${p}\n`).join('')}`)).toBe(true);
    // The Cause's log tail is what the step printed: the lines added after it are the tests' own.
    expect(summary.cause).toContain('report test-results/junit.xml: ');
    expect(summary.cause).not.toContain('test reports:');

    // The check run FinishStep's record makes: each test's annotation on its own file and line (a
    // failure whose report names no place goes on the step's line, which a record does not hold).
    const record = parseStepRecord(await readFile(path.join(builds.root, 'logs', stepResultName('artifacts-failed', 'build')), 'utf8'))!;
    expect(record.tests).toEqual(step.tests);
    const bodies = checkRunCompletion({ ending: Endings.failed, completedAt: summary.steps.at(-1)!.stoppedAt!, failure: { Error: summary.error!, Cause: summary.cause! }, steps: endedSteps([record]), pipelineFile: '.step-runner.yml' });
    expect(bodies).toHaveLength(1);
    expect(bodies[0]!.output?.annotations?.map((a) => `${a.path}:${a.start_line}-${a.end_line} ${a.annotation_level}`)).toEqual(
      ['src/test/java/surefire/MyTest.java:13', `${stub}:34`, `${stub}:43`, `${stub}:65`, 'src/sum.test.js:9', 'tests/test_calc.py:13'].map((at) => `${at}-${at.split(':')[1]} failure`),
    );
    expect(bodies[0]!.output?.annotations?.find((a) => a.path === 'src/sum.test.js')?.message).toBe(failure.message);
    expect(bodies[0]!.output?.summary).toContain('| `build` | 4 | 8 | 3 | 105 ms |');
    expect(requestBodyProblems('checks/update', bodies[0])).toEqual([]);
    expect(step.artifacts?.map((a) => a.path)).toEqual(['dist/app.js', 'coverage/lcov.info']);
    const coverage = await storedBytes(step.artifacts![1]!.location);
    expect(coverage.toString()).toBe('TN:\nSF:src/app.js\nend_of_record\n');
    expect(sha256(coverage)).toBe(step.artifacts![1]!.sha256);
  });

  it("shows them on the console page, each with its sha256 and a download the local server streams from the store", async () => {
    const build = succeeded!;
    const executions = new LocalExecutions({
      run: (_name, _input, onEvent) => ({ result: Promise.resolve().then(() => (build.events.forEach(onEvent), build.summary)), abort: () => {}, refused: [] }),
      consoleUrl: (name) => `/executions/${name}`,
    });
    await executions.start('kept', { build: { id: 'artifacts-ok', trigger: 'test' }, pipeline: { file: 'ci.yml', text: '' } });
    await executions.stopAll();
    const server = createLocalHttpServer({
      webhook: async () => ({ statusCode: 404 }),
      executions,
      console: createConsoleRoutes({ executions, graph: () => layoutGraph(stateGraph(loadDefinition())), artifacts: builds.cache.store }),
      maxBodyBytes: 1024,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const kept = build.summary.steps.find((s) => s.name === 'build')!.artifacts!;
      const page = await (await fetch(`${base}/executions/kept?step=1`, { headers: { accept: 'text/html' } })).text();
      expect(page).toContain('<h4>Artifacts</h4>');
      // Its tests: nothing ran, and the report that is no XML said.
      expect(page).toContain('<p data-tests><span class="tests-passed">0 passed</span>, 0 failed, 0 skipped</p>');
      expect(page).toContain('data-tests-problem>⚠ test-results/broken.xml is not well-formed XML');
      for (const [n, artifact] of kept.entries()) {
        expect(page).toContain(`<a href="/executions/kept/steps/1/artifacts/${n}" download><code>${artifact.path}</code></a>`);
        expect(page).toContain(`>${artifact.sha256}</code>`);
        const download = await fetch(`${base}/executions/kept/steps/1/artifacts/${n}`);
        expect(download.status).toBe(200);
        const bytes = Buffer.from(await download.arrayBuffer());
        expect(sha256(bytes)).toBe(artifact.sha256);
        expect(download.headers.get('x-artifact-sha256')).toBe(artifact.sha256);
      }
      const first = await fetch(`${base}/executions/kept/steps/1/artifacts/0`);
      expect(first.headers.get('content-disposition')).toContain('filename="dist_app.js"');
      // Only what the history names is served.
      expect((await fetch(`${base}/executions/kept/steps/1/artifacts/9`)).status).toBe(404);
      expect((await fetch(`${base}/executions/kept/steps/0/artifacts/0`)).status).toBe(404);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('run --artifacts DIR', () => {
  let dir: string | undefined;
  afterAll(() => dir && rm(dir, { recursive: true, force: true }));

  it("writes each step's artifacts under DIR/BUILD/STEP with their names, a folder unpacked, and a SHA256SUMS that sha256sum -c accepts", async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'run-artifacts-'));
    const file = path.join(dir, 'ci.yml');
    await writeFile(file, `version: 1
checkout: false
steps:
  - name: build
    image: busybox:1.37
    commands:
      - mkdir -p dist/js coverage
      - echo "console.log('app')" > dist/js/app.js
      - echo '<p>hi</p>' > dist/index.html
      - printf 'TN:\\n' > coverage/lcov.info
    artifacts:
      paths: [dist/, coverage/lcov.info]
`);
    const out = path.join(dir, 'out');
    const io = capturedIO();
    const code = await main(['run', file, '--artifacts', out, '--json'], io);
    const summary = JSON.parse(io.outLines.at(-1)!) as RunSummary;
    expect({ code, status: summary.status }).toEqual({ code: 0, status: 'SUCCEEDED' });
    const stepDir = path.join(out, summary.buildId!, 'build');
    const expected = { 'coverage/lcov.info': 'TN:\n', 'dist/index.html': '<p>hi</p>\n', 'dist/js/app.js': "console.log('app')\n" };
    expect(summary.artifacts).toEqual({
      dir: path.join(out, summary.buildId!),
      steps: [{ name: 'build', dir: stepDir, files: Object.entries(expected).map(([name, text]) => ({ path: name, size: Buffer.byteLength(text), sha256: sha256(Buffer.from(text)) })) }],
    });
    for (const [name, text] of Object.entries(expected)) expect(await readFile(path.join(stepDir, name), 'utf8')).toBe(text);
    // The sums are checked by the tool people check them with, not by our own reading of them.
    const checked = await promisify(execFile)('sha256sum', ['-c', 'SHA256SUMS'], { cwd: stepDir });
    expect(checked.stdout.trim().split('\n')).toEqual(Object.keys(expected).map((name) => `${name}: OK`));
    expect(io.errLines).toContain(`Artifacts: written to ${path.join(out, summary.buildId!)}: build/ (3 files); \`sha256sum -c SHA256SUMS\` in a step's folder checks them`);
  });
});
