import { keptDeadlineSeconds, succeededStepAnnotation, succeededSteps } from './workspace-record.js';
import { BUILD_DEADLINE_ANNOTATION } from './types.js';

describe('what a claim remembers for a re-run', () => {
  it('reads the steps FinishStep marked succeeded, and nothing else', () => {
    const claim = {
      metadata: {
        annotations: {
          [succeededStepAnnotation('clone')]: '2026-12-02T06:00:00.000Z',
          [succeededStepAnnotation('unit-tests')]: '2026-12-02T06:01:00.000Z',
          [BUILD_DEADLINE_ANNOTATION]: '3600',
          'volume.kubernetes.io/selected-node': 'node-a',
        },
      },
    };
    expect([...succeededSteps(claim)].sort()).toEqual(['clone', 'unit-tests']);
    expect(succeededSteps(undefined).size).toBe(0);
  });

  it.each([
    { title: 'kept from now, counted from its creation', created: '2026-12-02T06:00:00Z', written: '3600', now: '2026-12-02T06:30:00Z', keep: 86_400, expected: 1800 + 86_400 },
    { title: 'never shortened below the deadline it has', created: '2026-12-02T06:00:00Z', written: '200000', now: '2026-12-02T06:30:00Z', keep: 86_400, expected: 200_000 },
    { title: 'a deadline that is not a number is replaced', created: '2026-12-02T06:00:00Z', written: 'soon', now: '2026-12-02T06:00:10Z', keep: 60, expected: 70 },
  ])('the kept deadline: $title', ({ created, written, now, keep, expected }) => {
    const metadata = { creationTimestamp: new Date(created), annotations: { [BUILD_DEADLINE_ANNOTATION]: written } };
    expect(keptDeadlineSeconds(metadata, new Date(now), keep)).toBe(expected);
  });

  it('keeps nothing it cannot date', () => {
    expect(keptDeadlineSeconds({}, new Date(), 60)).toBeUndefined();
  });
});
