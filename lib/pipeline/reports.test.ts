/** `reports:` in a pipeline file: how it reads, each refusal with its line, and its globs as the pod matches them. */
import { reportGlobRoot, reportGlobSource } from './reports.js';
import { readPipelineText as read, pipelineTextProblems as problems } from '../../test/fixtures/pipeline-text.js';

const file = (reports: string, more = '') => `version: 1
steps:
  - name: test
    image: node:22-alpine
    commands: [npm test]
${reports}${more}`;

describe('reports in the normal form', () => {
  it.each([
    ['a list', '    reports:\n      junit: [reports/junit.xml, "**/TEST-*.xml"]\n', ['reports/junit.xml', '**/TEST-*.xml']],
    ['one glob as a list of one', '    reports:\n      junit: reports/junit.xml\n', ['reports/junit.xml']],
  ])('%s', (_what, reports, junit) => {
    expect(read(file(reports)).steps[0]?.reports).toEqual({ junit });
  });

  it('is absent from a step without it', () => {
    expect(read(file('')).steps[0]?.reports).toBeUndefined();
  });
});

describe('reports refused, with the line', () => {
  it.each<[string, string, string, number]>([
    ['an absolute path', '    reports:\n      junit: [/workspace/reports/junit.xml]\n', 'reports.junit[0]: "/workspace/reports/junit.xml" is absolute: report globs are relative to the workspace (/workspace), and nothing outside it is read (write "reports/junit.xml")', 7],
    ['a .. segment', '    reports:\n      junit: ["../junit.xml"]\n', 'reports.junit[0]: "../junit.xml" has a ".." segment: reports are read from inside the workspace', 7],
    ['a folder', '    reports:\n      junit: [reports/]\n', 'reports.junit[0]: "reports/" has an empty segment ("//"), or ends in "/": name the files, e.g. "reports/*.xml"', 7],
    ['braces', '    reports:\n      junit: ["reports/{a,b}.xml"]\n', 'reports.junit[0]: "reports/{a,b}.xml" has [ ] or { }: only *, ** and ? are wildcards here; list each pattern instead', 7],
    ['no globs', '    reports:\n      junit: []\n', 'reports.junit: must list at least one glob of JUnit XML files', 7],
    ['no junit', '    reports: {}\n', 'reports.junit: missing: reports need the JUnit XML files to read, e.g. junit: [reports/junit.xml]', 6],
    ['a misspelt key', '    reports:\n      junt: [a.xml]\n', 'unknown field "junt" (did you mean "junit"?)', 7],
    ['a list instead of a map', '    reports: [a.xml]\n', 'reports: must be a map with junit (a list of globs of JUnit XML files), not a list', 6],
  ])('%s', (_what, reports, message, line) => {
    expect(problems(file(reports))).toEqual([{ message: `ci.yml line ${line}: step "test": ${message}`, line }]);
  });

  it('on a build step, which runs no tests of its own', () => {
    const text = `version: 1
steps:
  - name: image
    build: {push: false}
    reports:
      junit: [a.xml]
`;
    expect(problems(text)).toEqual([{ message: 'ci.yml line 5: step "image": reports: is not for a build step: its builder runs no tests whose reports a step reads (run them in a step of their own)', line: 5 }]);
  });
});

describe('a report glob against workspace paths', () => {
  it.each<[string, string[], string[], string]>([
    ['reports/junit.xml', ['reports/junit.xml'], ['reports/junit.xml.bak', 'x/reports/junit.xml', 'reportsXjunit.xml'], 'reports'],
    ['reports/*.xml', ['reports/a.xml'], ['reports/a/b.xml', 'reports/a.xmlx'], 'reports'],
    ['**/TEST-*.xml', ['TEST-a.xml', 'mod/target/surefire-reports/TEST-a.B.xml'], ['TEST-a.xml.txt', 'mod/TEST/a.xml'], ''],
    ['reports/**/*.xml', ['reports/a.xml', 'reports/x/y/a.xml'], ['other/a.xml'], 'reports'],
    ['pkg/*/junit-?.xml', ['pkg/a/junit-1.xml'], ['pkg/a/junit-12.xml', 'pkg/a/b/junit-1.xml'], 'pkg'],
  ])('%s', (glob, matching, notMatching, root) => {
    const pattern = new RegExp(reportGlobSource(glob));
    expect(matching.filter((path) => !pattern.test(path))).toEqual([]);
    expect(notMatching.filter((path) => pattern.test(path))).toEqual([]);
    expect(reportGlobRoot(glob)).toBe(root);
  });
});
