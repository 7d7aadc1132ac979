/**
 * Objects on disk, so a second `run` finds what the first saved. Each object is a data file and a
 * sidecar JSON (key, size, ETag, Last-Modified, Content-Type); both are named from the key's
 * sha256, so any key (slashes, `..`, 1024 bytes of UTF-8) makes a safe, short file name. Renaming
 * the sidecar into place is the commit: a crash leaves either the old object or the new one, and
 * data files no sidecar names are removed when the store opens. One process owns a directory.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { KeyLock } from './key-lock.js';
import { s3Errors } from './s3-errors.js';

/** What HEAD, GET and the listing tell about an object. */
export interface ObjectInfo {
  key: string;
  size: number;
  /** md5 hex in double quotes, as S3 gives it for a single-part upload. */
  etag: string;
  /** ms since the epoch. */
  lastModified: number;
  contentType: string;
}

interface StoredObject extends ObjectInfo {
  /** The data file's name, next to the sidecar. */
  data: string;
}

/** A body already written to a temporary file in this store, waiting to become an object. */
export interface IncomingBody {
  file: string;
  size: number;
  etag: string;
}

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function isBucketName(name: string): boolean {
  return BUCKET_NAME.test(name);
}

/** S3 lists keys in UTF-8 byte order, which JavaScript's UTF-16 order is not past U+FFFF. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function fileStem(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

export class ObjectStore {
  private readonly buckets = new Map<string, Map<string, StoredObject>>();
  private readonly lock = new KeyLock();

  private constructor(private readonly dir: string) {}

  /** Opens (or makes) the store in `dir`, reading every bucket's sidecars. */
  static async open(dir: string): Promise<ObjectStore> {
    const store = new ObjectStore(dir);
    await rm(store.incomingDir, { recursive: true, force: true });
    await mkdir(store.incomingDir, { recursive: true });
    await mkdir(path.join(dir, 'buckets'), { recursive: true });
    for (const entry of await readdir(path.join(dir, 'buckets'), { withFileTypes: true })) {
      if (entry.isDirectory() && isBucketName(entry.name)) store.buckets.set(entry.name, await store.load(entry.name));
    }
    return store;
  }

  private get incomingDir(): string {
    return path.join(this.dir, 'incoming');
  }

  private bucketDir(bucket: string): string {
    return path.join(this.dir, 'buckets', bucket);
  }

  private async load(bucket: string): Promise<Map<string, StoredObject>> {
    const dir = this.bucketDir(bucket);
    const objects = new Map<string, StoredObject>();
    const names = await readdir(dir);
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const stored = JSON.parse(await readFile(path.join(dir, name), 'utf8')) as StoredObject;
      objects.set(stored.key, stored);
    }
    const referenced = new Set([...objects.values()].map((o) => o.data));
    for (const name of names) {
      if (!name.endsWith('.json') && !referenced.has(name)) await rm(path.join(dir, name), { force: true });
    }
    return objects;
  }

  hasBucket(bucket: string): boolean {
    return this.buckets.has(bucket);
  }

  async createBucket(bucket: string): Promise<void> {
    if (!isBucketName(bucket)) throw s3Errors.invalidBucketName(bucket);
    if (this.buckets.has(bucket)) return;
    await mkdir(this.bucketDir(bucket), { recursive: true });
    this.buckets.set(bucket, new Map());
  }

  private objects(bucket: string): Map<string, StoredObject> {
    const objects = this.buckets.get(bucket);
    if (!objects) throw s3Errors.noSuchBucket(bucket);
    return objects;
  }

  head(bucket: string, key: string): ObjectInfo | undefined {
    const stored = this.objects(bucket).get(key);
    return stored && info(stored);
  }

  /** The object and its data opened for reading (the caller closes it), or undefined. */
  async openObject(bucket: string, key: string): Promise<{ info: ObjectInfo; file: FileHandle } | undefined> {
    // An overwrite may remove the data file between the look-up and the open: look again then.
    for (let attempt = 0; attempt < 3; attempt++) {
      const stored = this.objects(bucket).get(key);
      if (!stored) return undefined;
      try {
        return { info: info(stored), file: await open(path.join(this.bucketDir(bucket), stored.data), 'r') };
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    return undefined;
  }

  /** Every object in the bucket in S3's key order. */
  list(bucket: string): ObjectInfo[] {
    return [...this.objects(bucket).values()].map(info).sort((a, b) => compareKeys(a.key, b.key));
  }

  /** A fresh file name to stream a body into; `put` or `discard` it afterwards. */
  incomingFile(): string {
    return path.join(this.incomingDir, randomUUID());
  }

  async discard(file: string): Promise<void> {
    await rm(file, { force: true });
  }

  /**
   * Makes the body the object at `key`. With `ifNoneMatch`, an existing key is decided under the
   * key's lock, so of two racing conditional puts exactly one wins and the other gets 412.
   */
  async put(bucket: string, key: string, body: IncomingBody, options: { contentType: string; ifNoneMatch: boolean; ifMatch?: string; now: number }): Promise<ObjectInfo> {
    const objects = this.objects(bucket);
    return this.lock.run(`${bucket}/${key}`, async () => {
      if (options.ifNoneMatch && objects.has(key)) {
        await this.discard(body.file);
        throw s3Errors.preconditionFailed();
      }
      // If-Match, decided under the lock too: of two replaces of one ETag, one wins, the other gets 412.
      if (options.ifMatch !== undefined) {
        const current = objects.get(key);
        if (!current || !sameEtag(current.etag, options.ifMatch)) {
          await this.discard(body.file);
          throw current ? s3Errors.preconditionFailed('If-Match') : s3Errors.noSuchKey(key);
        }
      }
      const dir = this.bucketDir(bucket);
      const stem = fileStem(key);
      const stored: StoredObject = {
        key,
        size: body.size,
        etag: body.etag,
        lastModified: options.now,
        contentType: options.contentType,
        data: `${stem}.${randomUUID()}.data`,
      };
      await rename(body.file, path.join(dir, stored.data));
      const sidecarTemp = path.join(dir, `${stem}.${randomUUID()}.tmp`);
      await writeFile(sidecarTemp, JSON.stringify(stored));
      await rename(sidecarTemp, path.join(dir, `${stem}.json`));
      const previous = objects.get(key);
      objects.set(key, stored);
      if (previous) await rm(path.join(dir, previous.data), { force: true });
      return info(stored);
    });
  }

  /** Removes the object; a missing key is no error (S3 answers 204 either way). */
  async delete(bucket: string, key: string): Promise<void> {
    const objects = this.objects(bucket);
    await this.lock.run(`${bucket}/${key}`, async () => {
      const stored = objects.get(key);
      if (!stored) return;
      const dir = this.bucketDir(bucket);
      try {
        await unlink(path.join(dir, `${fileStem(key)}.json`));
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
      objects.delete(key);
      await rm(path.join(dir, stored.data), { force: true });
    });
  }

  bucketNames(): string[] {
    return [...this.buckets.keys()];
  }
}

/** ETags compared as S3 compares If-Match's: with or without their quotes. */
export function sameEtag(a: string, b: string): boolean {
  return a.replace(/"/g, '') === b.trim().replace(/"/g, '');
}

function info({ key, size, etag, lastModified, contentType }: StoredObject): ObjectInfo {
  return { key, size, etag, lastModified, contentType };
}
