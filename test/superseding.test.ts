/**
 * Superseding (lib/workflow/superseding.ts) on the local stack's store, which has the S3 store's
 * conditional semantics (test/moto-s3-stores.integration.test.ts holds them to S3's): who wins
 * a group, who is stopped and with what, and what GitHub and the console are told of it.
 */
import type { BuildRef } from '../lib/contract/index.js';
import { commitStatusFor } from '../lib/forge/commit-status.js';
import { endingOf, conclusionFor } from '../lib/forge/check-run.js';
import { memoryConcurrencyStore } from '../lib/local/server/memory-concurrency-store.js';
import { summarize } from '../lib/emulators/stepfunctions/execution-summary.js';
import type { ConcurrencyStore, GroupRecord } from '../lib/workflow/concurrency-store.js';
import { claimGroup, isNewer, supersede, supersededCause } from '../lib/workflow/superseding.js';
import { stoppedBecause } from '../lib/workflow/tasks/cleanup-ended-execution.js';

const arn = (name: string) => `arn:aws:states:us-east-1:123456789012:execution:step-runner-dev-build:${name}`;
const sha = (digit: string) => digit.repeat(40);
const log = { info: () => undefined, warn: () => undefined };

function pullRequestBuild(id: string, commit: string, pushedAt: string): BuildRef {
  return { id, event: 'pull_request', repository: 'octo/app', ref: 'refs/pull/7/head', pullRequest: { number: 7, fork: false }, commit, pushedAt };
}

function recorder() {
  const stopped: { executionArn: string; error: string; cause: string }[] = [];
  return { stopped, executions: { stop: async (executionArn: string, error: string, cause: string) => void stopped.push({ executionArn, error, cause }) } };
}

const record = (over: Partial<GroupRecord>): GroupRecord => ({
  group: 'g',
  executionArn: arn('x'),
  buildId: 'x',
  commit: sha('a'),
  pushedAt: '2026-01-01T10:00:00.000Z',
  claimedAt: '2026-01-01T10:00:01.000Z',
  ...over,
});

describe('which of two builds of a group is the newer', () => {
  test.each([
    ['the later push', record({ pushedAt: '2026-01-01T10:00:05.000Z' }), record({}), true],
    ['the earlier push, whatever its commit', record({ commit: sha('f') }), record({ pushedAt: '2026-01-01T10:00:05.000Z', commit: sha('1') }), false],
    ['one second, two commits: the greater sha, the same answer for both', record({ commit: sha('b') }), record({ commit: sha('a') }), true],
    ['one second, two commits, the other way', record({ commit: sha('a') }), record({ commit: sha('b') }), false],
    ['one commit (a re-run): the later claim', record({ claimedAt: '2026-01-01T10:09:00.000Z' }), record({}), true],
    // A schedule's (or a manual run's) build names no push time: it counts from its claim, so the same commit built again is the newer.
    ['a scheduled build of the commit a push built', record({ pushedAt: '2026-01-02T03:00:00.000Z', claimedAt: '2026-01-02T03:00:00.000Z' }), record({}), true],
  ])('%s', (_what, a, b, newer) => {
    expect(isNewer(a, b)).toBe(newer);
    expect(isNewer(b, a)).toBe(!newer);
  });
});

