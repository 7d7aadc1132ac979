/**
 * JUnit XML test reports, read into a step's TestSummary (pure). The format has no one standard:
 * each reporter writes its own dialect, and these are read as their writers write them:
 * - jest-junit: `<testsuites><testsuite><testcase classname name file?>`, a `<failure>` with the
 *   error and its stack as text and no message attribute; `file` (with `addFileAttribute`) is
 *   relative to jest's rootDir and has no line: the line is the stack's frame in that file.
 * - pytest `--junitxml`: the default family xunit2 has no `file`/`line`; the failure's text ends each
 *   traceback entry with `path.py:LINE: Error`. xunit1 adds `file` and `line`, the line 0-based
 *   (pytest's `location[1]`, src/_pytest/junitxml.py record_testreport; a test whose `def` is on
 *   line 12 says `line="11"`), so 1 is added for a pytest report (a suite named `pytest`).
 * - gotestsum `--junitfile`: `message="Failed"` always, the test's output as the text, where
 *   `t.Error` lines read `\tname_test.go:34: message`, the file relative to the package; the
 *   package is the classname (gotestsum internal/junitxml/report.go), the full import path by
 *   default (`--junitfile-testcase-classname`: full, relative to the module's root, or short).
 * - Maven Surefire: a `<testsuite>` root, `<failure>`/`<error>` with message and type attributes
 *   and the Java stack as text (`at pkg.Class.method(Class.java:13)`); no file attribute, so the
 *   file is the class's source under Maven's standard layout, `src/test/java/pkg/Class.java`, in
 *   the module whose `target/surefire-reports/` holds the report.
 * A file a test names is kept only when it is inside the workspace (relative, or under
 * /workspace, which is taken off): an annotation points at a path of the repository.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { MAX_FAILURE_MESSAGE, MAX_FAILURES, MAX_REPORT_PROBLEMS, testsDuration, type TestFailure, type TestSummary } from '../contract/test-summary.js';

/** Where a step pod's workspace is mounted: absolute paths in reports are under it. */
const WORKSPACE = '/workspace/';

/** One `<testcase>` as read. */
export interface TestCaseResult {
  name: string;
  classname: string;
  status: 'passed' | 'failed' | 'skipped';
  file?: string;
  line?: number;
  message?: string;
}

/** `seconds`: the test cases' `time` added up; absent when none of them has one. */
export type ReadReport = { ok: true; cases: TestCaseResult[]; seconds?: number } | { ok: false; problem: string };

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  // Numeric character references (`&#xA;`, which gotestsum writes for every newline) decoded.
  htmlEntities: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  isArray: (name) => ['testsuites', 'testsuite', 'testcase', 'failure', 'error', 'skipped'].includes(name),
});

type XmlNode = Record<string, unknown>;

/** A report file's test cases, or why it is no JUnit report. `path` is the file's, relative to the workspace. */
export function readJUnitReport(path: string, text: string): ReadReport {
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    const { msg, line } = valid.err;
    // Its words for an unclosed element list the whole stack of open tags.
    if (/^Invalid '\[/.test(msg)) return { ok: false, problem: `${path} is not well-formed XML: it ends before its elements are closed (cut short?)` };
    return { ok: false, problem: `${path} is not well-formed XML (line ${line}: ${msg.replace(/\.$/, '')})` };
  }
  const document = parser.parse(text) as XmlNode;
  const roots = [...nodes(document['testsuites']), ...nodes(document['testsuite'])];
  if (roots.length === 0) return { ok: false, problem: `${path} is XML but no JUnit report (no <testsuites> or <testsuite> at its root)` };
  // pytest's suite is named `pytest` (its junit_suite_name's default), and its root `pytest tests`.
  const pytest = [...roots, ...roots.flatMap((root) => nodes(root['testsuite']))].some((suite) => suite['name'] === 'pytest' || suite['name'] === 'pytest tests');
  const cases: TestCaseResult[] = [];
  let seconds: number | undefined;
  const visit = (suite: XmlNode) => {
    for (const testcase of nodes(suite['testcase'])) {
      cases.push(testCase(testcase, { path, pytest }));
      // Every dialect here writes each case's time in seconds ("0.002", gotestsum "0.000000").
      const time = Number(attr(testcase, 'time') ?? NaN);
      if (Number.isFinite(time) && time >= 0) seconds = (seconds ?? 0) + time;
    }
    // Suites may nest (Surefire's and Ant's formats allow it).
    for (const inner of nodes(suite['testsuite'])) visit(inner);
  };
  for (const root of roots) visit(root);
  return { ok: true, cases, ...(seconds !== undefined ? { seconds } : {}) };
}

function nodes(value: unknown): XmlNode[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  // An empty element with no attributes reads as ''.
  return list.map((item) => (typeof item === 'object' && item !== null ? (item as XmlNode) : { '#text': String(item ?? '') }));
}

