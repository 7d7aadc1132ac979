/**
 * The shell scripts of a step pod's cache containers (cache-containers.ts): the restore init
 * container fetches an entry through its presigned GET URLs and unpacks it into the workspace; the
 * save sidecar waits for the step's hand-over, packs the entry's paths and PUTs them. Pure string
 * generators.
 *
 * Each URL is read from its file in the step's Secret volume (STEP_RUNNER_URLS, one file per
 * Secret key) at the moment it is used, never earlier: PollStep signs the URLs again while the step
 * runs and the kubelet brings the new ones into the volume (lib/workflow/step-urls.ts), so an upload
 * hours after the pod started uses a URL that still works. The kubelet swaps the volume's content
 * at once (its atomic writer renames a `..data` symlink), so a read sees the old URL or the new.
 *
 * POSIX sh with nothing but what the cache image has (curlimages/curl: busybox sh, tar, gzip,
 * sha256sum, head, tail, cut, wc, awk, mkdir, mv, kill, sleep, and curl), so GNU-only flags are
 * out. A cache is a speed-up, never a reason to fail a build: every problem (a miss, an unreadable
 * entry, a checksum mismatch, a PUT that lost the race) is one log line, and neither script exits
 * non-zero because of one.
 *
 * Paths come from the environment when it names them (STEP_RUNNER_WORKSPACE, STEP_RUNNER_SCRATCH,
 * set by the pod manifest to the mount paths), else from the generator's defaults: a runtime that
 * runs containers as host processes maps mount paths in env values, not in scripts.
 *
 * Entry layout (self-describing, immutable): one line
 * `step-runner-cache 1 tar+gzip <sha256 hex of the payload> <payload bytes>`, then the payload, a
 * gzip -1 compressed tar of the entry's paths relative to the workspace.
 */
import { createHash } from 'node:crypto';
import { shellQuote } from './step-script.js';
import { REPORT_FUNCTIONS, sendReportsLines, type ReportScriptPlan } from './report-scripts.js';

/** The workspace and the pod's scratch emptyDir, as the containers see them. */
export interface CacheDirs {
  workspace: string;
  scratch: string;
}

export const DEFAULT_CACHE_DIRS: CacheDirs = { workspace: '/workspace', scratch: '/step-runner' };

/** Where the step's Secret volume is mounted in the cache containers: a file per URL. */
export const DEFAULT_URLS_DIR = '/step-runner-urls';

/** The env variables that, when set, override CacheDirs in the scripts. */
export const CacheDirEnv = {
  workspace: 'STEP_RUNNER_WORKSPACE',
  scratch: 'STEP_RUNNER_SCRATCH',
  /** The Secret volume's directory (DEFAULT_URLS_DIR). */
  urls: 'STEP_RUNNER_URLS',
} as const;

/** The files of the step's hand-over in the scratch directory. */
export const HandOverFiles = {
  /** Written by the step script once its last command succeeded: the save may start. */
  succeeded: 'succeeded',
  /**
   * Written by the step script however its commands ended, with their exit status, when the pod
   * keeps artifacts (after `succeeded` when they succeeded): the artifacts' upload may start.
   */
  ended: 'ended',
  /** Written by the save sidecar once every entry was saved or given up on: the step may exit. */
  saved: 'saved',
  /**
   * What the restore container said, and what the save said: the step's own script prints them
   * (first and last), so they are in the step's log, live and kept, where people read the rest.
   */
  restoreLog: 'restore.log',
  saveLog: 'save.log',
} as const;

/** The entry header's fixed words; the payload's sha256 and size follow. */
export const CACHE_ENTRY_MAGIC = 'step-runner-cache 1 tar+gzip';

/** One entry as a script sees it: the Secret's keys of its URLs (their files' names), never the URLs. */
export interface CacheScriptEntry {
  key: string;
  paths: readonly string[];
  /** Tried in order; the first that restores wins. */
  restore: readonly { label: string; urlKey: string }[];
  save?: { urlKey: string };
  /** Why the entry will not be saved (printed by the restore script). */
  saveSkipped?: string;
  /** It restores, but there is nothing to restore from: why (printed by the restore script as its miss). */
  restoreMiss?: string;
}

/** A step's artifacts as the save script sees them: the Secret's keys of the URLs, the objects' keys for the manifest. */
export interface ArtifactScriptPlan {
  paths: readonly ArtifactScriptPath[];
  manifest: { urlKey: string };
}

