import { provisionedCapacity } from './volume-provisioner.js';

test.each([
  ['10Gi', 'ebs.csi.aws.com', '10Gi'],
  ['1500Mi', 'ebs.csi.aws.com', '2Gi'],
  ['1', 'ebs.csi.aws.com', '1Gi'],
  ['1500Mi', 'step-runner.dev/host-path', '1500Mi'],
])('a claim of %s from %s gets %s', (request, provisioner, capacity) => {
  expect(provisionedCapacity(request, provisioner)).toBe(capacity);
});
