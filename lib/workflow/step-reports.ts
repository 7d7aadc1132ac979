/**
 * A step's test reports (`reports: {junit: [...]}`): LaunchStep signs one PUT for the bundle the
 * pod's save sidecar sends once the commands end (lib/kube/report-scripts.ts), succeeded or
 * failed, as it does for artifacts; FinishStep reads the bundle back and sums it into the step's
 * TestSummary (junit-report.ts). A report is a record of the step, never its outcome: nothing here
 * fails a step, and what could not be read is a line of the step's log and of the summary.
 *
 * The bundle's object is in the step's artifacts folder, in the shortest lifecycle class (it is
 * read within the hour), named by the attempt and the redrive, so a later attempt whose pod never
 * got as far as sending is never read the bundle of an earlier one.
 */
import { parseReportBundle, type PodReports, type UrlSigning } from '../kube/index.js';
import type { Step } from '../pipeline/types.js';
import type { TestSummary } from '../contract/test-summary.js';
import { ARTIFACT_EXPIRY_CLASSES, artifactFolder } from './artifact-plan.js';
import { saveUrlSeconds } from './cache-plan.js';
import type { CacheStore } from './cache-store.js';
import { summarizeTests, testCounts, type ReportFile } from './junit-report.js';
import { signUrl, type UrlSigner } from './step-urls.js';

/** The step's Secret key of the bundle's URL. */
export const REPORTS_SECRET_KEY = 'TEST_REPORTS';

export interface StepReportsRun {
  step: Pick<Step, 'name' | 'reports'>;
  build: { id: string; repository?: string | undefined };
  attempt?: number | undefined;
  redrive?: number | undefined;
}

/** Where the pod sends the bundle. */
export function reportBundleKey({ step, build, attempt, redrive }: StepReportsRun): string {
  const folder = artifactFolder({ expireInDays: ARTIFACT_EXPIRY_CLASSES[0], repository: build.repository, buildId: build.id, step: step.name });
  return `${folder}test-reports-r${redrive ?? 0}-a${attempt ?? 0}.gz`;
}

export interface StepReportsPlan {
  reports: PodReports;
  urls: Record<string, string>;
  signing: Record<string, UrlSigning>;
  /** For the step's log. */
  note: string;
}

export async function planStepReports(run: StepReportsRun & { step: Pick<Step, 'timeoutSeconds'> }, store: UrlSigner): Promise<StepReportsPlan | undefined> {
  const junit = run.step.reports?.junit ?? [];
  if (junit.length === 0) return undefined;
  const signing: UrlSigning = { how: 'put', object: reportBundleKey(run), seconds: saveUrlSeconds(run.step.timeoutSeconds) };
  return {
    reports: { junit, secretKey: REPORTS_SECRET_KEY },
    urls: { [REPORTS_SECRET_KEY]: await signUrl(store, signing) },
    signing: { [REPORTS_SECRET_KEY]: signing },
    note: `test reports (${junit.join(', ')}): read once the commands end, whether they succeed or fail`,
  };
}

/** The bundle's bytes read at most: the pod sends at most MAX_REPORTS_TOTAL_BYTES, and gzip only makes it smaller. */
const MAX_BUNDLE_BYTES = 16 * 1024 * 1024;

/**
 * The step's summary, and the lines its log gets (the counts, each problem). Undefined: the step
 * has no reports. No bundle (the pod never got that far, or the upload failed) is a summary of
 * nothing with that problem.
 */
export async function readStepReports(run: StepReportsRun, store: Pick<CacheStore, 'download' | 'locationOf'>): Promise<{ summary: TestSummary; lines: string[] } | undefined> {
  if (!run.step.reports || run.step.reports.junit.length === 0) return undefined;
  const key = reportBundleKey(run);
  const read = await bundleBytes(store, key);
  const { files, unmatched, problem } = read.ok ? bundleFiles(read.bytes) : { files: [], unmatched: [], problem: read.problem };
  const summary = summarizeTests(files, unmatched);
  if (problem) summary.problems = [problem, ...(summary.problems ?? [])];
  const lines = [
    `test reports: ${testCounts(summary)}${summary.failures.length < summary.failed ? ` (the first ${summary.failures.length} failures listed)` : ''}`,
    ...(summary.problems ?? []).map((p) => `test reports: ${p}`),
  ];
  return { summary, lines };
}

async function bundleBytes(store: Pick<CacheStore, 'download' | 'locationOf'>, key: string): Promise<{ ok: true; bytes: Buffer } | { ok: false; problem: string }> {
  let object: Awaited<ReturnType<CacheStore['download']>>;
  try {
    object = await store.download(key);
  } catch (error) {
    return { ok: false, problem: `the reports the pod sent (${store.locationOf(key)}) could not be read: ${(error as Error).message}` };
  }
  if (!object) return { ok: false, problem: 'the pod sent no reports (its commands never ended, or the upload failed: the step\'s log says which)' };
  if (object.size !== undefined && object.size > MAX_BUNDLE_BYTES) return { ok: false, problem: `the reports the pod sent are ${object.size} bytes, more than the ${MAX_BUNDLE_BYTES} read` };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of object.body) {
    size += chunk.length;
    if (size > MAX_BUNDLE_BYTES) return { ok: false, problem: `the reports the pod sent are more than the ${MAX_BUNDLE_BYTES} bytes read` };
    chunks.push(Buffer.from(chunk));
  }
  return { ok: true, bytes: Buffer.concat(chunks) };
}

function bundleFiles(bytes: Buffer): { files: ReportFile[]; unmatched: string[]; problem?: string } {
  const bundle = parseReportBundle(bytes);
  if (!bundle.ok) return { files: [], unmatched: [], problem: bundle.problem };
  const files: ReportFile[] = [];
  const unmatched: string[] = [];
  for (const record of bundle.records) {
    if (record.kind === 'unmatched') unmatched.push(record.glob);
    else if (record.kind === 'file') files.push({ path: record.path, text: record.text });
    else files.push({ path: record.path, problem: `${record.path} was not read: ${record.kind === 'too-big' ? `${record.bytes} bytes, more than a report may be` : 'past the most files or bytes a step\'s reports may be'}` });
  }
  return { files, unmatched };
}
