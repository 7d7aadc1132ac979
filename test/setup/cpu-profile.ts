/**
 * Opt-in (STEP_RUNNER_CPU_PROFILE=FILE): each test file's CPU, its worker's own and its reaped
 * child processes' (moto, spawned CLIs, npm), appended to FILE, so a new suite can be priced.
 */
import { appendFileSync, readFileSync } from 'node:fs';

const out = process.env.STEP_RUNNER_CPU_PROFILE;
const ticks = (): number => {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  // utime stime cutime cstime are fields 14..17 (1-based) of proc(5); after "comm) " they start at index 11.
  return fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0);
};
if (out) {
  const startTicks = ticks();
  const startWall = Date.now();
  afterAll(() => {
    const file = expect.getState().testPath ?? '?';
    appendFileSync(out, `${((ticks() - startTicks) / 100).toFixed(2)}\t${((Date.now() - startWall) / 1000).toFixed(1)}\t${file.replace(process.cwd() + '/', '')}\n`);
  });
}