function attr(node: XmlNode, name: string): string | undefined {
  const value = node[name];
  return typeof value === 'string' ? value : undefined;
}

function testCase(testcase: XmlNode, report: { path: string; pytest: boolean }): TestCaseResult {
  const name = attr(testcase, 'name') ?? '';
  const classname = attr(testcase, 'classname') ?? '';
  const failure = [...nodes(testcase['failure']), ...nodes(testcase['error'])][0];
  if (!failure) return { name, classname, status: nodes(testcase['skipped']).length > 0 ? 'skipped' : 'passed' };
  const text = attr(failure, '#text') ?? '';
  const place = placeOf(testcase, text, { classname, name, report });
  return { name, classname, status: 'failed', ...place, message: failureMessage(attr(failure, 'message'), text) };
}

/** The failure's message attribute, unless it says nothing (gotestsum's "Failed"), else the text up to its stack. */
export function failureMessage(message: string | undefined, text: string): string {
  const given = message?.trim();
  const words = given && given !== 'Failed' ? given : textMessage(text);
  return cut(words || given || 'failed', MAX_FAILURE_MESSAGE);
}

function textMessage(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  for (const line of lines) {
    // A JavaScript or Java stack starts: the message is above it.
    if (/^\s+at\s/.test(line)) break;
    // go test's own progress lines around a test's output.
    if (/^\s*(=== (RUN|PAUSE|CONT|NAME)|--- (FAIL|PASS|SKIP):)/.test(line)) continue;
    kept.push(line.trim());
  }
  return kept.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

function cut(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** A path inside the workspace, relative to it; undefined for one outside or of a dependency. */
export function workspaceFile(path: string): string | undefined {
  let file = path.trim().replace(/\\/g, '/');
  if (file.startsWith(WORKSPACE)) file = file.slice(WORKSPACE.length);
  else if (file.startsWith('/')) return undefined;
  file = file.replace(/^(\.\/)+/, '');
  const segments = file.split('/');
  if (file === '' || segments.includes('..') || segments.includes('node_modules') || /^[a-z]+:/i.test(file)) return undefined;
  return file;
}

function placeOf(testcase: XmlNode, text: string, at: { classname: string; name: string; report: { path: string; pytest: boolean } }): { file?: string; line?: number } {
  const given = attr(testcase, 'file');
  const givenLine = Number(attr(testcase, 'line'));
  if (given !== undefined) {
    const file = workspaceFile(given);
    if (file && Number.isInteger(givenLine) && givenLine >= 0) return { file, line: at.report.pytest ? givenLine + 1 : Math.max(1, givenLine) };
    // jest-junit's file has no line: its frame in the stack has it. The file is relative to the
    // folder jest ran in (jest-junit index.js: path.relative(process.cwd(), testFilePath)), a
    // package's in a monorepo (`cd web && jest`), where the stack's absolute path names it whole.
    if (file) {
      const frames = stackFrames(text);
      return frames.find((f) => f.file === file) ?? frames.find((f) => f.file.endsWith(`/${file}`)) ?? { file };
    }
  }
  return javaFrame(text, at) ?? goLine(text, at.classname) ?? stackFrames(text)[0] ?? {};
}

/**
 * Source files a stack may point into, by extension: a `host.com:8080` in a message is no file.
 * (Go's are its package's, goLine.)
 */
const SOURCE_EXTENSIONS = new Set(['js', 'jsx', 'mjs', 'cjs', 'ts', 'tsx', 'mts', 'cts', 'vue', 'svelte', 'py', 'rb', 'java', 'kt', 'kts', 'scala', 'groovy', 'cs', 'fs', 'php', 'rs', 'swift', 'c', 'cc', 'cpp', 'h', 'hpp', 'ex', 'exs', 'erl', 'dart', 'lua', 'pl', 'r', 'jl']);

/** `path:LINE` in a JavaScript stack (`(/workspace/src/x.test.js:12:5)`) or a pytest traceback (`tests/test_x.py:13: AssertionError`), inside the workspace. */
function stackFrames(text: string): { file: string; line: number }[] {
  const frames: { file: string; line: number }[] = [];
  for (const match of text.matchAll(/(?:^|[\s(])((?:\/|\.\/)?[\w@.\-/]+\.([A-Za-z]{1,6})):(\d+)(?::\d+)?(?=[):\s]|$)/gm)) {
    if (!SOURCE_EXTENSIONS.has(match[2]!.toLowerCase())) continue;
    const file = workspaceFile(match[1]!);
    const line = Number(match[3]);
    if (file && line > 0) frames.push({ file, line });
  }
  return frames;
}

/**
 * Surefire: the test method's frame (`at pkg.Class.name(Class.java:13)`), else the class's first,
 * as a file of Maven's standard layout in the module the report is in.
 */
function javaFrame(text: string, at: { classname: string; name: string; report: { path: string } }): { file: string; line: number } | undefined {
  if (!at.classname) return undefined;
  const frames = [...text.matchAll(/^\s*at ([\w$.]+)\.([\w$<>]+)\(([\w$]+\.(?:java|kt|groovy|scala)):(\d+)\)/gm)].map((m) => ({ owner: m[1]!, method: m[2]!, source: m[3]!, line: Number(m[4]) }));
  const own = frames.filter((f) => f.owner === at.classname || f.owner.startsWith(`${at.classname}$`));
  const frame = own.find((f) => f.method === at.name.replace(/\(.*$/, '')) ?? own[0];
  if (!frame) return undefined;
  const pkg = at.classname.split('.').slice(0, -1);
  const language = frame.source.replace(/^.*\./, '');
  const module = /^(.*?)(?:^|\/)target\/(?:surefire|failsafe)-reports\//.exec(at.report.path)?.[1] ?? '';
  const file = workspaceFile([module, 'src', 'test', language === 'kt' ? 'kotlin' : language, ...pkg, frame.source].filter(Boolean).join('/'));
  return file ? { file, line: frame.line } : undefined;
}

/** Hosts whose module paths are `host/owner/repo`: a package below is a folder of the repository. */
const GO_HOSTS = new Set(['github.com', 'gitlab.com', 'bitbucket.org']);

/**
 * gotestsum: `\tname_test.go:34: message`, the file in the package's folder: the classname as
 * gotestsum's `relative` format writes it (`internal/stub`, `.` at the root), or a full import
 * path of a `host/owner/repo` module at the repository's root. Any other module path: no file.
 */
function goLine(text: string, classname: string): { file: string; line: number } | undefined {
  const match = /^\s*([\w.-]+\.go):(\d+): /m.exec(text);
  const folder = match ? goPackageFolder(classname) : undefined;
  if (!match || !folder) return undefined;
  const file = workspaceFile([...folder, match[1]!].join('/'));
  return file ? { file, line: Number(match[2]) } : undefined;
}

function goPackageFolder(classname: string): string[] | undefined {
  const segments = classname.split('/').filter((s) => s !== '' && s !== '.');
  if (classname.trim() === '') return undefined;
  if (segments.length === 0) return [];
  // A module path starts with a domain: a dot in its first element.
  if (!segments[0]!.includes('.')) return segments;
  return GO_HOSTS.has(segments[0]!) && segments.length >= 3 ? segments.slice(3) : undefined;
}

/** A report as the step's pod kept it: its text, or why it could not be kept. */
export type ReportFile = { path: string; text: string } | { path: string; problem: string };

/**
 * Every report's tests summed, the first MAX_FAILURES failures listed, and what could not be read
 * (`problems`, with the globs that matched no file).
 */
export function summarizeTests(files: readonly ReportFile[], unmatched: readonly string[] = []): TestSummary {
  const summary: TestSummary = { passed: 0, failed: 0, skipped: 0, failures: [] };
  const problems: string[] = unmatched.map((glob) => `no file matches ${glob}`);
  let seconds: number | undefined;
  for (const file of files) {
    if ('problem' in file) {
      problems.push(file.problem);
      continue;
    }
    const read = readJUnitReport(file.path, file.text);
    if (!read.ok) {
      problems.push(read.problem);
      continue;
    }
    if (read.seconds !== undefined) seconds = (seconds ?? 0) + read.seconds;
    for (const test of read.cases) {
      summary[test.status]++;
      if (test.status === 'failed' && summary.failures.length < MAX_FAILURES) summary.failures.push(failureOf(test));
    }
  }
  if (seconds !== undefined) summary.durationMs = Math.round(seconds * 1000);
  if (problems.length > 0) summary.problems = problems.length > MAX_REPORT_PROBLEMS ? [...problems.slice(0, MAX_REPORT_PROBLEMS - 1), `and ${problems.length - MAX_REPORT_PROBLEMS + 1} more`] : problems;
  return summary;
}

function failureOf(test: TestCaseResult): TestFailure {
  return {
    name: cut(test.name, 300),
    classname: cut(test.classname, 300),
    ...(test.file !== undefined ? { file: test.file } : {}),
    ...(test.line !== undefined ? { line: test.line } : {}),
    message: test.message ?? 'failed',
  };
}

/** `3 passed, 1 failed, 1 skipped (105 ms)`, for log lines and the views. */
export function testCounts(summary: Pick<TestSummary, 'passed' | 'failed' | 'skipped' | 'durationMs'>): string {
  return `${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped${summary.durationMs !== undefined ? ` (${testsDuration(summary.durationMs)})` : ''}`;
}
