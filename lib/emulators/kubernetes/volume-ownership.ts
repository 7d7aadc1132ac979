/**
 * The kubelet's SetVolumeOwnership for a pod with `fsGroup`: every file of its claim and emptyDir
 * volumes group-owned by fsGroup and group read-write (directories also group-searchable and
 * setgid, so what a container writes there stays in the group), before any container starts. A
 * non-root step (runAsUser) can then write the workspace that an earlier step or the checkout
 * filled, on a Docker node as on EKS. A node that may not give files away to that group (this
 * machine's user is not root and not in it) opens them to everyone instead, so the pod can still
 * write them: the one way this differs from a real node.
 */
import { chmod, chown, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

const GROUP_RW = 0o060;
const GROUP_DIR = 0o2070;
const OTHER_RW = 0o006;
const OTHER_DIR = 0o007;

async function own(path: string, gid: number, openToAll: boolean): Promise<boolean> {
  const info = await lstat(path);
  if (info.isSymbolicLink()) return openToAll;
  let open = openToAll;
  if (!open) {
    try {
      await chown(path, info.uid, gid);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
      open = true;
    }
  }
  const extra = info.isDirectory() ? GROUP_DIR | (open ? OTHER_DIR : 0) : GROUP_RW | (open ? OTHER_RW : 0);
  // A file a container wrote as root is not this machine's user's to change: it stays as it is.
  await chmod(path, (info.mode & 0o7777) | extra).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPERM') throw error;
  });
  if (info.isDirectory()) {
    for (const entry of await readdir(path)) open = await own(join(path, entry), gid, open);
  }
  return open;
}

/** The volume's root already as fsGroup wants it: what `fsGroupChangePolicy: OnRootMismatch` checks. */
async function rootMatches(dir: string, gid: number): Promise<boolean> {
  const info = await lstat(dir);
  return info.gid === gid && (info.mode & GROUP_DIR) === GROUP_DIR;
}

/** Applies fsGroup to each volume directory; nothing without one. `Always` (the default) walks every file each time. */
export async function applyFsGroup(dirs: Iterable<string>, fsGroup: number | undefined, policy: string | undefined): Promise<void> {
  if (fsGroup === undefined) return;
  for (const dir of dirs) {
    if (policy === 'OnRootMismatch' && (await rootMatches(dir, fsGroup))) continue;
    await own(dir, fsGroup, false);
  }
}
