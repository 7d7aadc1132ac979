/**
 * The Docker probe against real unix sockets: stand-in daemons on sockets of a temporary folder
 * (one answering OK, one that accepts and never answers, one answering something else), a file
 * that is no socket and a path with nothing; then the machine's own daemon when there is one.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerDaemonRequirement, dockerSocket } from '../../../../test/fixtures/docker/engine-api.js';
import { describeRequiring } from '../../../../test/fixtures/requirements.js';
import { chooseRuntime, findDockerDaemon, type SocketCandidate } from './runtime-choice.js';

let dir: string;
const servers: Server[] = [];
const connections = new Set<Socket>();

async function listenOn(path: string, answer: (res: import('node:http').ServerResponse) => void): Promise<string> {
  const server = createServer((_req, res) => answer(res));
  server.on('connection', (socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return path;
}

const at = (socketPath: string): SocketCandidate => ({ socketPath, source: 'test' });
let daemon: string;
let otherDaemon: string;
let silent: string;
let notDocker: string;
let plainFile: string;
let nothing: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runtime-choice-'));
  daemon = await listenOn(join(dir, 'docker.sock'), (res) => res.end('OK'));
  otherDaemon = await listenOn(join(dir, 'other.sock'), (res) => res.end('OK'));
  // Accepts the request and never answers: a daemon stuck at start, or a stale proxy.
  silent = await listenOn(join(dir, 'silent.sock'), () => {});
  notDocker = await listenOn(join(dir, 'web.sock'), (res) => {
    res.statusCode = 404;
    res.end('page not found');
  });
  plainFile = join(dir, 'plain.sock');
  writeFileSync(plainFile, '');
  nothing = join(dir, 'missing.sock');
});

afterAll(async () => {
  for (const socket of connections) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

/**
 * How long a daemon that answers may take: this file's stand-ins answer at once, but on a loaded
 * machine 300 ms was not enough for them (or for this machine's own daemon), and a silent socket
 * costs this much once per case that has one.
 */
const ANSWER_MS = 3000;

describe('findDockerDaemon', () => {
  it('takes the first socket that answers OK, and says why each other one failed', async () => {
    const search = await findDockerDaemon([at(nothing), at(plainFile), at(silent), at(notDocker), at(daemon)], { timeoutMs: ANSWER_MS });
    expect(search.found).toEqual(at(daemon));
    expect(search.failed.map(({ socketPath, reason }) => [socketPath, reason])).toEqual([
      [nothing, 'no such file'],
      [plainFile, 'connection refused: nothing listening'],
      [silent, `no answer within ${ANSWER_MS} ms`],
      [notDocker, 'answered HTTP 404 "page not found" to /_ping, not OK'],
    ]);
  });

  it('keeps the candidates\' order: a daemon listed first wins over one listed after it, a silent socket before both does not block them', async () => {
    expect((await findDockerDaemon([at(silent), at(otherDaemon), at(daemon)], { timeoutMs: ANSWER_MS })).found).toEqual(at(otherDaemon));
    expect((await findDockerDaemon([at(daemon), at(otherDaemon)], { timeoutMs: ANSWER_MS })).found).toEqual(at(daemon));
  });

  it('finds nothing when nothing answers', async () => {
    const search = await findDockerDaemon([at(silent), at(nothing)], { timeoutMs: 200 });
    expect(search.found).toBeUndefined();
    expect(search.failed.map((attempt) => attempt.reason)).toEqual(['no answer within 200 ms', 'no such file']);
  });
});

describe('chooseRuntime', () => {
  it('uses the daemon DOCKER_HOST names, as asked or by default', async () => {
    const env = { DOCKER_HOST: `unix://${daemon}` };
    expect(await chooseRuntime('docker', env, { homedir: dir, timeoutMs: ANSWER_MS })).toEqual({ kind: 'docker', socketPath: daemon });
    expect(await chooseRuntime(undefined, env, { homedir: dir, timeoutMs: ANSWER_MS })).toEqual({ kind: 'docker', socketPath: daemon });
  });

  it('--runtime process does not use a daemon that answers', async () => {
    expect(await chooseRuntime('process', { DOCKER_HOST: `unix://${daemon}` }, { homedir: dir })).toEqual({ kind: 'process' });
  });
});

describeRequiring('chooseRuntime on this machine', dockerDaemonRequirement(), () => {
  it('finds its Docker daemon with nothing asked', async () => {
    expect(await chooseRuntime(undefined, { DOCKER_HOST: process.env.DOCKER_HOST ?? '' })).toEqual({ kind: 'docker', socketPath: dockerSocket() });
  });
});
