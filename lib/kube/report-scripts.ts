/**
 * A step's test reports (`reports: {junit: [...]}`), sent by the save sidecar once the step's
 * commands end, whether they succeeded or failed, as its artifacts are (cache-scripts.ts): the
 * files each glob matches in the workspace, in one gzip compressed bundle PUT to a presigned URL,
 * which FinishStep reads (lib/workflow/step-reports.ts). The bundle, not the files one by one: a
 * glob's files are only known once the step has run, long after LaunchStep signed the URLs.
 *
 * Bundle (self-describing, gzip compressed): a line `step-runner-reports 1`, then records, each a
 * line `WORD BYTES NAME`: `file`, followed by the file's BYTES bytes; `too-big` and `too-many`, the
 * file not sent; `unmatched 0 GLOB`. Paths are relative to the workspace.
 *
 * POSIX sh with what the cache image has (busybox find, sort, awk, wc, gzip, and curl). The
 * search skips `.git` and `node_modules` folders unless the glob names them (a report is never
 * there, and node_modules can hold many thousand files); a path with a newline is not found.
 */
import { gunzipSync } from 'node:zlib';
import { MAX_REPORT_BYTES, MAX_REPORT_FILES, MAX_REPORTS_TOTAL_BYTES, reportGlobRoot, reportGlobSource } from '../pipeline/index.js';
import { shellQuote } from './step-script.js';

export const REPORT_BUNDLE_MAGIC = 'step-runner-reports 1';

/** The reports as the save script sees them: the globs and the Secret's key of the bundle's URL. */
export interface ReportScriptPlan {
  junit: readonly string[];
  urlKey: string;
}

/** Defines reports_find and reports_send; cache-scripts.ts's helpers (cache_bytes, cache_size, cache_url, cache_err) are in scope. */
export const REPORT_FUNCTIONS = `reports_find() {
  glob=$1; root=$2
  dir=$workspace\${root:+/$root}
  if [ "$3" = prune ]; then
    n=$( { find "$dir" \\( -name .git -o -name node_modules \\) -prune -o -type f -print 2>/dev/null || :; } | RE=$4 N=$((\${#workspace} + 2)) awk '{ p = substr($0, ENVIRON["N"]) } p ~ ENVIRON["RE"] { print p }' | tee -a "$scratch/report-list" | wc -l)
  else
    n=$( { find "$dir" -type f -print 2>/dev/null || :; } | RE=$4 N=$((\${#workspace} + 2)) awk '{ p = substr($0, ENVIRON["N"]) } p ~ ENVIRON["RE"] { print p }' | tee -a "$scratch/report-list" | wc -l)
  fi
  if [ "$n" -eq 0 ]; then
    echo "reports: no file matches $glob"
    printf 'unmatched 0 %s\\n' "$glob" >> "$scratch/report-bundle"
  fi
  return 0
}
reports_send() {
  url_key=$1; count=0; total=0
  sort -u "$scratch/report-list" > "$scratch/report-files"
  while IFS= read -r rel; do
    [ -f "$workspace/$rel" ] || continue
    bytes=$(cache_bytes "$workspace/$rel")
    if [ "$bytes" -gt ${MAX_REPORT_BYTES} ]; then
      echo "report $rel: not read, $(cache_size "$bytes") (at most $(cache_size ${MAX_REPORT_BYTES}) a file)"
      printf 'too-big %s %s\\n' "$bytes" "$rel" >> "$scratch/report-bundle"
    elif [ "$count" -ge ${MAX_REPORT_FILES} ] || [ $((total + bytes)) -gt ${MAX_REPORTS_TOTAL_BYTES} ]; then
      echo "report $rel: not read, past the ${MAX_REPORT_FILES} files or $(cache_size ${MAX_REPORTS_TOTAL_BYTES}) read of a step"
      printf 'too-many %s %s\\n' "$bytes" "$rel" >> "$scratch/report-bundle"
    else
      printf 'file %s %s\\n' "$bytes" "$rel" >> "$scratch/report-bundle"
      head -c "$bytes" "$workspace/$rel" >> "$scratch/report-bundle"
      count=$((count + 1)); total=$((total + bytes))
      echo "report $rel: $(cache_size "$bytes")"
    fi
  done < "$scratch/report-files"
  gzip -c "$scratch/report-bundle" > "$scratch/report-bundle.gz"
  code=$(curl -sS --retry 2 --connect-timeout 10 -o /dev/null -w '%{http_code}' -T "$scratch/report-bundle.gz" -H 'Content-Type: application/gzip' "$(cache_url "$url_key")" 2>"$scratch/curl-err")
  case $code in
    200) ;;
    000) echo "reports: not sent, the upload failed ($(cache_err))" ;;
    *) echo "reports: not sent, HTTP $code" ;;
  esac
  rm -f "$scratch/report-list" "$scratch/report-files" "$scratch/report-bundle" "$scratch/report-bundle.gz"
  return 0
}`;

