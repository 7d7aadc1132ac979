import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stepLogName, type StepLogStore } from '../workflow/step-log-store.js';

/** Step logs in a folder on this machine: where a local run keeps them (`.step-runner/logs`). */
export function directoryLogStore(root: string): StepLogStore {
  return {
    async put(buildId, step, log) {
      const file = path.resolve(root, stepLogName(buildId, step));
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, log);
      return file;
    },
  };
}
