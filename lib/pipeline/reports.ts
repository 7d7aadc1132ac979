/**
 * A step's `reports: {junit: [globs]}` (issue 41): the JUnit XML files its commands write, read
 * once they end, whether they succeeded or failed, into the step's test summary. Pure, like
 * schema.ts: schema.ts hands in how a wrong value is named.
 */
import * as z from 'zod';
import { globSource } from './glob.js';

type Describe = (value: unknown) => string;

/** A report file bigger than this is said, not read (the pod sends none past it: lib/kube/report-scripts.ts). */
export const MAX_REPORT_BYTES = 5 * 1024 * 1024;
/**
 * A step's report files read at most, and their bytes together: the first ones (by path) are read,
 * the rest said. FinishStep parses them all in its 256 MB and 60 s (serverless.yml): 2.3 MB of
 * JUnit XML took about a second and a few tens of MB here, so 5 MB leaves room on a Lambda's
 * fraction of a CPU.
 */
export const MAX_REPORT_FILES = 100;
export const MAX_REPORTS_TOTAL_BYTES = 5 * 1024 * 1024;

/**
 * Why a report glob cannot match files of the workspace, or undefined. Globs as `when.paths`:
 * `*` does not cross `/`, `**` does, `?` is one character, relative to the workspace.
 */
export function reportGlobProblem(glob: string): string | undefined {
  if (glob.trim() === '') return 'a report glob must not be empty';
  if (glob.startsWith('/')) {
    const inside = glob.replace(/^\/workspace\//, '');
    return `"${glob}" is absolute: report globs are relative to the workspace (/workspace), and nothing outside it is read${inside !== glob ? ` (write "${inside}")` : ''}`;
  }
  const segments = glob.split('/');
  if (segments.includes('..')) return `"${glob}" has a ".." segment: reports are read from inside the workspace`;
  if (segments.includes('')) return `"${glob}" has an empty segment ("//"), or ends in "/": name the files, e.g. "reports/*.xml"`;
  if (/[[\]{}]/.test(glob)) return `"${glob}" has [ ] or { }: only *, ** and ? are wildcards here; list each pattern instead`;
  return undefined;
}

export function reportsSchema(describe: Describe) {
  const glob = z
    .string({ error: (issue) => `each report glob must be text (a path or a glob such as "reports/**/*.xml"), not ${describe(issue.input)}` })
    .superRefine((value, ctx) => {
      const problem = reportGlobProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
  return z.strictObject(
    {
      junit: z
        .preprocess(
          (value) => (typeof value === 'string' ? [value] : value),
          z.array(glob, { error: (issue) => (issue.input === undefined ? 'missing: reports need the JUnit XML files to read, e.g. junit: [reports/junit.xml]' : `must be a list of globs of JUnit XML files, not ${describe(issue.input)}`) }),
        )
        .pipe(z.array(z.string()).min(1, { error: 'must list at least one glob of JUnit XML files' })),
    },
    { error: (issue) => `must be a map with junit (a list of globs of JUnit XML files), not ${describe(issue.input)}` },
  );
}

/**
 * The regular expression (POSIX ERE as much as JavaScript's) of a report glob against a path
 * relative to the workspace: glob.ts's rules, and a `**` segment may match no folder at all, as in
 * GitHub Actions' filter patterns (`reports/**` then `*.xml` matches `reports/junit.xml` too).
 */
export function reportGlobSource(glob: string): string {
  return globSource(glob, { emptyGlobstar: true });
}

/** The folder a glob's files are all under (its part before the first wildcard), relative to the workspace; '' for the whole workspace. */
export function reportGlobRoot(glob: string): string {
  const segments = glob.split('/');
  const fixed: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (/[*?]/.test(segment)) break;
    fixed.push(segment);
  }
  return fixed.join('/');
}