/** The lines that find every glob's files and send them, in the save script's function. */
export function sendReportsLines(plan: ReportScriptPlan): string[] {
  const lines = [`printf '%s\\n' ${shellQuote(REPORT_BUNDLE_MAGIC)} > "$scratch/report-bundle"`, ': > "$scratch/report-list"'];
  for (const glob of plan.junit) {
    const prune = /(^|\/)(\.git|node_modules)(\/|$)/.test(glob) ? 'all' : 'prune';
    lines.push(`reports_find ${shellQuote(glob)} ${shellQuote(reportGlobRoot(glob))} ${prune} ${shellQuote(reportGlobSource(glob))}`);
  }
  lines.push(`reports_send ${shellQuote(plan.urlKey)}`);
  return lines;
}

/** One record of a bundle. */
export type ReportRecord =
  | { kind: 'file'; path: string; text: string }
  | { kind: 'too-big' | 'too-many'; path: string; bytes: number }
  | { kind: 'unmatched'; glob: string };

/**
 * A bundle's records, in order, or why it is none (not gzip, another format, cut short). A file's
 * bytes are read as UTF-8 (XML's default encoding; the reporters read here write UTF-8).
 */
export function parseReportBundle(gzipped: Uint8Array, maxBytes = MAX_REPORTS_TOTAL_BYTES + 1024 * 1024): { ok: true; records: ReportRecord[] } | { ok: false; problem: string } {
  let bytes: Buffer;
  try {
    bytes = gunzipSync(gzipped, { maxOutputLength: maxBytes });
  } catch (error) {
    return { ok: false, problem: `the reports sent are not a gzip stream of at most ${maxBytes} bytes (${(error as Error).message})` };
  }
  let at = 0;
  const line = (): string | undefined => {
    const end = bytes.indexOf(0x0a, at);
    if (end < 0) return undefined;
    const text = bytes.subarray(at, end).toString('utf8');
    at = end + 1;
    return text;
  };
  if (line() !== REPORT_BUNDLE_MAGIC) return { ok: false, problem: `the reports sent do not start with "${REPORT_BUNDLE_MAGIC}"` };
  const records: ReportRecord[] = [];
  while (at < bytes.length) {
    const header = line();
    const match = header === undefined ? null : /^(file|too-big|too-many|unmatched) (\d+) (.*)$/.exec(header);
    if (!match) return { ok: false, problem: `the reports sent are cut short or garbled after ${records.length} records` };
    const [, kind, size, name] = match as unknown as [string, ReportRecord['kind'], string, string];
    if (kind === 'unmatched') {
      records.push({ kind, glob: name });
    } else if (kind === 'file') {
      const length = Number(size);
      if (at + length > bytes.length) return { ok: false, problem: `the reports sent are cut short in ${name}` };
      records.push({ kind, path: name, text: bytes.subarray(at, at + length).toString('utf8') });
      at += length;
    } else {
      records.push({ kind, path: name, bytes: Number(size) });
    }
  }
  return { ok: true, records };
}