export interface ArtifactScriptPath {
  /** As the pipeline names it (`dist/`, `coverage/lcov.info`), relative to the workspace. */
  path: string;
  /** Uploaded as is when the path is a file; absent when the path names a folder (a trailing `/`). */
  file?: { urlKey: string; object: string };
  /** Uploaded as a gzip compressed tar of the folder when the path is one. */
  folder: { urlKey: string; object: string };
}

function dirsPreamble(dirs: CacheDirs): string[] {
  return [
    `workspace=\${${CacheDirEnv.workspace}:-${shellQuote(dirs.workspace)}}`,
    `scratch=\${${CacheDirEnv.scratch}:-${shellQuote(dirs.scratch)}}`,
    `urls=\${${CacheDirEnv.urls}:-${shellQuote(DEFAULT_URLS_DIR)}}`,
  ];
}

/** Shared helpers: sizes people read, seconds since a start, curl's own error words. */
const HELPERS = [
  'cache_size() { awk -v b="$1" \'BEGIN { if (b >= 1048576) printf "%.1f MB", b / 1048576; else if (b >= 1024) printf "%.1f kB", b / 1024; else printf "%d B", b }\'; }',
  'cache_bytes() { n=$(wc -c < "$1" 2>/dev/null) || n=0; echo $((n + 0)); }',
  'cache_since() { echo $(($(date +%s) - $1)); }',
  // The first line that says something (gzip starts its complaint with an empty one), or $2.
  'cache_first() { line=$(grep . "$1" 2>/dev/null | head -n 1); echo "${line:-$2}"; }',
  'cache_err() { cache_first "$scratch/curl-err" "no error message"; }',
  // The URL of a Secret key as the volume holds it now (see above): read where it is used.
  'cache_url() { cat "$urls/$1" 2>/dev/null; }',
];

/**
 * Fetches one candidate into the scratch directory, checks it and unpacks it. Returns 0 when it
 * restored, 1 on a plain miss (404, or 403: S3's answer for a missing key without ListBucket), 2
 * when the candidate was there but unusable (already logged).
 */
const RESTORE_ONE = `cache_restore_one() {
  key=$1; label=$2; entry="$scratch/restore-entry"
  rm -f "$entry"
  code=$(curl -fsS --retry 2 --connect-timeout 10 -o "$entry" -w '%{http_code}' "$(cache_url "$3")" 2>"$scratch/curl-err")
  status=$?
  if [ "$status" -ne 0 ]; then
    rm -f "$entry"
    case $code in 404|403) return 1 ;; esac
    echo "cache $key: $label could not be fetched (HTTP $code: $(cache_err))"
    return 2
  fi
  IFS=' ' read -r magic version format sum bytes rest < "$entry" || true
  if [ "$magic $version $format" != '${CACHE_ENTRY_MAGIC}' ] || [ -n "$rest" ]; then
    rm -f "$entry"
    echo "cache $key: $label unreadable (not a step-runner cache entry of version 1 tar+gzip)"
    return 2
  fi
  case $bytes in ''|*[!0-9]*) rm -f "$entry"; echo "cache $key: $label unreadable (bad size in its header)"; return 2 ;; esac
  header=$(head -n 1 "$entry" | wc -c)
  header=$((header + 0))
  total=$(cache_bytes "$entry")
  if [ $((total - header)) -ne "$bytes" ]; then
    rm -f "$entry"
    echo "cache $key: $label unreadable ($((total - header)) bytes, its header says $bytes)"
    return 2
  fi
  actual=$(tail -c +$((header + 1)) "$entry" | sha256sum | cut -d' ' -f1)
  if [ "$actual" != "$sum" ]; then
    rm -f "$entry"
    echo "cache $key: $label checksum mismatch (sha256 $actual, its header says $sum)"
    return 2
  fi
  # The payload is the one saved (its sha256 matched): a gzip that fails reads a bad entry, a tar
  # that fails with gzip's stream intact could not write into the workspace, which no other
  # candidate would change.
  rm -f "$scratch/gzip-failed"
  if ! tail -c +$((header + 1)) "$entry" | { gzip -d -c 2>"$scratch/gzip-err" || : > "$scratch/gzip-failed"; } | tar -x -o -f - -C "$workspace" 2>"$scratch/tar-err"; then
    rm -f "$entry"
    if [ -e "$scratch/gzip-failed" ]; then
      echo "cache $key: $label unreadable ($(cache_first "$scratch/gzip-err" "gzip failed"))"
      return 2
    fi
    echo "cache $key: $label could not be unpacked into the workspace ($(cache_first "$scratch/tar-err" "tar failed"))"
    return 3
  fi
  rm -f "$entry"
  echo "cache $key: restored from $label ($(cache_size "$bytes"), $(cache_since "$started") s)"
  return 0
}`;

