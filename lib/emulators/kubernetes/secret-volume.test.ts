import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Secret } from './objects.js';
import { secretFiles, writeAtomically } from './secret-volume.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const volume = () => {
  const dir = mkdtempSync(join(tmpdir(), 'secret-volume-'));
  dirs.push(dir);
  return join(dir, 'urls');
};
const secret = (data: Record<string, string>): Secret => ({ metadata: { name: 's' }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) });

describe("a secret volume as the kubelet's atomic writer writes it", () => {
  it('holds a symlink per key into ..data, which names the one timestamped folder of the content', async () => {
    const dir = volume();
    await writeAtomically(dir, secretFiles(secret({ SAVE_0: 'https://a/save', RESTORE_0_0: 'https://a/get' })));
    const names = readdirSync(dir).sort();
    expect(names.filter((n) => !n.startsWith('..'))).toEqual(['RESTORE_0_0', 'SAVE_0']);
    expect(names.filter((n) => /^\.\.\d{4}_\d{2}_\d{2}_\d{2}_\d{2}_\d{2}\.\d+$/.test(n))).toHaveLength(1);
    expect(readlinkSync(join(dir, 'SAVE_0'))).toBe('..data/SAVE_0');
    expect(readFileSync(join(dir, 'SAVE_0'), 'utf8')).toBe('https://a/save');
    expect(statSync(join(dir, 'SAVE_0')).mode & 0o777).toBe(0o644);
  });

  it('swaps in new content whole: changed keys read anew, removed keys go, and the old folder goes', async () => {
    const dir = volume();
    await writeAtomically(dir, secretFiles(secret({ SAVE_0: 'https://a/save', RESTORE_0_0: 'https://a/get' })));
    const first = readlinkSync(join(dir, '..data'));
    await writeAtomically(dir, secretFiles(secret({ SAVE_0: 'https://b/save' })));
    expect(readFileSync(join(dir, 'SAVE_0'), 'utf8')).toBe('https://b/save');
    expect(readdirSync(dir).filter((n) => !n.startsWith('..'))).toEqual(['SAVE_0']);
    expect(readdirSync(dir)).not.toContain(first);
  });

  it('projects only the items asked for, under their paths', () => {
    const files = secretFiles(secret({ a: '1', b: '2' }), [{ key: 'b', path: 'renamed' }]);
    expect([...files].map(([path, bytes]) => [path, bytes.toString()])).toEqual([['renamed', '2']]);
  });
});
