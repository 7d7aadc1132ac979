/**
 * Jest's global teardown: stops the run's shared test-image registry, if a test file started one
 * (its pid is in the directory the global setup made), removes the image names Docker kept for the
 * files' own hosts onto it (shared-registry.ts recordHost), and removes the directory with its
 * storage.
 */
import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

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
  const hosts = (await readFile(path.join(dir, 'hosts'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
  await forgetNames(hosts);
  await rm(dir, { recursive: true, force: true });
}

/** Untags what was pulled under hosts; a name still in use by a container stays, and no failure here fails the run. */
async function forgetNames(hosts) {
  if (hosts.length === 0) return;
  try {
    const { stdout } = await run('docker', ['image', 'ls', '--format', '{{.Repository}}:{{.Tag}}'], { maxBuffer: 16 * 1024 * 1024 });
    const names = stdout.split('\n').filter((name) => hosts.some((host) => name.startsWith(`${host}/`)) && !name.endsWith(':<none>'));
    for (let i = 0; i < names.length; i += 200) await run('docker', ['rmi', ...names.slice(i, i + 200)]).catch(() => undefined);
  } catch {
    // No Docker here: nothing was pulled.
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