/** How long a restore's heartbeat may stop before a sibling takes its lock away (see RESTORE_LOCKED). */
export const RESTORE_STALE_SECONDS = 60;

/**
 * Steps side by side share the build's workspace, and each one's pod restores its cache before its
 * commands: unpacked at once by several, one entry's files are made over each other (busybox tar
 * unlinks a file and creates it with O_EXCL, so it fails with "File exists" when another tar made
 * it in between), and over files a sibling's commands already use. So an entry is restored into a
 * workspace once: the first pod to make its lock, a directory (mkdir is atomic: "If path names an
 * existing directory, mkdir() shall fail and set errno to [EEXIST]", POSIX mkdir()), restores it
 * and writes `done` with how it went (renamed into place, so a reader sees all of it or nothing);
 * the others wait for `done` and say who restored it. The holder writes a heartbeat (`beat`) every
 * 2 s while it restores: one that stops for RESTORE_STALE_SECONDS, or a lock held by an earlier
 * attempt of this very step (its pod is gone before a retry's starts), was left by a pod that went
 * mid-restore; the first waiter to make `taken` in it moves it away and the lock is made anew.
 * A directory that cannot hold a lock (a workspace it cannot write) leaves each pod restoring as
 * if alone, as before.
 *
 * The locks live in the checkout's `.git` when there is one, where git and the step's tools ignore
 * them, else in `.step-runner-cache` at the workspace's root; they stay with the workspace, so a
 * later step of the build (or its re-run) finds the entry restored and does not unpack it over
 * what the steps before it changed.
 */
const RESTORE_LOCKED = `cache_beat() {
  n=0
  while kill -0 "$1" 2>/dev/null; do n=$((n + 1)); echo "$n" > "$2/beat"; sleep 2; done
}
# 0 once the lock's holder is done (its outcome said); 1 when the lock is to be made again.
cache_await() {
  key=$1; lock=$2; last=; moved=$(date +%s); said=no
  while [ ! -f "$lock/done" ]; do
    [ -d "$lock" ] || return 1
    by=$(cat "$lock/by" 2>/dev/null)
    mine=no; if [ -n "$step" ] && [ "$by" = "$step" ]; then mine=yes; fi
    if [ "$said" = no ] && [ -n "$by" ] && [ "$mine" = no ]; then echo "cache $key: step \\"$by\\" is restoring it into this workspace; waiting for it"; said=yes; fi
    beat=$(cat "$lock/beat" 2>/dev/null)
    if [ "$beat" != "$last" ]; then last=$beat; moved=$(date +%s); fi
    still=$(($(date +%s) - moved))
    if [ "$mine" = yes ] || [ "$still" -ge ${RESTORE_STALE_SECONDS} ]; then
      # One waiter takes it away (taken); should that one go too, the others do after twice as long.
      if mkdir "$lock/taken" 2>/dev/null || [ "$still" -ge $((2 * ${RESTORE_STALE_SECONDS})) ]; then
        if mv "$lock" "$lock.gone.$$" 2>/dev/null; then
          rm -rf "$lock.gone.$$"
          if [ "$mine" = yes ]; then echo "cache $key: an earlier attempt of this step stopped restoring it; restoring it again"
          else echo "cache $key: step \\"\${by:-another step}\\" stopped restoring it (no sign of it for $still s); restoring it here"; fi
        fi
        return 1
      fi
    fi
    sleep 0.2 2>/dev/null || sleep 1
  done
  by=$(cat "$lock/by" 2>/dev/null); outcome=$(cat "$lock/done" 2>/dev/null)
  case $outcome in
    'restored from '*) echo "cache $key: restored into this workspace by step \\"$by\\" (\${outcome#restored }; waited $(cache_since "$started") s)" ;;
    miss) echo "cache $key: miss (step \\"$by\\" found nothing to restore into this workspace)" ;;
    *) echo "cache $key: not restored again: step \\"$by\\" $outcome" ;;
  esac
  return 0
}
cache_restore_entry() {
  key=$1; lock=$locks/$2; missed=$3; shift 3
  started=$(date +%s)
  mkdir -p "$locks" 2>/dev/null
  while ! mkdir "$lock" 2>/dev/null; do
    if [ ! -d "$lock" ]; then lock=; break; fi
    cache_await "$key" "$lock" && return 0
  done
  if [ -n "$lock" ]; then
    echo "$step" > "$lock/by"
    cache_beat "$$" "$lock" >/dev/null 2>&1 &
    beat_pid=$!
  fi
  outcome=
  while [ "$#" -gt 0 ]; do
    cache_restore_one "$key" "$1" "$2"
    case $? in
      0) outcome="restored from $1"; break ;;
      3) outcome="could not unpack $1 into it"; break ;;
    esac
    shift 2
  done
  if [ -z "$outcome" ]; then echo "cache $key: miss ($missed)"; outcome=miss; fi
  if [ -n "$lock" ]; then
    kill "$beat_pid" 2>/dev/null; wait "$beat_pid" 2>/dev/null
    echo "$outcome" > "$lock/done.new" && mv "$lock/done.new" "$lock/done"
  fi
  return 0
}`;

