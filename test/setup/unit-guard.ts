/**
 * The unit project's promise: pure modules only. A unit test that starts a server or a child
 * process fails at that call, saying where the file belongs, instead of quietly making the fast
 * project slow and dependent on ports, programs and timing.
 *
 * Core modules are shared by every test file a worker runs, whatever its project, so the guard
 * is put back as it was after each file (this runs as a setupFilesAfterEnv, where afterAll exists).
 */
import { createRequire } from 'node:module';
import { Server } from 'node:net';

// The CommonJS object is the one every import of node:child_process reads its functions from.
const childProcess = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
// ChildProcess#spawn is internal (not in the types); spawn, exec, execFile and fork all go through it.
const processPrototype = childProcess.ChildProcess.prototype as unknown as Record<string, unknown>;
const SYNC = ['spawnSync', 'execSync', 'execFileSync'] as const;

function refuse(what: string): never {
  throw new Error(
    `A unit test ${what}. The unit project covers pure modules: name the file *.integration.test.ts ` +
      '(embedded cluster, servers, programs) or *.e2e.test.ts (packaging, a browser, a spawned CLI).',
  );
}

const originals = { listen: Server.prototype.listen, spawn: processPrototype.spawn, sync: SYNC.map((name) => childProcess[name]) };
Server.prototype.listen = () => refuse('started a server (net.Server.listen)');
processPrototype.spawn = () => refuse('started a child process');
for (const name of SYNC) Object.defineProperty(childProcess, name, { value: () => refuse(`started a child process (${name})`), configurable: true, writable: true });

afterAll(() => {
  Server.prototype.listen = originals.listen;
  processPrototype.spawn = originals.spawn;
  SYNC.forEach((name, i) => Object.defineProperty(childProcess, name, { value: originals.sync[i], configurable: true, writable: true }));
});
