/**
 * The steps that need an approval, waiting in callbacks of their own, and the approval given that
 * answers them: on the in-memory StepCluster, with the task tokens of the local executor (the
 * callback pattern as Step Functions documents it, task-tokens.ts), whichever end comes second.
 */
import { TaskTokens } from '../../emulators/stepfunctions/task-tokens.js';
import { approvalTokenManifest, approvalTokenName, approvalWaitName, Annotations } from '../../kube/index.js';
import { fakeStepCluster, objectKey } from '../../kube/fake-cluster.js';
import type { Step } from '../../pipeline/types.js';
import { awaitApprovedNeeds, finishApproval, InvalidApprovalWait } from './approval-waits.js';

const NS = 'ci';
const BUILD = { id: 'b-42' };
const EXECUTION = 'arn:aws:states:local:000000000000:execution:build:b-42';
const approval = (name: string): Step => ({ name, env: {}, pull: 'if-not-present', timeoutSeconds: 60, secrets: [], approval: { selfApproval: true, timeoutSeconds: 60 }, needed: true });
const waiting = (name: string, awaits: string[]): Step => ({ name, env: {}, pull: 'if-not-present', timeoutSeconds: 60, secrets: [], needs: awaits, awaits });

function world() {
  const cluster = fakeStepCluster({ now: () => new Date('2026-12-06T10:00:00Z') });
  const tokens = new TaskTokens();
  const deps = { cluster, tokens, now: () => new Date('2026-12-06T10:00:00Z'), log: { info: () => undefined, warn: () => undefined }, callbacks: { sendTaskSuccess: async (token: string, output: string) => tokens.sendTaskSuccess(token, output) } };
  /** An approval asked for: its token stored, as AwaitApproval stores it. */
  const ask = async (name: string) => cluster.storeApprovalToken(approvalTokenManifest({ buildId: BUILD.id, namespace: NS, step: name, taskToken: tokens.issue(EXECUTION).token, deadlineSeconds: 60 }));
  const give = (name: string) => finishApproval({ task: 'finish-approval', build: BUILD, namespace: NS, settings: { imagePullGraceSeconds: 60, unschedulableGraceSeconds: 120, workspace: { claimName: 'b-42-workspace' } } as never, step: approval(name) }, deps);
  /** A step waiting for `awaits`: the outcome its callback Task ends with. */
  const wait = async (name: string, awaits: string[]) => {
    const { token, outcome } = tokens.issue(EXECUTION);
    await awaitApprovedNeeds({ task: 'await-approved-needs', build: BUILD, namespace: NS, step: waiting(name, awaits), taskToken: token }, deps);
    // Not the promise itself, which an async function would wait for.
    return { outcome };
  };
  return { cluster, tokens, deps, ask, give, wait };
}

const settledYet = async (outcome: Promise<unknown>) => Promise.race([outcome.then(() => true), new Promise((resolve) => setImmediate(() => resolve(false)))]);

describe('a step that needs an approval goes on once it is given, whichever comes first', () => {
  it('waiting first: the approval given answers it', async () => {
    const { ask, give, wait, cluster } = world();
    await ask('approve');
    const { outcome } = await wait('production', ['approve']);
    expect(await settledYet(outcome)).toBe(false);
    expect(await give('approve')).toEqual({ released: ['production'] });
    expect(await outcome).toEqual({ output: { approved: true } });
    // The approval's Secret says it was given, its token gone; the claim remembers it for a re-run.
    const secret = cluster.secrets.get(objectKey(NS, approvalTokenName(BUILD.id, 'approve')))!;
    expect([secret.metadata?.annotations?.[Annotations.finished], secret.data?.['taskToken']]).toEqual(['2026-12-06T10:00:00.000Z', undefined]);
    expect(cluster.calls).toContain(`recordStepSucceeded ${NS}/b-42-workspace`);
  });

  it('given first: the step waiting later answers itself, and nothing is left to answer', async () => {
    const { ask, give, wait } = world();
    await ask('approve');
    expect(await give('approve')).toEqual({ released: [] });
    expect(await (await wait('production', ['approve'])).outcome).toEqual({ output: { approved: true } });
  });

  it('two approvals: only the second given lets the step go on', async () => {
    const { ask, give, wait } = world();
    await ask('security');
    await ask('product');
    const { outcome } = await wait('production', ['security', 'product']);
    expect(await give('security')).toEqual({ released: [] });
    expect(await settledYet(outcome)).toBe(false);
    expect(await give('product')).toEqual({ released: ['production'] });
    await expect(outcome).resolves.toEqual({ output: { approved: true } });
  });

  it('answered twice (both ends at once): the second finds the task closed, which is no error', async () => {
    const { ask, give, wait, cluster } = world();
    await ask('approve');
    const { outcome } = await wait('production', ['approve']);
    await give('approve');
    await outcome;
    // The waiting step's Secret is still there until the build's cleanup: a later approval's look finds its task closed.
    expect(cluster.secrets.has(objectKey(NS, approvalWaitName(BUILD.id, 'production')))).toBe(true);
    await expect(give('approve')).resolves.toEqual({ released: [] });
  });

  it('refuses to wait where nothing could answer it', async () => {
    const { deps } = world();
    const { callbacks: _none, ...without } = deps;
    await expect(awaitApprovedNeeds({ task: 'await-approved-needs', build: BUILD, namespace: NS, step: waiting('production', ['approve']), taskToken: 't' }, without)).rejects.toThrow(InvalidApprovalWait);
  });
});