/** The lock directory of one entry: the same key and paths are the same files. */
function restoreLockName(entry: CacheScriptEntry): string {
  return `restore-${createHash('sha256').update(JSON.stringify([entry.key, entry.paths])).digest('hex').slice(0, 16)}`;
}

/**
 * The restore init container's script: every entry's candidates in order, one outcome line each,
 * each entry restored into the workspace once however many pods restore it (RESTORE_LOCKED).
 * `step`: the step's name, which the others' lines name.
 */
export function cacheRestoreScript(entries: readonly CacheScriptEntry[], dirs: CacheDirs = DEFAULT_CACHE_DIRS, step = ''): string {
  const lines = [
    ...dirsPreamble(dirs),
    `step=${shellQuote(step)}`,
    'if [ -d "$workspace/.git" ]; then locks="$workspace/.git/step-runner-cache"; else locks="$workspace/.step-runner-cache"; fi',
    ...HELPERS,
    RESTORE_ONE,
    RESTORE_LOCKED,
    'cache_restore_all() {',
  ];
  for (const entry of entries) {
    const key = shellQuote(entry.key);
    if (entry.restore.length > 0) {
      const tried = `tried ${entry.restore.map((c) => c.label).join(', ')}`;
      const candidates = entry.restore.map((c) => `${shellQuote(c.label)} ${shellQuote(c.urlKey)}`).join(' ');
      lines.push(`cache_restore_entry ${key} ${restoreLockName(entry)} ${shellQuote(tried)} ${candidates}`);
    }
    // Nothing to restore still takes the lock, as a miss: the entry this step then saves is what a
    // later step of the build would find, and unpacking it over the files this step left is what
    // the lock is for (a later step says the miss instead, and leaves the workspace as it is).
    if (entry.restore.length === 0 && entry.restoreMiss) lines.push(`cache_restore_entry ${key} ${restoreLockName(entry)} ${shellQuote(entry.restoreMiss)}`);
    if (entry.saveSkipped) lines.push(`echo ${shellQuote(`cache ${entry.key}: will not be saved: ${entry.saveSkipped}`)}`);
  }
  lines.push(':', '}', `cache_restore_all 2>&1 | tee -a "$scratch/${HandOverFiles.restoreLog}"`, 'exit 0');
  return `${lines.join('\n')}\n`;
}

/**
 * Packs one entry's existing paths and PUTs it with `If-None-Match: *`: entries are immutable, so a
 * build that saved the same key first keeps its entry (412). `-T` streams the file with its length
 * (S3 refuses chunked uploads to presigned URLs; `--data-binary @file` would read it into memory).
 */
