import { EKSClient } from '@aws-sdk/client-eks';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { KubeConfig } from '@kubernetes/client-node';
import type { AwsCredentialsProvider } from '../contract/aws-credentials.js';
import { describeEksCluster, type EksClusterEndpoint } from './eks-cluster.js';
import { eksToken, type EksToken } from './eks-token.js';

export interface EksConnectionOptions {
  clusterName: string;
  region: string;
  /** The token's and DescribeCluster's. Default: the Node provider chain (Lambda role, env, profile, SSO...). */
  credentials?: AwsCredentialsProvider;
  eksClient?: EKSClient;
  now?: () => Date;
  /** Default: one shared per process, so warm Lambda invocations reuse the token. */
  cache?: EksConnectionCache;
}

interface EksConnection extends EksClusterEndpoint, EksToken {
  /** Renew well before the token expires: a poll may start a few minutes of API calls with it. */
  renewAt: number;
}

/** Renew a token this long after issuing it (it lives ~14 min), so a caller always has >= 4 min left. */
export const EKS_TOKEN_RENEW_AFTER_MS = 10 * 60_000;
const RENEW_BEFORE_EXPIRY_MS = 4 * 60_000;

/** Endpoint, CA and token per cluster, renewed together: one DescribeCluster per token. */
export class EksConnectionCache {
  readonly #entries = new Map<string, { connection: Promise<EksConnection>; renewAt?: number }>();

  get(key: string, now: Date, create: () => Promise<EksConnection>): Promise<EksConnection> {
    const entry = this.#entries.get(key);
    // A renewal under way (renewAt unknown yet) is shared by concurrent callers.
    if (entry && (entry.renewAt === undefined || now.getTime() < entry.renewAt)) return entry.connection;
    const fresh: { connection: Promise<EksConnection>; renewAt?: number } = { connection: create() };
    fresh.connection.then(
      (connection) => {
        fresh.renewAt = connection.renewAt;
      },
      () => {
        // Forget a failure so that the next call tries again.
        if (this.#entries.get(key) === fresh) this.#entries.delete(key);
      },
    );
    this.#entries.set(key, fresh);
    return fresh.connection;
  }

  clear(): void {
    this.#entries.clear();
  }
}

const sharedCache = new EksConnectionCache();

/**
 * A KubeConfig for an EKS cluster from IAM alone: DescribeCluster for the endpoint and CA, and a
 * bearer token signed with the caller's credentials. The token inside is fixed, so call this again
 * for each unit of work (each Lambda invocation) rather than keeping the KubeConfig: the cache
 * makes that cheap and renews the token before it expires.
 */
export async function kubeConfigForEks(options: EksConnectionOptions): Promise<KubeConfig> {
  const { clusterName, region, now = () => new Date(), cache = sharedCache } = options;
  const connection = await cache.get(`${region}/${clusterName}`, now(), async () => {
    // DescribeCluster as the same identity as the token: the one the cluster's access entry maps.
    const eks = options.eksClient ?? new EKSClient({ region, ...(options.credentials ? { credentials: options.credentials } : {}) });
    const credentials = options.credentials ?? fromNodeProviderChain();
    const [endpoint, token] = await Promise.all([
      describeEksCluster(eks, clusterName),
      eksToken({ clusterName, region, credentials, now }),
    ]);
    const issuedAt = now().getTime();
    const renewAt = Math.min(issuedAt + EKS_TOKEN_RENEW_AFTER_MS, token.expiresAt.getTime() - RENEW_BEFORE_EXPIRY_MS);
    return { ...endpoint, ...token, renewAt };
  });
  return eksKubeConfig(clusterName, connection);
}

function eksKubeConfig(clusterName: string, connection: EksConnection): KubeConfig {
  const name = `eks-${clusterName}`;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name, server: connection.endpoint, caData: connection.certificateAuthorityData, skipTLSVerify: false }],
    users: [{ name, token: connection.token }],
    contexts: [{ name, cluster: name, user: name }],
    currentContext: name,
  });
  return kubeConfig;
}
