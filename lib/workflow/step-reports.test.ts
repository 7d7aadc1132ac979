/**
 * FinishStep's read of a step's test reports from the bundle its pod sent (the bundle's bytes as
 * report-scripts.ts writes them): the summary and the log's lines, and each way a bundle can be
 * missing or broken said, never thrown.
 */
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { readStepReports, reportBundleKey } from './step-reports.js';

const run = { step: { name: 'test', reports: { junit: ['reports/*.xml', 'go/**/junit.xml'] } }, build: { id: 'b-1', repository: 'octo/app' }, attempt: 1, redrive: 0 };
const jest = readFileSync('test/fixtures/junit/jest-junit.xml');

function store(objects: Record<string, Buffer>) {
  return {
    locationOf: (key: string) => `s3://bucket/${key}`,
    download: async (key: string) => {
      const bytes = objects[key];
      if (!bytes) return undefined;
      return { size: bytes.length, body: (async function* () { yield new Uint8Array(bytes); })() };
    },
  };
}

const bundle = (...parts: (string | Buffer)[]) => gzipSync(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))));

describe("a step's test reports as FinishStep reads them", () => {
  it("is in the step's own folder, named by its attempt and redrive", () => {
    expect(reportBundleKey(run)).toBe('artifacts/1d/octo%2Fapp/b-1/test/test-reports-r0-a1.gz');
  });

  it('sums the files of the bundle and says the globs that matched nothing', async () => {
    const objects = { [reportBundleKey(run)]: bundle('step-runner-reports 1\nunmatched 0 go/**/junit.xml\n', `file ${jest.length} reports/junit.xml\n`, jest, 'too-big 6000000 reports/huge.xml\n') };
    const read = await readStepReports(run, store(objects));
    expect(read?.summary).toMatchObject({ passed: 1, failed: 1, skipped: 1, problems: ['no file matches go/**/junit.xml', 'reports/huge.xml was not read: 6000000 bytes, more than a report may be'] });
    expect(read?.summary.failures.map((f) => `${f.file}:${f.line}`)).toEqual(['src/sum.test.js:9']);
    expect(read?.lines).toEqual(['test reports: 1 passed, 1 failed, 1 skipped (3 ms)', 'test reports: no file matches go/**/junit.xml', 'test reports: reports/huge.xml was not read: 6000000 bytes, more than a report may be']);
  });

  it.each([
    ['no bundle (the pod never got that far)', {}, "the pod sent no reports (its commands never ended, or the upload failed: the step's log says which)"],
    ['a bundle that is not gzip', { [reportBundleKey(run)]: Buffer.from('<testsuite/>') }, expect.stringMatching(/^the reports sent are not a gzip stream of at most \d+ bytes \(incorrect header check\)$/)],
    ['a bundle of another format', { [reportBundleKey(run)]: gzipSync('step-runner-reports 2\n') }, 'the reports sent do not start with "step-runner-reports 1"'],
    ['a bundle cut short in a file', { [reportBundleKey(run)]: bundle('step-runner-reports 1\nfile 100 reports/a.xml\n<testsuite') }, 'the reports sent are cut short in reports/a.xml'],
  ])('%s: an empty summary with the problem', async (_what, objects, problem) => {
    const read = await readStepReports(run, store(objects as Record<string, Buffer>));
    expect(read?.summary).toEqual({ passed: 0, failed: 0, skipped: 0, failures: [], problems: [problem] });
  });

  it('reads nothing for a step without reports', async () => {
    expect(await readStepReports({ ...run, step: { name: 'test' } }, store({}))).toBeUndefined();
  });
});
