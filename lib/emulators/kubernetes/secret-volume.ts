/**
 * A pod's secret volume as the kubelet makes and keeps it: a directory with a file per key of the
 * Secret, written as kubernetes/kubernetes pkg/volume/util/atomic_writer.go writes it (the content
 * in a timestamped `..YYYY_MM_DD_hh_mm_ss.N` directory, the `..data` symlink renamed onto it, and a
 * `KEY -> ..data/KEY` symlink per key), so a reader sees the whole old content or the whole new,
 * never a mix; the files mode 0644 (SecretVolumeSource.defaultMode's default).
 *
 * Kept current while the pod runs: "When a volume contains data from a Secret, and that Secret is
 * updated, Kubernetes tracks this and updates the data in the volume, using an eventually-consistent
 * approach" (Kubernetes docs, Secrets, "Mounted Secrets are updated automatically"), up to "the
 * kubelet sync period + cache propagation delay" later: syncFrequency (1 minute by default) on EKS.
 * Here the volume is written as soon as the Secret changes, the soonest a kubelet can; a subPath
 * mount of it gets no updates on a real node, and none here either, as its path is fixed at start.
 */
import { mkdir, readdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Secret } from './objects.js';
import type { ObjectStore } from './store.js';

const DATA = '..data';
const DATA_TMP = '..data_tmp';
const DEFAULT_MODE = 0o644;

/** The Secret's data (base64, as stored) as the volume's files; optional items pick and rename keys. */
export function secretFiles(secret: Secret, items?: readonly { key: string; path: string }[]): Map<string, Buffer> {
  const data = secret.data ?? {};
  const files = new Map<string, Buffer>();
  const pick = items && items.length > 0 ? items : Object.keys(data).map((key) => ({ key, path: key }));
  for (const { key, path } of pick) {
    const value = data[key];
    if (value !== undefined) files.set(path, Buffer.from(value, 'base64'));
  }
  return files;
}

/** Writes `files` into `dir` as the kubelet's atomic writer does; the previous content goes. */
export async function writeAtomically(dir: string, files: ReadonlyMap<string, Buffer>, mode = DEFAULT_MODE): Promise<void> {
  await mkdir(dir, { recursive: true });
  const before = await readlink(join(dir, DATA)).catch(() => undefined);
  const stamp = new Date().toISOString().replace(/[-:T]/g, '_').replace(/\..*/, '');
  const version = `..${stamp}.${process.hrtime.bigint() % 1_000_000_000n}`;
  await mkdir(join(dir, version));
  for (const [path, bytes] of files) {
    await mkdir(join(dir, version, path, '..'), { recursive: true });
    await writeFile(join(dir, version, path), bytes, { mode });
  }
  await rm(join(dir, DATA_TMP), { force: true });
  await symlink(version, join(dir, DATA_TMP));
  await rename(join(dir, DATA_TMP), join(dir, DATA));
  const top = new Set([...files.keys()].map((path) => path.split('/')[0]!));
  for (const name of top) {
    await symlink(join(DATA, name), join(dir, name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  }
  for (const name of await readdir(dir)) {
    if (!name.startsWith('..') && !top.has(name)) await rm(join(dir, name), { recursive: true, force: true });
  }
  if (before) await rm(join(dir, before), { recursive: true, force: true });
}

export interface SecretVolume {
  dir: string;
  namespace: string;
  secretName: string;
  items?: { key: string; path: string }[];
  defaultMode?: number;
}

/**
 * Writes each volume with `secret`'s content, then again whenever its Secret changes, until `stop`
 * (the pod's end). The writes of one volume are made one after the other, the last change winning;
 * `written` is the first writes'.
 */
export function keepSecretVolumesCurrent(
  store: Pick<ObjectStore, 'subscribe'>,
  volumes: readonly (SecretVolume & { secret: Secret })[],
): { written: Promise<void>; stop(): void } {
  const queues = new Map<SecretVolume, Promise<void>>();
  const write = (volume: SecretVolume, secret: Secret, first = false) => {
    const files = secretFiles(secret, volume.items);
    const previous = queues.get(volume) ?? Promise.resolve();
    // The first write's failure is the mount's; a later one leaves the last content in place, as a failed sync does.
    const queued = previous.then(() => writeAtomically(volume.dir, files, volume.defaultMode));
    queues.set(volume, first ? queued : queued.catch(() => undefined));
    return queued;
  };
  // Subscribed before the first write: a change made meanwhile is written after it, never lost.
  const stop =
    volumes.length === 0
      ? () => {}
      : store.subscribe((event) => {
          // ADDED: an optional Secret that was missing at the mount. A deleted one leaves the last content, as a failed sync does.
          if (event.resource !== 'secrets' || event.type === 'DELETED') return;
          const secret = event.object as Secret;
          for (const volume of volumes) {
            if (secret.metadata.namespace === volume.namespace && secret.metadata.name === volume.secretName) void write(volume, secret).catch(() => undefined);
          }
        });
  const written = Promise.all(volumes.map((volume) => write(volume, volume.secret, true))).then(() => undefined);
  return { written, stop };
}