describe('claiming a group', () => {
  it('a retried claim of the same execution still holds the group', async () => {
    const store = memoryConcurrencyStore();
    expect(await claimGroup(record({}), store)).toEqual({ kind: 'won' });
    expect(await claimGroup(record({}), store)).toEqual({ kind: 'won' });
  });

  it('reads again and decides again when its write lost a race', async () => {
    const inner = memoryConcurrencyStore();
    let raced = false;
    // Another build's record lands between this build's read and its write.
    const store: ConcurrencyStore = {
      read: (group) => inner.read(group),
      replace: (r, version) => inner.replace(r, version),
      async create(r) {
        if (!raced) {
          raced = true;
          await inner.create(record({ executionArn: arn('other'), pushedAt: '2026-01-01T10:00:09.000Z', commit: sha('9') }));
        }
        return inner.create(r);
      },
    };
    const outcome = await claimGroup(record({}), store);
    expect(outcome).toEqual({ kind: 'lost', winner: expect.objectContaining({ executionArn: arn('other') }) });
  });

  it.each([2, 5, 12])('of %i builds claiming at once, the newest keeps running and every other is stopped once, by the newest commit named', async (count) => {
    for (let round = 0; round < 20; round++) {
      const store = memoryConcurrencyStore();
      const { stopped, executions } = recorder();
      const builds = Array.from({ length: count }, (_, i) => pullRequestBuild(`b${i}`, sha(i.toString(16)), new Date(Date.UTC(2026, 0, 1, 10, 0, i)).toISOString()));
      // Shuffled: deliveries arrive in any order.
      const order = builds.map((build) => ({ build, key: Math.random() })).sort((a, b) => a.key - b.key);
      const ended = await Promise.all(
        order.map(({ build }) => supersede(build, undefined, arn(build.id), { superseding: { store, executions }, log, now: () => new Date() })),
      );
      const newest = builds.at(-1)!;
      const stops = new Map(stopped.map((stop) => [stop.executionArn, stop]));
      expect(stops.size).toBe(stopped.length);
      expect([...stops.keys()].sort()).toEqual(builds.slice(0, -1).map((build) => arn(build.id)).sort());
      expect(stops.has(arn(newest.id))).toBe(false);
      for (const stop of stopped) expect(stop).toMatchObject({ error: 'Superseded', cause: expect.stringMatching(/^Superseded by [0-9a-f]{7} \(execution b\d+\)/) });
      // The one that ended itself (it read a newer record) said so; the newest never did.
      expect(ended[order.findIndex(({ build }) => build === newest)]).toBeUndefined();
      expect((await store.read('octo/app-pull/7'))?.record.executionArn).toBe(arn(newest.id));
    }
  });

  it('an older build that arrives after the newer one stops itself, naming the newer commit, and runs nothing', async () => {
    const store = memoryConcurrencyStore();
    const { stopped, executions } = recorder();
    const deps = { superseding: { store, executions }, log, now: () => new Date() };
    expect(await supersede(pullRequestBuild('new', sha('b'), '2026-01-01T10:00:09Z'), undefined, arn('new'), deps)).toBeUndefined();
    const ended = await supersede(pullRequestBuild('old', sha('a'), '2026-01-01T10:00:01Z'), undefined, arn('old'), deps);
    expect(ended).toBe(`Superseded by bbbbbbb (execution new), a newer build of the concurrency group "octo/app-pull/7"`);
    expect(stopped).toEqual([{ executionArn: arn('old'), error: 'Superseded', cause: ended }]);
  });

  it('leaves builds without a group alone: the default branch, and concurrency: false', async () => {
    const { stopped, executions } = recorder();
    const deps = { superseding: { store: memoryConcurrencyStore(), executions }, log, now: () => new Date() };
    const main: BuildRef = { id: 'm', event: 'push', repository: 'octo/app', ref: 'refs/heads/main', defaultBranch: 'main' };
    await supersede(main, undefined, arn('m1'), deps);
    await supersede({ ...main, id: 'm2' }, undefined, arn('m2'), deps);
    await supersede(pullRequestBuild('p1', sha('a'), '2026-01-01T10:00:01Z'), false, arn('p1'), deps);
    await supersede(pullRequestBuild('p2', sha('b'), '2026-01-01T10:00:02Z'), false, arn('p2'), deps);
    expect(stopped).toEqual([]);
  });
});

describe('what a superseded build is reported as', () => {
  const cause = supersededCause({ commit: sha('c'), executionArn: arn('gh-app-ccccccc-1'), group: 'octo/app-pull/7' });
  const event = { detail: { status: 'ABORTED', error: 'Superseded', cause } };

  it('the ended-execution rule takes StopExecution\'s error and cause', () => {
    expect(stoppedBecause(event)).toEqual({ Error: 'Superseded', Cause: cause });
    expect(stoppedBecause({ detail: { status: 'ABORTED', error: null, cause: null } })).toMatchObject({ Error: 'ExecutionAborted' });
  });

  it('a commit status that is no failure, saying which commit superseded it', () => {
    expect(commitStatusFor('stopped', stoppedBecause(event))).toMatchObject({ state: 'pending', description: 'superseded by ccccccc' });
  });

  it('a check run that concludes neutral', () => {
    expect(conclusionFor(endingOf('stopped', stoppedBecause(event)))).toBe('neutral');
  });

  it('run --json and GET /executions/NAME show the Error and Cause of the ABORTED execution', () => {
    const history = [{ type: 'ExecutionStarted', timestamp: 1 }, { type: 'ExecutionAborted', timestamp: 2 }];
    expect(summarize(history, true, { abortReason: { error: 'Superseded', cause } })).toMatchObject({ status: 'ABORTED', error: 'Superseded', cause });
    expect(summarize(history, true)).toMatchObject({ status: 'ABORTED', error: null, cause: null });
  });
});
