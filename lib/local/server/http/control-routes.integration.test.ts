import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { ExecutionDoesNotExist, ExecutionNotRunning } from '../../../emulators/stepfunctions/execution-errors.js';
import type { ListedExecution } from '../../../console/execution-view.js';
import { controlGuard, isLoopback } from './control-guard.js';
import { createControlRoutes, type ControlSource } from './control-routes.js';
import { createLocalHttpServer } from './server.js';
import { ApprovalNotWaiting } from '../approvals.js';

const SECRET = 'control-secret-5d1e';

/** A registry with one running execution, `build-1`, that records what it was asked. */
function fakeExecutions(): ControlSource & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async stop(name) {
      asked.push(`stop ${name}`);
      if (name === 'ended') throw new ExecutionNotRunning('Execution ended has already ended: SUCCEEDED.');
      if (name !== 'build-1') throw new ExecutionDoesNotExist(`No execution named ${name} on this server.`);
      return { name, status: 'ABORTED' } as ListedExecution;
    },
    async rerun(name) {
      asked.push(`rerun ${name}`);
      if (name !== 'build-1') throw new ExecutionDoesNotExist(`No execution named ${name} on this server.`);
      return { executionName: `${name}-rerun-1`, executionArn: 'arn', consoleUrl: 'url', alreadyStarted: false };
    },
    async redrive(name) {
      asked.push(`redrive ${name}`);
      if (name !== 'build-1') throw new ExecutionDoesNotExist(`No execution named ${name} on this server.`);
      return { name, status: 'RUNNING', redriveCount: 1 } as ListedExecution;
    },
    async decide(name, step, action, comment) {
      asked.push(`${action} ${name} ${step}${comment !== undefined ? ` (${comment})` : ''}`);
      if (step !== 'production') throw new ApprovalNotWaiting(`Step "${step}" of execution ${name} is not waiting for an approval.`);
      return { name, status: 'RUNNING' } as ListedExecution;
    },
  };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function serve(host: string, secrets: string[]) {
  const executions = fakeExecutions();
  const server = createLocalHttpServer({
    webhook: async () => ({ statusCode: 404 }),
    executions: { list: () => [], get: () => undefined },
    control: createControlRoutes({ executions, guard: controlGuard({ host, secrets }) }),
    maxBodyBytes: 1024,
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  close = () => new Promise((resolve) => server.close(() => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const post = async (path: string, headers: Record<string, string> = {}, method = 'POST', body?: string) => {
    const response = await fetch(`${url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
  return { url, post, executions };
}

describe('isLoopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.0.1', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.20', false],
  ])('%s -> %s', (host, expected) => expect(isLoopback(host)).toBe(expected));
});

describe('POST /executions/NAME/stop and /rerun on loopback', () => {
  it('stops and re-runs without a secret', async () => {
    const { post, executions } = await serve('127.0.0.1', []);
    expect(await post('/executions/build-1/stop')).toEqual({ status: 200, json: { name: 'build-1', status: 'ABORTED' } });
    expect(await post('/executions/build-1/rerun')).toMatchObject({ status: 201, json: { executionName: 'build-1-rerun-1', rerunOf: 'build-1' } });
    expect(executions.asked).toEqual(['stop build-1', 'rerun build-1']);
  });

  it('answers 404 for an unknown execution, 409 for one that has ended, 405 for another method', async () => {
    const { post } = await serve('127.0.0.1', []);
    expect(await post('/executions/nope/stop')).toMatchObject({ status: 404, json: { error: 'ExecutionDoesNotExist' } });
    expect(await post('/executions/ended/stop')).toMatchObject({ status: 409, json: { error: 'ExecutionNotRunning' } });
    expect(await post('/executions/build-1/stop', {}, 'GET')).toMatchObject({ status: 405, json: { error: 'MethodNotAllowed' } });
  });

  it('refuses a request from another site\'s page, whatever it carries', async () => {
    const { post, executions } = await serve('127.0.0.1', [SECRET]);
    expect(await post('/executions/build-1/stop', { origin: 'https://evil.example' })).toMatchObject({ status: 403, json: { error: 'CrossOriginRefused' } });
    expect(await post('/executions/build-1/rerun', { origin: 'null', authorization: `Bearer ${SECRET}` })).toMatchObject({ status: 403 });
    expect(executions.asked).toEqual([]);
  });

  it('accepts the page\'s own origin', async () => {
    const { url, post } = await serve('127.0.0.1', []);
    expect((await post('/executions/build-1/stop', { origin: url })).status).toBe(200);
  });
});

describe('POST /executions/NAME/approve and /reject', () => {
  it('decide a waiting approval step, with or without a comment', async () => {
    const { post, executions } = await serve('127.0.0.1', []);
    expect(await post('/executions/build-1/approve', {}, 'POST', '{"step": "production", "comment": "ship it"}')).toEqual({ status: 200, json: { name: 'build-1', status: 'RUNNING' } });
    expect((await post('/executions/build-1/reject', {}, 'POST', '{"step": "production"}')).status).toBe(200);
    expect(executions.asked).toEqual(['approve build-1 production (ship it)', 'reject build-1 production']);
  });

  it.each([
    ['no body', undefined, 400, 'InvalidRequest'],
    ['no step', '{"comment": "x"}', 400, 'InvalidRequest'],
    ['a comment that is not text', '{"step": "production", "comment": 3}', 400, 'InvalidRequest'],
    ['a step that is not waiting', '{"step": "test"}', 409, 'ApprovalNotWaiting'],
  ])('refuse %s', async (_, body, status, error) => {
    const { post } = await serve('127.0.0.1', []);
    expect(await post('/executions/build-1/approve', {}, 'POST', body)).toMatchObject({ status, json: { error } });
  });

  it('are guarded as stop is: another site\'s page, or no secret beyond loopback, decides nothing', async () => {
    const body = '{"step": "production"}';
    const local = await serve('127.0.0.1', [SECRET]);
    expect(await local.post('/executions/build-1/approve', { origin: 'https://evil.example' }, 'POST', body)).toMatchObject({ status: 403, json: { error: 'CrossOriginRefused' } });
    await close?.();
    const remote = await serve('0.0.0.0', [SECRET]);
    expect(await remote.post('/executions/build-1/reject', {}, 'POST', body)).toMatchObject({ status: 401, json: { error: 'MissingSecret' } });
    expect([...local.executions.asked, ...remote.executions.asked]).toEqual([]);
    expect((await remote.post('/executions/build-1/reject', { authorization: `Bearer ${SECRET}` }, 'POST', body)).status).toBe(200);
  });
});

describe('beyond loopback', () => {
  it('needs the webhook secret as a bearer token', async () => {
    const { post, executions } = await serve('0.0.0.0', [SECRET]);
    expect(await post('/executions/build-1/stop')).toMatchObject({ status: 401, json: { error: 'MissingSecret' } });
    expect(await post('/executions/build-1/stop', { authorization: 'Bearer wrong' })).toMatchObject({ status: 401, json: { error: 'InvalidSecret' } });
    expect(executions.asked).toEqual([]);
    expect((await post('/executions/build-1/stop', { authorization: `Bearer ${SECRET}` })).status).toBe(200);
  });

  it('refuses everyone when the server has no secret', async () => {
    const { post, executions } = await serve('0.0.0.0', []);
    expect(await post('/executions/build-1/rerun', { authorization: 'Bearer anything' })).toMatchObject({ status: 403, json: { error: 'ControlNotConfigured' } });
    expect(executions.asked).toEqual([]);
  });
});
