import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { directoryLogStore } from '../local/stores/directory-log-store.js';
import type { LogPosition } from '../kube/index.js';
import { LiveLogCopy, type LiveLogState } from './live-log.js';
import { MAX_PART_BYTES, type StepLogStore } from './step-log-store.js';

const at = (n: number): LogPosition => ({ lastTime: `2026-12-01T13:00:${String(n).padStart(2, '0')}Z`, sameTime: 1 });
const start: LiveLogState = { location: 'unused', parts: 0, bytes: 0 };

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'live-log-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('LiveLogCopy', () => {
  it('masks what it keeps, starts a new part past the part size, and says how far it got', async () => {
    const store = directoryLogStore(root);
    const copy = new LiveLogCopy({ store, buildId: 'b', step: 's', mask: (t) => t.replaceAll('hunter2', '***') }, start);
    const big = `${'x'.repeat(MAX_PART_BYTES)}\n`;
    copy.add('password hunter2\n', at(1));
    copy.add(big, at(2));
    copy.add('after the first part\n', at(3));
    const { state, failure } = await copy.close();
    expect(failure).toBeUndefined();
    expect(state).toEqual({ location: path.join(root, 'b', 's.log'), parts: 2, bytes: 13 + big.length + 21, position: at(3) });
    expect(await readFile(state.location, 'utf8')).toBe(`password ***\n${big}after the first part\n`);

    // The next poll goes on from there, as part 3.
    const next = new LiveLogCopy({ store, buildId: 'b', step: 's', mask: (t) => t }, state);
    next.add('more\n', at(4));
    expect((await next.close()).state).toMatchObject({ parts: 3, bytes: state.bytes + 5, position: at(4) });
    expect((await readFile(state.location, 'utf8')).endsWith('after the first part\nmore\n')).toBe(true);
  });

  it('keeps nothing given after it was closed: the next read brings it again, from the position it said', async () => {
    const store = directoryLogStore(root);
    const copy = new LiveLogCopy({ store, buildId: 'b', step: 's', mask: (t) => t }, start);
    copy.add('before the close\n', at(1));
    const { state } = await copy.close();
    copy.add('after the close\n', at(2));
    // Writes what is left, if anything were.
    expect((await copy.close()).state).toEqual(state);
    expect(await readFile(state.location, 'utf8')).toBe('before the close\n');
  });

  it('after a write that failed, says only how far the writes that succeeded got', async () => {
    const real = directoryLogStore(root);
    let calls = 0;
    const flaky: StepLogStore = { ...real, partEveryMs: 0, putPart: async (...args) => (++calls === 2 ? Promise.reject(new Error('store unreachable')) : real.putPart(...args)) };
    const copy = new LiveLogCopy({ store: flaky, buildId: 'b', step: 's', mask: (t) => t }, start);
    copy.add('one\n', at(1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    copy.add('two\n', at(2));
    const { state, failure } = await copy.close();
    expect((failure as Error).message).toBe('store unreachable');
    // "two" was not kept: the position stays after "one", so the next read brings it again.
    expect(state).toMatchObject({ parts: 1, bytes: 4, position: at(1) });
  });
});
