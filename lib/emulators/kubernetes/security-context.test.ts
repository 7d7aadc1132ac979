import type { Container, Pod } from './objects.js';
import { effectiveSecurityContext, runAsNonRootViolation } from './security-context.js';

function pod(podContext: object | undefined, containerContext: object | undefined): { pod: Pod; container: Container } {
  const container: Container = { name: 'step', image: 'alpine', ...(containerContext ? { securityContext: containerContext } : {}) };
  return {
    container,
    pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'build-1-test', namespace: 'ci', uid: 'u-1' }, spec: { containers: [container], ...(podContext ? { securityContext: podContext } : {}) } } as Pod,
  };
}

test('the container settings win field by field over the pod; fsGroup comes from the pod', () => {
  const { pod: p, container } = pod({ runAsUser: 1000, runAsGroup: 1000, fsGroup: 2000, runAsNonRoot: true }, { runAsUser: 1001, capabilities: { drop: ['ALL'] } });
  expect(effectiveSecurityContext(p, container)).toEqual({ runAsUser: 1001, runAsGroup: 1000, runAsNonRoot: true, fsGroup: 2000, capabilities: { drop: ['ALL'] } });
});

const who = '(pod: "build-1-test_ci(u-1)", container: step)';
test.each([
  ['runAsNonRoot unset: anything starts', undefined, undefined, '', undefined],
  ['an image without USER runs as root', { runAsNonRoot: true }, undefined, '', `container has runAsNonRoot and image will run as root ${who}`],
  ['USER 0:0 is root', undefined, { runAsNonRoot: true }, '0:0', `container has runAsNonRoot and image will run as root ${who}`],
  ['a numeric non-root USER passes', { runAsNonRoot: true }, undefined, '1000:1000', undefined],
  ['a named USER cannot be verified', { runAsNonRoot: true }, undefined, 'nobody', `container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root ${who}`],
  ['runAsUser set: the image is not looked at', { runAsNonRoot: true, runAsUser: 1000 }, undefined, '', undefined],
  ['runAsUser 0 breaks the policy', { runAsNonRoot: true }, { runAsUser: 0 }, '1000', `container's runAsUser breaks non-root policy ${who}`],
  ['the container may turn it off', { runAsNonRoot: true }, { runAsNonRoot: false }, '', undefined],
  ['an image whose user is not known (process runner) passes', { runAsNonRoot: true }, undefined, undefined, undefined],
])('%s', (_case, podContext, containerContext, imageUser, expected) => {
  const { pod: p, container } = pod(podContext, containerContext);
  expect(runAsNonRootViolation(p, container, imageUser)).toBe(expected);
});