const SAVE_ONE = `cache_save_one() {
  key=$1; url_key=$2; shift 2
  started=$(date +%s)
  # Keeps the paths that exist, in order: each turn takes one off the front, puts it back at the end if it is there.
  for p in "$@"; do
    shift
    if [ -e "$workspace/$p" ] || [ -L "$workspace/$p" ]; then set -- "$@" "$p"; else echo "cache $key: $p does not exist, not saved"; fi
  done
  if [ "$#" -eq 0 ]; then echo "cache $key: none of its paths exist, nothing saved"; return 0; fi
  payload="$scratch/save-payload"; entry="$scratch/save-entry"
  rm -f "$payload" "$entry" "$scratch/tar-failed"
  # The checksum is taken as the payload is written: reading it again would cost a second pass.
  sum=$({ tar -cf - -C "$workspace" -- "$@" 2>"$scratch/tar-err" || : > "$scratch/tar-failed"; } | gzip -1 | tee "$payload" | sha256sum | cut -d' ' -f1)
  if [ -e "$scratch/tar-failed" ]; then
    echo "cache $key: not saved, packing failed ($(cache_first "$scratch/tar-err" "tar failed"))"
    rm -f "$payload"; return 0
  fi
  bytes=$(cache_bytes "$payload")
  printf '%s %s %s\\n' '${CACHE_ENTRY_MAGIC}' "$sum" "$bytes" > "$entry"
  cat "$payload" >> "$entry"
  rm -f "$payload"
  code=$(curl -sS --retry 2 --connect-timeout 10 -o "$scratch/put-response" -w '%{http_code}' -T "$entry" -H 'If-None-Match: *' -H 'Content-Type: application/octet-stream' "$(cache_url "$url_key")" 2>"$scratch/curl-err")
  rm -f "$entry"
  case $code in
    200) echo "cache $key: saved ($(cache_size "$bytes"), $(cache_since "$started") s)" ;;
    412) echo "cache $key: another build saved $key first; kept theirs" ;;
    000) echo "cache $key: not saved, the upload failed ($(cache_err))" ;;
    *) echo "cache $key: not saved, HTTP $code $(sed -n 's/.*<Code>\\([^<]*\\)<\\/Code>.*/\\1/p' "$scratch/put-response" 2>/dev/null | head -n 1)" ;;
  esac
  rm -f "$scratch/put-response"
  return 0
}`;

/**
 * Uploads one artifact: a file as is, a folder as a gzip compressed tar of it (relative to the
 * workspace, so it unpacks as `dist/...`). Each kept one is added to the manifest's list (JSON made
 * by the generator for the path and the object, so no shell quoting reaches the manifest), each
 * path that is not there to the missing. An upload that fails is a line, never a failure.
 */
const KEEP_ONE = `artifact_keep_one() {
  path=$1; path_json=$2; file_key=$3; file_json=$4; folder_key=$5; folder_json=$6
  rel=$path
  while [ "\${rel%/}" != "$rel" ]; do rel=\${rel%/}; done
  if [ ! -e "$workspace/$rel" ]; then
    echo "artifact $path: does not exist, not kept"
    artifacts_missing="$artifacts_missing\${artifacts_missing:+,}$path_json"
    return 0
  fi
  if [ -d "$workspace/$rel" ]; then
    url_key=$folder_key; object_json=$folder_json; upload="$scratch/artifact-upload"
    rm -f "$upload" "$scratch/tar-failed"
    { tar -cf - -C "$workspace" -- "$rel" 2>"$scratch/tar-err" || : > "$scratch/tar-failed"; } | gzip > "$upload"
    if [ -e "$scratch/tar-failed" ]; then
      echo "artifact $path: not kept, packing failed ($(cache_first "$scratch/tar-err" "tar failed"))"
      rm -f "$upload"; return 0
    fi
  elif [ -z "$file_key" ]; then
    echo "artifact $path: not kept, it is a file, not the folder its / names"
    return 0
  else
    url_key=$file_key; object_json=$file_json; upload="$workspace/$rel"
  fi
  sum=$(sha256sum < "$upload" | cut -d' ' -f1)
  bytes=$(cache_bytes "$upload")
  code=$(curl -sS --retry 2 --connect-timeout 10 -o "$scratch/put-response" -w '%{http_code}' -T "$upload" -H 'Content-Type: application/octet-stream' "$(cache_url "$url_key")" 2>"$scratch/curl-err")
  rm -f "$scratch/artifact-upload"
  case $code in
    200)
      echo "artifact $path: kept ($(cache_size "$bytes"), sha256 $(echo "$sum" | cut -c1-12)…)"
      artifacts_kept="$artifacts_kept\${artifacts_kept:+,}{\\"path\\":$path_json,\\"object\\":$object_json,\\"size\\":$bytes,\\"sha256\\":\\"$sum\\"}"
      ;;
    000) echo "artifact $path: not kept, the upload failed ($(cache_err))" ;;
    *) echo "artifact $path: not kept, HTTP $code $(sed -n 's/.*<Code>\\([^<]*\\)<\\/Code>.*/\\1/p' "$scratch/put-response" 2>/dev/null | head -n 1)" ;;
  esac
  rm -f "$scratch/put-response"
  return 0
}`;

