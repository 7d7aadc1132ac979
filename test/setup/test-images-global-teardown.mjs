/**
 * Jest's global teardown: stops the run's shared test-image registry, if a test file started one
 * (its pid is in the directory the global setup made), and removes the directory with its storage.
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export default async function testImagesGlobalTeardown() {
  const dir = process.env.STEP_RUNNER_TEST_IMAGES;
  if (!dir) return;
  const pid = Number(await readFile(path.join(dir, 'registry.pid'), 'utf8').catch(() => ''));
  if (pid > 0) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch (error) {
      if (error.code !== 'ESRCH') throw error;
    }
    // Its storage is in dir: let it go before the directory does.
    for (let waited = 0; waited < 5000 && alive(pid); waited += 50) await sleep(50);
  }
  await rm(dir, { recursive: true, force: true });
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
