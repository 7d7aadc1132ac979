import type { FieldProblem } from './api-errors.js';
import type { PersistentVolumeClaim, Pod } from './objects.js';
import { validatePod } from './validation.js';
import { validateClaim } from './volume-validation.js';

const rendered = (problems: FieldProblem[]) => problems.map((p) => `${p.field}: ${p.message}`);

function pod(spec: Partial<Pod['spec']>, container: Partial<Pod['spec']['containers'][number]> = {}): Pod {
  return { metadata: { name: 'p' }, spec: { containers: [{ name: 'step', image: 'alpine', ...container }], ...spec } };
}

test('a mount must name a valid volume of the pod', () => {
  const subject = pod({ volumes: [{ name: 'workspace', persistentVolumeClaim: { claimName: 'ws' } }] }, { volumeMounts: [{ name: 'x', mountPath: '/workspace' }] });
  expect(rendered(validatePod(subject))).toEqual(['spec.containers[0].volumeMounts[0].name: Not found: "x"']);
});

test('volumes: a type is required, one only, a claim needs its name, names are unique; a faulty volume cannot be mounted', () => {
  const subject = pod(
    {
      volumes: [
        { name: 'none' },
        { name: 'both', emptyDir: {}, persistentVolumeClaim: { claimName: 'ws' } },
        { name: 'claim', persistentVolumeClaim: { claimName: '' } },
        { name: 'scratch', emptyDir: {} },
        { name: 'scratch', emptyDir: {} },
      ],
    },
    { volumeMounts: [{ name: 'none', mountPath: '/a' }, { name: 'scratch', mountPath: '/a' }, { name: 'scratch', mountPath: '/b', subPath: '../up' }] },
  );
  expect(rendered(validatePod(subject))).toEqual([
    'spec.volumes[0]: Required value: must specify a volume type',
    'spec.volumes[1].persistentVolumeClaim: Forbidden: may not specify more than 1 volume type',
    'spec.volumes[2].persistentVolumeClaim.claimName: Required value',
    'spec.volumes[4].name: Duplicate value: "scratch"',
    'spec.containers[0].volumeMounts[0].name: Not found: "none"',
    'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/a": must be unique',
    `spec.containers[0].volumeMounts.subPath: Invalid value: "../up": must not contain '..'`,
  ]);
});

test('node affinity: each operator with the values it needs', () => {
  const subject = pod({
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In' }, { key: 'gpu', operator: 'Exists', values: ['yes'] }] }],
        },
      },
    },
  });
  const at = 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]';
  expect(rendered(validatePod(subject))).toEqual([
    `${at}.matchExpressions[0].values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`,
    `${at}.matchExpressions[1].values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`,
  ]);
});

function claim(spec: Partial<PersistentVolumeClaim['spec']>): PersistentVolumeClaim {
  return { metadata: { name: 'ws' }, spec };
}

test('a claim needs access modes and a positive storage request; class and modes are checked', () => {
  expect(rendered(validateClaim(claim({})))).toEqual([
    'spec.accessModes: Required value: at least 1 access mode is required',
    'spec.resources[storage]: Required value',
  ]);
  expect(rendered(validateClaim(claim({ accessModes: ['ReadWriteOnce', 'ReadWriteOncePod', 'Sometimes'], storageClassName: 'Fast_SSD', volumeMode: 'Raw', resources: { requests: { storage: '0' } } })))).toEqual([
    'spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
    'spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes',
    'spec.resources[storage]: Invalid value: "0": must be greater than zero',
    expect.stringMatching(/^spec\.storageClassName: Invalid value: "Fast_SSD": a lowercase RFC 1123 subdomain/),
    'spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"',
  ]);
  expect(validateClaim(claim({ accessModes: ['ReadWriteOnce'], storageClassName: 'gp2', resources: { requests: { storage: '10Gi' } } }))).toEqual([]);
});

test('a storage request that is not a quantity cannot even be decoded: 400', () => {
  expect(() => validateClaim(claim({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: 'ten gigs' } } }))).toThrow(
    expect.objectContaining({ code: 400, message: expect.stringContaining('PersistentVolumeClaim in version "v1" cannot be handled as a PersistentVolumeClaim: quantities must match') }),
  );
});
