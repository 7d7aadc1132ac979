import type { V1Pod } from '@kubernetes/client-node';
import { buildObjectOrphanVerdict, orphanVerdict, selectOrphanedPods, type OrphanVerdict } from './orphans.js';

const NOW = new Date('2026-03-01T12:00:00Z');
const MARGIN = 600;
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);

function pod(options: {
  name?: string;
  managedBy?: string | null;
  createdSecondsAgo?: number | null;
  createdAs?: 'date' | 'string';
  deadline?: number | null;
  deleting?: boolean;
  keptFor?: number;
}): V1Pod {
  const created = options.createdSecondsAgo === null ? undefined : ago(options.createdSecondsAgo ?? 0);
  const labels: Record<string, string> = options.managedBy === null ? { app: 'web' } : { 'app.kubernetes.io/managed-by': options.managedBy ?? 'serverless-step-runner' };
  return {
    metadata: {
      name: options.name ?? 'p',
      labels,
      ...(created ? { creationTimestamp: (options.createdAs === 'string' ? created.toISOString() : created) as Date } : {}),
      ...(options.deleting ? { deletionTimestamp: ago(5) } : {}),
      ...(options.keptFor !== undefined ? { annotations: { 'step-runner.dev/active-deadline-seconds': String(options.keptFor) } } : {}),
    },
    spec: {
      containers: [{ name: 'step', image: 'alpine:3.20' }],
      ...(options.deadline === null ? {} : { activeDeadlineSeconds: options.deadline ?? 3600 }),
    },
  };
}

describe('orphanVerdict', () => {
  const cases: [string, Parameters<typeof pod>[0], OrphanVerdict][] = [
    ['a runner pod past its deadline and the margin', { createdSecondsAgo: 3600 + MARGIN + 1 }, 'orphan'],
    ['exactly at deadline + margin', { createdSecondsAgo: 3600 + MARGIN }, 'orphan'],
    ['a creationTimestamp given as a string', { createdSecondsAgo: 3600 + MARGIN + 1, createdAs: 'string' }, 'orphan'],
    ['a short step long done', { createdSecondsAgo: 10_000, deadline: 60 }, 'orphan'],
    ['past its deadline but within the margin (its build may still be finishing)', { createdSecondsAgo: 3600 + MARGIN - 1 }, 'within-deadline'],
    ['a runner pod still within its deadline', { createdSecondsAgo: 30 }, 'within-deadline'],
    ['a foreign pod, however old', { managedBy: null, createdSecondsAgo: 999_999 }, 'not-ours'],
    ['a pod managed by another tool', { managedBy: 'helm', createdSecondsAgo: 999_999 }, 'not-ours'],
    ['a runner pod already being deleted', { createdSecondsAgo: 999_999, deleting: true }, 'already-deleting'],
    ['a runner-labelled pod without a deadline', { createdSecondsAgo: 999_999, deadline: null }, 'no-deadline'],
    ['a zero deadline', { createdSecondsAgo: 999_999, deadline: 0 }, 'no-deadline'],
    ['no creationTimestamp', { createdSecondsAgo: null }, 'no-deadline'],
    ['a step\'s pod kept for the steps that need it, past its own deadline but not its build\'s', { createdSecondsAgo: 3600 + MARGIN + 1, keptFor: 86_400 }, 'within-deadline'],
    ['a kept pod past its build\'s deadline too', { createdSecondsAgo: 86_400 + MARGIN, keptFor: 86_400 }, 'orphan'],
  ];
  it.each(cases)('%s', (_name, options, verdict) => {
    expect(orphanVerdict(pod(options), NOW, MARGIN)).toBe(verdict);
  });
});

describe('selectOrphanedPods', () => {
  it('keeps only the runner pods past deadline and margin, in order', () => {
    const pods = [
      pod({ name: 'old-runner', createdSecondsAgo: 7200 }),
      pod({ name: 'live-runner', createdSecondsAgo: 60 }),
      pod({ name: 'old-foreign', managedBy: null, createdSecondsAgo: 7200 }),
      pod({ name: 'older-runner', createdSecondsAgo: 90_000 }),
    ];
    expect(selectOrphanedPods(pods, NOW, MARGIN).map((p) => p.metadata?.name)).toEqual(['old-runner', 'older-runner']);
  });

  it('with no margin, selects a pod the moment its deadline has passed', () => {
    expect(selectOrphanedPods([pod({ createdSecondsAgo: 3600 })], NOW, 0)).toHaveLength(1);
    expect(selectOrphanedPods([pod({ createdSecondsAgo: 3599 })], NOW, 0)).toHaveLength(0);
  });
});

describe('buildObjectOrphanVerdict (workspace claims, clone credentials)', () => {
  const claim = (annotations: Record<string, string>, createdSecondsAgo: number, managedBy = 'serverless-step-runner') => ({
    metadata: {
      name: 'c',
      labels: { 'app.kubernetes.io/managed-by': managedBy },
      annotations,
      creationTimestamp: ago(createdSecondsAgo),
    },
  });
  it.each([
    ['past the build deadline written on it, and the margin', { 'step-runner.dev/active-deadline-seconds': '600' }, 600 + MARGIN, 'orphan'],
    ['its build may still be running', { 'step-runner.dev/active-deadline-seconds': '600' }, 600 + MARGIN - 1, 'within-deadline'],
    ['no deadline written: never touched', {}, 999_999, 'no-deadline'],
    ['a deadline that is not a number', { 'step-runner.dev/active-deadline-seconds': 'soon' }, 999_999, 'no-deadline'],
  ] as const)('%s', (_, annotations, age, expected) => {
    expect(buildObjectOrphanVerdict(claim({ ...annotations }, age), NOW, MARGIN)).toBe(expected);
  });

  it('leaves a claim the runner did not make, however old', () => {
    expect(buildObjectOrphanVerdict(claim({ 'step-runner.dev/active-deadline-seconds': '1' }, 999_999, 'someone-else'), NOW, MARGIN)).toBe('not-ours');
  });
});
