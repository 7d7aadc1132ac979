import { DescribeClusterCommand, type EKSClient } from '@aws-sdk/client-eks';
import { KubernetesUnavailable } from './errors.js';

export interface EksClusterEndpoint {
  /** https URL of the cluster's API server. */
  endpoint: string;
  /** Base64 PEM of the cluster's certificate authority, as kubeconfig's certificate-authority-data. */
  certificateAuthorityData: string;
}

/** Where a cluster's API server is and how to trust it; anything not usable yet is said plainly. */
export async function describeEksCluster(eks: EKSClient, clusterName: string): Promise<EksClusterEndpoint> {
  const operation = `DescribeCluster ${clusterName}`;
  let cluster;
  try {
    ({ cluster } = await eks.send(new DescribeClusterCommand({ name: clusterName })));
  } catch (error) {
    const name = (error as { name?: string }).name;
    const detail = name === 'ResourceNotFoundException' ? 'no such cluster in this account and region' : (error as Error).message;
    throw new KubernetesUnavailable(`Cannot reach EKS cluster "${clusterName}": ${detail}`, operation, 1, { cause: error });
  }
  if (!cluster) {
    throw new KubernetesUnavailable(`EKS cluster "${clusterName}" was not described by DescribeCluster`, operation, 1);
  }
  if (cluster.status !== 'ACTIVE') {
    throw new KubernetesUnavailable(
      `EKS cluster "${clusterName}" is ${cluster.status ?? 'in an unknown state'}, not ACTIVE: its API cannot run steps now`,
      operation,
      1,
    );
  }
  const endpoint = cluster.endpoint;
  const certificateAuthorityData = cluster.certificateAuthority?.data;
  if (!endpoint || !certificateAuthorityData) {
    throw new KubernetesUnavailable(
      `EKS cluster "${clusterName}" has no ${endpoint ? 'certificate authority data' : 'API endpoint'} yet`,
      operation,
      1,
    );
  }
  return { endpoint, certificateAuthorityData };
}
