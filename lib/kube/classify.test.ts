import { describe, expect, it, jest } from '@jest/globals';
import { classifyStep, PINNED_UNSCHEDULABLE_GRACE_SECONDS } from './classify.js';
import type { StepStatus } from './types.js';
import { MAX_CAUSE_LENGTH } from './cause.js';
import { classifyCases, type Expected } from '../../test/fixtures/kube/cases.js';
import {
  SHARED_ORIGINAL,
  examplesPresent,
  imageOf,
  loadExamples,
  observationFromExample,
} from '../../test/fixtures/kube/shared-examples.js';
import { itRequiring } from '../../test/fixtures/requirements.js';
import {
  CLAIM,
  FIRST_SEEN,
  WORKSPACE_NODE,
  loadWorkspaceExamples,
  workspaceObservation,
  type WorkspaceExample,
} from '../../test/fixtures/kube/workspace-examples.js';
import { DEFAULT_CLASSIFY_OPTIONS, type StepIdentity } from './types.js';

function expectStatus(status: StepStatus, expected: Expected, identity: StepIdentity): void {
  expect(status.phase).toBe(expected.phase);
  if (expected.reason) expect(status.reason).toBe(expected.reason);
  if (status.phase === 'failed') {
    expect(status.error).toBe(expected.error);
    if (expected.exitCode !== undefined) expect(status.exitCode).toBe(expected.exitCode);
    expect(status.cause).toContain(`"${identity.step}"`);
    // The checkout's Causes name it as the checkout: its image is the runner's git, not the pipeline's.
    const image = expected.image === undefined ? (identity.checkout ? null : identity.image) : expected.image;
    if (image !== null) expect(status.cause).toContain(`"${image}"`);
    if (image !== identity.image) expect(status.cause).not.toContain(`"${identity.image}"`);
    expect(status.cause.length).toBeLessThanOrEqual(MAX_CAUSE_LENGTH);
    for (const word of expected.words ?? []) expect(status.cause).toContain(word);
  } else {
    expect(expected.error).toBeUndefined();
    if (status.phase === 'succeeded') expect(status.exitCode).toBe(expected.exitCode ?? 0);
    const message = 'message' in status ? (status.message ?? '') : '';
    for (const word of expected.words ?? []) expect(message).toContain(word);
  }
}

describe('classifyStep', () => {
  it.each(classifyCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expectStatus(classifyStep(c.observation, c.identity, c.options), c.expected, c.identity);
  });

  it('reads the clock from the observation only', () => {
    const c = classifyCases.find((x) => x.name.startsWith('pull: transient rate limit within grace'));
    if (!c) throw new Error('fixture missing');
    // Within its grace period by the observation's clock; by the wall clock (the fixture's times
    // are long past, and here it is a century later still) the grace would be long over.
    jest.useFakeTimers({ now: new Date('2126-01-01T00:00:00Z') });
    try {
      expectStatus(classifyStep(c.observation, c.identity), c.expected, c.identity);
    } finally {
      jest.useRealTimers();
    }
    expect(c.expected.phase).toBe('pending');
  });
});

/** What each shared example must produce: at its last event, and once the grace period is over. */
const sharedExpectations: Record<string, { atOnce: Expected; afterGrace?: Expected }> = {
  'go-vela/worker runtime/kubernetes tests (PR #279)': {
    atOnce: { phase: 'failed', error: 'ImagePullFailed', reason: 'ImagePullBackOff', words: ['docker.io/library/alpine:notfound: not found'] },
  },
  'kubernetes/kubernetes#110675': {
    atOnce: { phase: 'failed', error: 'ImagePullFailed', reason: 'ErrImagePull', words: ['401 Unauthorized'] },
  },
  'dell/csi-baremetal#391': {
    atOnce: { phase: 'pending', reason: 'ErrImagePull', words: ['429 Too Many Requests'] },
    afterGrace: { phase: 'failed', error: 'ImagePullFailed', words: ['429 Too Many Requests', 'toomanyrequests'] },
  },
  'ceph/ceph-csi#2029': {
    atOnce: { phase: 'pending', reason: 'ImagePullBackOff', words: ['toomanyrequests'] },
    afterGrace: { phase: 'failed', error: 'ImagePullFailed', words: ['toomanyrequests: You have reached your pull rate limit'] },
  },
  'kubernetes/kubeadm#2936': {
    atOnce: { phase: 'pending', reason: 'ErrImagePull', words: ['connection timed out'] },
    afterGrace: { phase: 'failed', error: 'ImagePullFailed', words: ['dial tcp 34.96.108.209:443: connect: connection timed out'] },
  },
  'digitalocean/clusterlint#71 (pod status), cloudfoundry-incubator/kubecf#63 (events)': {
    atOnce: { phase: 'failed', error: 'InvalidImage', reason: 'InvalidImageName', words: ['invalid reference format'] },
  },
};

