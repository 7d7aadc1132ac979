import { mkdir, open, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isStepResultName, LOG_END_BYTES, parseStepRecord, stepLogName, stepResultName, type StepLogStore, type StepRecord } from '../../workflow/step-log-store.js';

/**
 * Step logs in a folder on this machine: where a local run keeps them (the state directory's `logs`). A
 * running step's parts go straight into BUILD/STEP.log, each at its offset, so the file is the
 * live log that `run` prints and the console page shows.
 */
export function directoryLogStore(root: string): StepLogStore {
  const pathOf = (buildId: string, step: string) => path.resolve(root, stepLogName(buildId, step));
  const fileOf = async (buildId: string, step: string) => {
    const file = pathOf(buildId, step);
    await mkdir(path.dirname(file), { recursive: true });
    return file;
  };
  return {
    partEveryMs: 200,
    liveLocation: pathOf,
    async put(buildId, step, log) {
      const file = await fileOf(buildId, step);
      await writeFile(file, log);
      return file;
    },
    async putPart(buildId, step, text, { offset }) {
      const file = await fileOf(buildId, step);
      const handle = await open(file, 'a+');
      try {
        // A part written again (it grew, or a poll was retried) holds what it held before and
        // more: only the new end is written. What followed it (a retried poll's later parts) goes.
        const bytes = Buffer.from(text, 'utf8');
        const { size } = await handle.stat();
        const kept = Math.min(Math.max(size - offset, 0), bytes.length);
        await handle.truncate(offset + kept);
        if (kept < bytes.length) await handle.write(bytes, kept, bytes.length - kept, offset + kept);
      } finally {
        await handle.close();
      }
      return file;
    },
    async putResult(buildId, record) {
      const file = path.resolve(root, stepResultName(buildId, record.step));
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, JSON.stringify(record));
    },
    async results(buildId) {
      const dir = path.dirname(path.resolve(root, stepResultName(buildId, 'x')));
      const names = await readdir(dir).catch(() => [] as string[]);
      const records = await Promise.all(names.filter(isStepResultName).map(async (name) => parseStepRecord(await readFile(path.join(dir, name), 'utf8'))));
      return records.filter((record): record is StepRecord => record !== undefined);
    },
    async complete(buildId, step) {
      const file = await fileOf(buildId, step);
      const size = (await stat(file).catch(() => ({ size: 0 }))).size;
      if (size <= LOG_END_BYTES) return { location: file, tail: size === 0 ? '' : await readFile(file, 'utf8') };
      const handle = await open(file, 'r');
      try {
        const end = Buffer.alloc(LOG_END_BYTES);
        await handle.read(end, 0, LOG_END_BYTES, size - LOG_END_BYTES);
        return { location: file, tail: end.toString('utf8') };
      } finally {
        await handle.close();
      }
    },
  };
}