/** Every artifact, then the manifest: in one function, since the pipe into tee runs it in a subshell of its own. */
function keepArtifactsLines(artifacts: ArtifactScriptPlan): string[] {
  const json = (value: string) => shellQuote(JSON.stringify(value));
  const lines = ['artifacts_kept=; artifacts_missing='];
  for (const artifact of artifacts.paths) {
    const file = artifact.file ? `${shellQuote(artifact.file.urlKey)} ${json(artifact.file.object)}` : "'' ''";
    lines.push(`artifact_keep_one ${shellQuote(artifact.path)} ${json(artifact.path)} ${file} ${shellQuote(artifact.folder.urlKey)} ${json(artifact.folder.object)}`);
  }
  lines.push(
    `printf '{"artifacts":[%s],"missing":[%s]}\\n' "$artifacts_kept" "$artifacts_missing" > "$scratch/artifact-manifest"`,
    `code=$(curl -sS --retry 2 --connect-timeout 10 -o /dev/null -w '%{http_code}' -T "$scratch/artifact-manifest" -H 'Content-Type: application/json' "$(cache_url ${shellQuote(artifacts.manifest.urlKey)})" 2>"$scratch/curl-err")`,
    'rm -f "$scratch/artifact-manifest"',
    `case $code in 200) ;; 000) echo "artifacts: the manifest was not kept, the upload failed ($(cache_err))" ;; *) echo "artifacts: the manifest was not kept, HTTP $code" ;; esac`,
  );
  return lines;
}

/**
 * The save sidecar's script: waits for the step's `succeeded`, saves every entry that has a save
 * URL, writes `saved`, then idles until the kubelet stops it (a native sidecar that exits is
 * restarted, and would save again). A failed step never writes `succeeded`: nothing is saved.
 *
 * With artifacts or test reports, it waits for `succeeded` or `ended` (the step writes `ended`
 * however it ended), saves the cache only after `succeeded`, and keeps the artifacts and sends the
 * reports (report-scripts.ts) either way.
 */
export function cacheSaveScript(entries: readonly CacheScriptEntry[], dirs: CacheDirs = DEFAULT_CACHE_DIRS, artifacts?: ArtifactScriptPlan, reports?: ReportScriptPlan): string {
  const always = artifacts !== undefined || reports !== undefined;
  const waitFor = always
    ? `while [ ! -e "$scratch/${HandOverFiles.succeeded}" ] && [ ! -e "$scratch/${HandOverFiles.ended}" ]; do sleep 0.2 2>/dev/null || sleep 1; done`
    : `while [ ! -e "$scratch/${HandOverFiles.succeeded}" ]; do sleep 0.2 2>/dev/null || sleep 1; done`;
  const lines = [
    // Stopped by the kubelet at the pod's end: exit 0, and take the idle sleep along (no orphan).
    `trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM INT`,
    'sleeper=',
    ...dirsPreamble(dirs),
    ...HELPERS,
    SAVE_ONE,
    ...(artifacts ? [KEEP_ONE] : []),
    ...(reports ? [REPORT_FUNCTIONS] : []),
    // busybox and GNU sleep take fractions; a sleep that does not still waits, a second at a time.
    waitFor,
  ];
  lines.push('cache_save_all() {');
  const saves = entries.filter((entry) => entry.save);
  // With artifacts or reports the step may have failed: its cache is saved only after `succeeded`.
  if (always && saves.length > 0) lines.push(`if [ -e "$scratch/${HandOverFiles.succeeded}" ]; then`);
  for (const entry of saves) {
    lines.push(`cache_save_one ${shellQuote(entry.key)} ${shellQuote(entry.save!.urlKey)} ${entry.paths.map(shellQuote).join(' ')}`);
  }
  if (always && saves.length > 0) lines.push('fi');
  if (artifacts) lines.push(...keepArtifactsLines(artifacts));
  if (reports) lines.push(...sendReportsLines(reports));
  lines.push(':', '}', `cache_save_all 2>&1 | tee -a "$scratch/${HandOverFiles.saveLog}"`);
  lines.push(`: > "$scratch/${HandOverFiles.saved}"`);
  // Nothing more to say: the shell's own "Terminated" for the idle sleep it kills on TERM is noise.
  lines.push('exec 2>/dev/null', 'while :; do sleep 3600 & sleeper=$!; wait "$sleeper"; done');
  return `${lines.join('\n')}\n`;
}
