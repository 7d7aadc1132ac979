import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { directoryLogStore } from './directory-log-store.js';

describe('the directory step log store', () => {
  it('writes BUILD/STEP.log and never lets a build id climb out of its folder', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'logs-'));
    try {
      const file = await directoryLogStore(root).put('../escape', 'step', 'hello\n');
      expect(path.dirname(path.dirname(file))).toBe(root);
      expect(path.basename(file)).toBe('step.log');
      expect(await readFile(file, 'utf8')).toBe('hello\n');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
