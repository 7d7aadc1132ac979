/**
 * Emptying a node folder that a container filled as root. This machine's tests run as root, who
 * may remove anything, so the refusal a laptop's user meets is stood in for by a remover that
 * refuses once; the container that empties the folder, and what it leaves, are real.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { dockerSocket } from '../../../../../test/fixtures/docker/engine-api.js';
import { dockerDaemon, startTestImages, testImagesBuildable, type TestImages } from '../../../../../test/fixtures/docker/test-images.js';
import { describeRequiring } from '../../../../../test/fixtures/requirements.js';
import { DockerLabels } from './labels.js';
import { removeNodeTree } from './node-tree.js';

const socketPath = dockerSocket();
const docker = new Docker({ socketPath });
const labels = { [DockerLabels.owner]: `${hostname()}:${process.pid}` };

describeRequiring('removing a node folder', dockerDaemon, () => {
  describeRequiring('with the test images', testImagesBuildable, () => {
    let images: TestImages;
    let scratch: string;

    beforeAll(async () => {
      images = await startTestImages();
      scratch = await mkdtemp(path.join(tmpdir(), 'node-tree-'));
    }, 120_000);

    afterAll(async () => {
      await images?.stop();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    test('a folder this machine may not empty is emptied by a container as root, then goes, its siblings kept', async () => {
      const victim = path.join(scratch, 'pvc-1');
      await mkdir(path.join(victim, '.git', 'objects'), { recursive: true });
      await writeFile(path.join(victim, '.git', 'objects', 'pack'), 'x');
      await writeFile(path.join(scratch, 'sibling'), 'kept');
      let refusals = 0;
      const remover = async (target: string, options: { recursive: true; force: true }) => {
        if (refusals === 0) {
          refusals += 1;
          throw Object.assign(new Error(`EACCES: permission denied, rmdir '${target}/.git/objects'`), { code: 'EACCES' });
        }
        await rm(target, options);
      };
      // The helper image is the fixture's busybox, pulled from the registry (not present before).
      await removeNodeTree(docker, socketPath, victim, images.busybox, labels, remover);
      expect(refusals).toBe(1);
      expect(await readdir(scratch)).toEqual(['sibling']);
      const left = await docker.listContainers({ all: true, filters: { label: [`${DockerLabels.owner}=${labels[DockerLabels.owner]}`] } });
      expect(left).toEqual([]);
    });

    test('other errors are not papered over', async () => {
      const remover = async () => {
        throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
      };
      await expect(removeNodeTree(docker, socketPath, path.join(scratch, 'x'), images.busybox, labels, remover)).rejects.toThrow('EIO');
    });
  });
});
