/**
 * Where cache entries and artifacts are kept, as the tasks see it: S3 on AWS (s3-cache-store.ts).
 * The tasks never move an entry's or an artifact's bytes (but the small manifest FinishStep reads): they look entries up and presign URLs, and the step's pod
 * downloads and uploads with them, so it needs no credentials of its own.
 */
import type { SigningCredentials } from './url-renewal.js';

export interface CacheStore {
  /** Whether the object is there. A refusal (no permission) throws rather than answering false. */
  exists(key: string): Promise<boolean>;
  /** The newest object (by last modified) whose key starts with `prefix`, or undefined. */
  newest(prefix: string): Promise<string | undefined>;
  /** A URL that GETs the object for `seconds`. */
  presignGet(key: string, seconds: number): Promise<string>;
  /**
   * A URL that PUTs the object for `seconds`, only if there is none yet: the request must carry
   * `If-None-Match: *` (signed, so whoever holds the URL cannot drop it), and a second save of the
   * same key is refused with 412, so an entry, once written, never changes.
   */
  presignPut(key: string, seconds: number): Promise<string>;
  /**
   * A URL that PUTs the object for `seconds`, unconditionally: for a step's artifacts, whose keys
   * hold the build's id, so no other build writes them.
   */
  presignUpload(key: string, seconds: number): Promise<string>;
  /**
   * What the presign* methods sign with now: whether the credentials are a session's and when they
   * end, when known. Read before signing: the SDK may refresh them in between, never shorten them.
   */
  signingCredentials(): Promise<SigningCredentials>;
  /** The object parsed as JSON; undefined when there is none. Not JSON: a SyntaxError. */
  readJson(key: string): Promise<unknown>;
  /** The object's bytes as a stream, with its length; undefined when there is none. */
  download(key: string): Promise<{ body: AsyncIterable<Uint8Array>; size: number | undefined } | undefined>;
  /** Where the object is, for people and other tools: `s3://bucket/key`. */
  locationOf(key: string): string;
  /**
   * Keeps the clone's key hashes (keyFilesId -> hash) with the build, so the LaunchStep of any
   * later step can read them without them travelling in the execution's state.
   */
  putBuildKeys(buildId: string, keys: Record<string, string>): Promise<void>;
  /** What putBuildKeys kept for the build; `{}` when nothing was. */
  buildKeys(buildId: string): Promise<Record<string, string>>;
}

/**
 * `BUILD/cache-keys.json`, the build id made safe as step log names make it: a key must never
 * climb out of its prefix.
 */
export function buildKeysName(buildId: string): string {
  return `${buildId.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_')}/cache-keys.json`;
}
