import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import tar from 'tar-fs';
import { artifactObjects, artifactPlace } from '../../workflow/artifact-plan.js';
import type { KeptArtifact } from '../../workflow/state-data.js';
import { writeBuildArtifacts } from './artifact-export.js';

const BUCKET = 'step-runner-local';
const place = artifactPlace({ expireInDays: 30 }, { id: 'b1' }, 'build');
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'artifact-export-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A store holding these objects, as the local S3 hands them back. */
function storeOf(objects: Record<string, Buffer>) {
  return {
    download: async (key: string) => {
      const body = objects[key];
      return body === undefined ? undefined : { body: (async function* () { yield body; })(), size: body.length };
    },
  };
}

/** A folder packed as the save sidecar packs one (tar of the path relative to the workspace, gzip). */
async function packed(files: (root: string) => Promise<void>): Promise<Buffer> {
  const workspace = await mkdtemp(path.join(dir, 'workspace-'));
  await files(workspace);
  return buffer(tar.pack(workspace, { entries: ['dist'] }).pipe(createGzip()));
}

function kept(index: number, artifactPath: string, as: 'file' | 'folder', bytes: Buffer, sha = sha256(bytes)): [KeptArtifact, string] {
  const objects = artifactObjects(place, index, artifactPath);
  const key = as === 'file' ? objects.file! : objects.folder;
  return [{ path: artifactPath, size: bytes.length, sha256: sha, location: `s3://${BUCKET}/${key}` }, key];
}

describe('writeBuildArtifacts', () => {
  it("writes a file at its path and unpacks a folder's regular files, never a link out of the folder", async () => {
    const lcov = Buffer.from('TN:\n');
    const tarball = await packed(async (root) => {
      await mkdir(path.join(root, 'dist', 'js'), { recursive: true });
      await writeFile(path.join(root, 'dist', 'js', 'app.js'), 'app\n');
      await symlink('/etc/passwd', path.join(root, 'dist', 'passwd'));
    });
    // The tarball does hold the link: its entries, listed without writing any.
    const entries: string[] = [];
    const list = (name: string, header?: { type: string }) => (entries.push(`${path.relative(path.join(dir, 'list'), name)} ${header?.type}`), true);
    await pipeline(Readable.from([tarball]), createGunzip(), tar.extract(path.join(dir, 'list'), { ignore: list }));
    expect(entries.sort()).toEqual(['dist directory', 'dist/js directory', 'dist/js/app.js file', 'dist/passwd symlink']);
    const [file, fileKey] = kept(0, 'coverage/lcov.info', 'file', lcov);
    const [folder, folderKey] = kept(1, 'dist/', 'folder', tarball);
    const written = await writeBuildArtifacts({ root: path.join(dir, 'out'), buildId: 'b1', bucket: BUCKET, store: storeOf({ [fileKey]: lcov, [folderKey]: tarball }), steps: [{ name: 'build', artifacts: [file, folder] }, { name: 'lint' }] });

    const stepDir = path.join(dir, 'out', 'b1', 'build');
    expect(written).toEqual({
      dir: path.join(dir, 'out', 'b1'),
      steps: [{ step: 'build', dir: stepDir, problems: [], files: [
        { path: 'coverage/lcov.info', size: 4, sha256: sha256(lcov) },
        { path: 'dist/js/app.js', size: 4, sha256: sha256(Buffer.from('app\n')) },
      ] }],
    });
    expect((await readdir(stepDir, { recursive: true })).sort()).toEqual(['SHA256SUMS', 'coverage', 'coverage/lcov.info', 'dist', 'dist/js', 'dist/js/app.js']);
    expect(await readFile(path.join(stepDir, 'SHA256SUMS'), 'utf8')).toBe(`${sha256(lcov)}  coverage/lcov.info\n${sha256(Buffer.from('app\n'))}  dist/js/app.js\n`);
  });

  it('writes no object whose bytes are not the ones its pod hashed, nor one that is gone, and says why', async () => {
    const bytes = Buffer.from('changed since\n');
    const [tampered, key] = kept(0, 'report.txt', 'file', bytes, sha256(Buffer.from('original\n')));
    const [gone] = kept(1, 'other.txt', 'file', bytes);
    const written = await writeBuildArtifacts({ root: dir, buildId: 'b1', bucket: BUCKET, store: storeOf({ [key]: bytes }), steps: [{ name: 'build', artifacts: [tampered, gone] }] });
    expect(written!.steps[0]!.files).toEqual([]);
    expect(written!.steps[0]!.problems).toEqual([
      `artifact report.txt of build: its bytes in the store have sha256 ${sha256(bytes)}, not the ${sha256(Buffer.from('original\n'))} its pod computed: not written`,
      `artifact other.txt of build: ${gone.location} is gone from the store`,
    ]);
    expect(await readdir(path.join(dir, 'b1', 'build'))).toEqual(['SHA256SUMS']);
  });

  it('writes nothing when no step kept an artifact', async () => {
    expect(await writeBuildArtifacts({ root: path.join(dir, 'none'), buildId: 'b1', bucket: BUCKET, store: storeOf({}), steps: [{ name: 'build', artifacts: [] }] })).toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
  });
});
