import { ApiException, type CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { INSTANCE_TYPE_LABEL, nodeInstanceType } from './node-instance-type.js';

const refusal = (code: number, reason: string, message: string) =>
  new ApiException(code, 'Unknown API Status Code!', JSON.stringify({ kind: 'Status', status: 'Failure', reason, message, code }), {});

const api = (answer: () => V1Node): Pick<CoreV1Api, 'readNode'> => ({ readNode: async () => answer() });

// The apiserver's words for an identity not allowed to read a node (kubernetes/kubernetes
// staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go, forbiddenMessage:
// `cannot get resource "nodes" in API group "" at the cluster scope`).
describe("a node's instance type, for a step pod's price", () => {
  it.each<[string, () => V1Node, string | null]>([
    ['an EC2 node: its label', () => ({ metadata: { name: 'ip-10-0-1-5', labels: { [INSTANCE_TYPE_LABEL]: 'm7g.large' } } }), 'm7g.large'],
    ['a node without the label', () => ({ metadata: { name: 'kind-worker', labels: {} } }), null],
    ['a runner that may not read nodes (eksAccess edit)', () => { throw refusal(403, 'Forbidden', 'nodes "ip-10-0-1-5" is forbidden: User "step-runner" cannot get resource "nodes" in API group "" at the cluster scope'); }, null],
    ['a node gone since', () => { throw refusal(404, 'NotFound', 'nodes "ip-10-0-1-5" not found'); }, null],
  ])('%s', async (_, answer, expected) => {
    expect(await nodeInstanceType(api(answer), 'ip-10-0-1-5', { maxAttempts: 1 })).toBe(expected);
  });
});
