/**
 * The pull classifier on the Docker daemon's own words, recorded against a real dockerd
 * (test/fixtures/kube/docker-pull-messages.json, written by test/fixtures/docker/record-pull-wording.ts):
 * a kubelet with a Docker runtime must reach the verdict it reaches on containerd's words for the
 * same failure, whether it judges the daemon's message alone, the Failed event, the back-off
 * waiting message, or an older kubelet's event that still carries the gRPC prefix.
 */
import { describe, expect, it } from '@jest/globals';
import { classifyPullMessage, isAuthPullFailure, isInvalidReferenceMessage, isRetryablePullFailure } from './image-pull.js';
import { runtimeWords } from './cause.js';
import { loadDockerPullMessages, olderFailedEvent, runtimeError, type RecordedPull } from '../../test/fixtures/docker/pull-wording.js';

const recorded = loadDockerPullMessages();

function forms(c: RecordedPull): [string, string][] {
  const all: [string, string | null][] = [
    ['the daemon message', c.daemonMessage],
    ['the Failed event', c.event],
    ['the back-off message', c.backOff],
    ["an older kubelet's event", c.backOff === null ? null : olderFailedEvent(c.image, runtimeError(c.via, c.daemonMessage))],
  ];
  return all.filter((form): form is [string, string] => form[1] !== null);
}

const judged = recorded.cases.flatMap((c) => forms(c).map(([form, message]) => [c.name, form, message, c] as const));

describe('the recording', () => {
  it('holds the cases the classifier must tell apart, from one daemon', () => {
    expect(recorded.daemon.version).toMatch(/^\d+\.\d+/);
    const verdicts = new Set(recorded.cases.map((c) => c.verdict));
    expect(verdicts).toEqual(new Set(['permanent', 'transient']));
    for (const part of ['manifest unknown', 'no basic auth credentials', 'connection refused', 'no such host', 'toomanyrequests', 'x509:', 'invalid reference format']) {
      expect(recorded.cases.some((c) => c.daemonMessage.includes(part))).toBe(true);
    }
  });
});

describe('classifyPullMessage on the Docker daemon wording', () => {
  it.each(judged)('%s, as %s', (_name, _form, message, c) => {
    expect(classifyPullMessage(message, c.image)).toBe(c.verdict);
    expect(isRetryablePullFailure(message, c.image)).toBe(c.verdict !== 'permanent');
  });
});

describe('isAuthPullFailure on the Docker daemon wording', () => {
  it.each(judged)('%s, as %s', (_name, _form, message, c) => {
    expect(isAuthPullFailure(message, c.image)).toBe(c.auth);
  });
});

describe('the Cause keeps the daemon words', () => {
  it.each(recorded.cases.filter((c) => c.backOff !== null).map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(runtimeWords(c.event)).toContain(c.daemonMessage);
    expect(runtimeWords(c.backOff!)).toContain(c.daemonMessage);
  });
});

describe('an invalid reference', () => {
  it.each(recorded.cases.filter((c) => c.backOff === null).map((c) => [c.name, c] as const))('%s is the kubelet refusing it, in the daemon words too', (_name, c) => {
    expect(isInvalidReferenceMessage(c.event)).toBe(true);
    expect(isInvalidReferenceMessage(c.daemonMessage)).toBe(true);
  });
});

describe('ECR keeps its grace period', () => {
  // The kubelet's ECR login comes from the node's role and lapses now and then
  // (kubernetes/kubernetes#74297, #83348): the same words from ECR are worth waiting for.
  const noLogin = recorded.cases.find((c) => c.daemonMessage.endsWith('no basic auth credentials'))!;
  const image = '602401143452.dkr.ecr.us-west-2.amazonaws.com/team/app:1';
  const message = `Failed to pull image "${image}": Error response from daemon: Head "https://602401143452.dkr.ecr.us-west-2.amazonaws.com/v2/team/app/manifests/1": no basic auth credentials`;

  it('is permanent from any other registry', () => {
    expect(classifyPullMessage(noLogin.event, noLogin.image)).toBe('permanent');
  });

  it('is not permanent from an ECR registry, named by the image or only by the message', () => {
    expect(classifyPullMessage(message, image)).toBe('unknown');
    expect(classifyPullMessage(message)).toBe('unknown');
    expect(isAuthPullFailure(message, image)).toBe(true);
  });
});

describe('a bare "denied" is the registry refusing, not a local permission', () => {
  it.each([
    ['Error response from daemon: denied', 'permanent'],
    ['Error response from daemon: Head "https://ghcr.io/v2/acme/app/manifests/1": denied: denied', 'permanent'],
    ['Error response from daemon: error from registry: denied\ndenied', 'permanent'],
    ['failed to register layer: open /var/lib/docker/tmp/x: permission denied', 'unknown'],
  ])('%s -> %s', (message, verdict) => {
    expect(classifyPullMessage(message)).toBe(verdict);
  });
});
