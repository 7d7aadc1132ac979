import type { CoreV1Api } from '@kubernetes/client-node';
import { httpStatus, unexpectedKubeError } from './api-error.js';
import { withKubeRetries, type KubeRetryOptions } from './retry.js';

/**
 * The label the cloud controller (and Karpenter) set on an EC2 node: its instance type, what the
 * node's price is looked up by (kubernetes.io/docs/reference/labels-annotations-taints,
 * node.kubernetes.io/instance-type).
 */
export const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';

/**
 * The node's instance type; null when it has none, is gone, or the runner may not read nodes (a
 * namespace-scoped access entry: nodes are cluster-scoped, docs/cost.md). Only the price depends
 * on it, so it never fails a step.
 */
export async function nodeInstanceType(api: Pick<CoreV1Api, 'readNode'>, name: string, retry?: KubeRetryOptions): Promise<string | null> {
  const read = `read node ${name}`;
  try {
    const node = await withKubeRetries(read, () => api.readNode({ name }), retry);
    return node.metadata?.labels?.[INSTANCE_TYPE_LABEL] || null;
  } catch (error) {
    const status = httpStatus(error);
    if (status === 403 || status === 404) return null;
    throw unexpectedKubeError(read, error);
  }
}