describe('shared image pull examples', () => {
  // Throws (failing the file) when the repository copy is missing or empty.
  const examples = loadExamples();

  it('are present in the repository copy', () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  itRequiring(
    'match the team copy beside the clone',
    {
      present: examplesPresent(SHARED_ORIGINAL),
      missing: `no team copy of the examples at ${SHARED_ORIGINAL}`,
      remedy: 'Check out the shared fixtures beside the clone (../shared), where CI keeps them',
    },
    () => {
      expect(loadExamples(SHARED_ORIGINAL)).toStrictEqual(examples);
    },
  );

  it.each(examples.map((e) => [e.seen, e] as const))('every example has an expectation: %s', (seen) => {
    expect(sharedExpectations[seen]).toBeDefined();
  });

  it.each(examples.map((e) => [e.seen, e] as const))('%s', (seen, example) => {
    const expected = sharedExpectations[seen];
    if (!expected) throw new Error(`no expectation for ${seen}`);
    const identity = { step: 'build', image: imageOf(example) };
    expectStatus(classifyStep(observationFromExample(example), identity), expected.atOnce, identity);
    if (expected.afterGrace) {
      expectStatus(classifyStep(observationFromExample(example, 90), identity), expected.afterGrace, identity);
    }
  });
});

describe('workspace examples (workspace-messages.json)', () => {
  // Throws (failing the file) when the fixture is missing or empty.
  const examples = loadWorkspaceExamples();
  const identity = { step: 'build', image: 'alpine:3.20' };
  const grace = DEFAULT_CLASSIFY_OPTIONS.workspaceGraceSeconds;
  const atOnce = FIRST_SEEN + 1;
  const pastGrace = FIRST_SEEN + grace + 1;
  const named = (list: WorkspaceExample[]) => list.map((e) => [`${e.name} (${e.seen})`, e] as const);

  it('covers every verdict and every place a workspace failure is reported', () => {
    const kinds = new Set(examples.map((e) => `${e.verdict} ${e.event.reason}`));
    for (const expected of [
      'permanent ProvisioningFailed',
      'transient ProvisioningFailed',
      'waiting ExternalProvisioning',
      'waiting WaitForFirstConsumer',
      'permanent FailedScheduling',
      'transient FailedScheduling',
      'permanent FailedAttachVolume',
      'transient FailedAttachVolume',
      'transient FailedMount',
    ]) {
      expect(kinds).toContain(expected);
    }
    expect(examples.some((e) => e.pinned)).toBe(true);
  });

  it.each(named(examples.filter((e) => e.verdict === 'permanent' && !e.capacity)))('fails at once (pinned: once the previous pod is surely gone): %s', (_name, example) => {
    if (example.pinned) {
      // The previous step's pod may still hold the node's cpu for a few seconds.
      expect(classifyStep(workspaceObservation(example, atOnce), identity)).toMatchObject({ phase: 'pending', reason: 'Unschedulable' });
    }
    const status = classifyStep(workspaceObservation(example, example.pinned ? PINNED_UNSCHEDULABLE_GRACE_SECONDS + 1 : atOnce), identity);
    expect(status).toMatchObject({ phase: 'failed', error: example.error });
    if (status.phase !== 'failed') throw new Error('not failed');
    expect(status.cause).toContain('Step "build" (image "alpine:3.20")');
    expect(status.cause).toContain(`claim "${CLAIM}"`);
    expect(status.cause).not.toContain('grace period');
    expect(status.cause.length).toBeLessThanOrEqual(MAX_CAUSE_LENGTH);
    for (const word of example.keyWords) expect(status.cause).toContain(word);
    if (example.pinned) expect(status.cause).toContain(`pinned to node "${WORKSPACE_NODE}"`);
    else expect(status.reason).toBe(example.event.reason);
  });

  it.each(named(examples.filter((e) => e.verdict === 'transient')))('waits out its grace period, then fails: %s', (_name, example) => {
    const within = classifyStep(workspaceObservation(example, pastGrace - 2), identity);
    expect(within).toMatchObject({ phase: 'pending', reason: example.event.reason });
    for (const word of example.keyWords) expect('message' in within ? within.message : '').toContain(word);

    const after = classifyStep(workspaceObservation(example, pastGrace), identity);
    expect(after).toMatchObject({ phase: 'failed', error: 'WorkspaceUnavailable', reason: example.event.reason });
    if (after.phase !== 'failed') throw new Error('not failed');
    expect(after.cause).toContain(`claim "${CLAIM}"`);
    expect(after.cause).toContain(`grace period ${grace} s`);
    for (const word of example.keyWords) expect(after.cause).toContain(word);
  });

  it.each(named(examples.filter((e) => e.verdict === 'waiting')))('stays pending with the controller\'s words: %s', (_name, example) => {
    for (const seconds of [atOnce, pastGrace]) {
      const status = classifyStep(workspaceObservation(example, seconds), identity);
      expect(status).toMatchObject({ phase: 'pending', reason: example.event.reason });
      for (const word of example.keyWords) expect('message' in status ? status.message : '').toContain(word);
    }
  });

  it.each(named(examples.filter((e) => e.pinned && !e.capacity)))('unpinned, the same scheduler words wait for the autoscaler: %s', (_name, example) => {
    expect(classifyStep(workspaceObservation(example, atOnce, false), identity)).toMatchObject({ phase: 'pending', reason: 'Unschedulable' });
  });

  it.each(named(examples.filter((e) => e.capacity)))('room alone, no autoscaler word: waits for capacity, pinned or not, past every grace: %s', (_name, example) => {
    for (const [seconds, pinned] of [[atOnce, true], [PINNED_UNSCHEDULABLE_GRACE_SECONDS + 1, true], [pastGrace, false]] as const) {
      const status = classifyStep(workspaceObservation(example, seconds, pinned), identity);
      expect(status).toMatchObject({ phase: 'pending', reason: 'WaitingForCapacity' });
      for (const word of example.keyWords) expect('message' in status ? status.message : '').toContain(word);
    }
  });
});
