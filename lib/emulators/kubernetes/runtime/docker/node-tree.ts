/**
 * Removing a folder of the node's that containers wrote into. With a rootful daemon a container's
 * root writes root-owned files and folders into the bind-mounted volume, which this machine's user
 * (not root, in the docker group) cannot empty; a short-lived container does it as root, as the
 * kubelet (root on its node) would, and the folder itself then goes as usual.
 */
import { rm } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type Docker from 'dockerode';
import { pullImage, presentImage } from './pull.js';

/** What empties the folder from inside: busybox's sh and rm, pulled when the node lacks it. */
export const DEFAULT_HELPER_IMAGE = 'busybox:1.37';

function refused(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EACCES' || code === 'EPERM' || code === 'ENOTEMPTY';
}

type Remove = (path: string, options: { recursive: true; force: true }) => Promise<void>;

export async function removeNodeTree(
  docker: Docker,
  socketPath: string,
  path: string,
  helperImage: string,
  labels: Record<string, string>,
  remove: Remove = rm,
): Promise<void> {
  try {
    await remove(path, { recursive: true, force: true });
    return;
  } catch (error) {
    if (!refused(error)) throw error;
  }
  if (!(await presentImage(docker, helperImage))) {
    const pulled = await pullImage(docker, socketPath, helperImage);
    if (!pulled.ok) throw new Error(`cannot remove ${path}: files in it belong to root, and the image that removes them (${helperImage}) cannot be pulled: ${pulled.error}`);
  }
  // The parent is mounted, not the folder, so that the folder itself can go too.
  const container = await docker.createContainer({
    Image: helperImage,
    Entrypoint: ['/bin/rm', '-rf', `/parent/${basename(path)}`],
    Cmd: [],
    User: '0:0',
    Labels: labels,
    HostConfig: { Binds: [`${dirname(path)}:/parent`], NetworkMode: 'none', AutoRemove: false },
  });
  try {
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    if (StatusCode !== 0) throw new Error(`cannot remove ${path}: ${helperImage} rm -rf ended ${StatusCode}`);
  } finally {
    await container.remove({ force: true }).catch(() => {});
  }
  await remove(path, { recursive: true, force: true });
}
