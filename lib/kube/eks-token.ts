import { Sha256 } from '@aws-crypto/sha256-js';
import { EKSClient } from '@aws-sdk/client-eks';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialsProvider } from '../contract/aws-credentials.js';

export interface EksToken {
  /** The bearer token: `k8s-aws-v1.` + base64url of a presigned STS GetCallerIdentity URL. */
  token: string;
  /** When the API server stops accepting it (or the credentials behind it expire). */
  expiresAt: Date;
}

export const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';
/** The header that binds a token to one cluster; it must be signed, so it stays a header. */
export const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
/**
 * The EKS authenticator accepts a token for 15 minutes after its X-Amz-Date whatever X-Amz-Expires
 * says (which is 60, as aws-iam-authenticator and `aws eks get-token` send); one minute of margin
 * covers clock skew.
 */
export const EKS_TOKEN_LIFETIME_MS = 14 * 60_000;

export interface EksTokenInput {
  clusterName: string;
  region: string;
  credentials: AwsCredentialsProvider;
  now?: () => Date;
}

/**
 * The IAM authentication token for an EKS cluster: proof of the caller's identity that the cluster
 * checks by calling STS with it, so no secret is ever sent to the cluster.
 */
export async function eksToken({ clusterName, region, credentials, now = () => new Date() }: EksTokenInput): Promise<EksToken> {
  const resolved = await credentials();
  const signingDate = now();
  const hostname = stsHostname(region);
  const signer = new SignatureV4({ credentials: resolved, region, service: 'sts', sha256: Sha256 });
  const presigned = await signer.presign(
    new HttpRequest({
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: hostname, [CLUSTER_ID_HEADER]: clusterName },
    }),
    { expiresIn: 60, signingDate },
  );
  const url = `https://${hostname}/?${queryString(presigned.query ?? {})}`;
  let expiresAt = signingDate.getTime() + EKS_TOKEN_LIFETIME_MS;
  if (resolved.expiration) expiresAt = Math.min(expiresAt, resolved.expiration.getTime());
  return {
    token: EKS_TOKEN_PREFIX + Buffer.from(url, 'utf8').toString('base64url'),
    expiresAt: new Date(expiresAt),
  };
}

function queryString(query: Record<string, string | string[] | null>): string {
  return Object.entries(query)
    .flatMap(([key, value]) => (Array.isArray(value) ? value.map((v) => [key, v]) : [[key, value ?? '']]))
    .map(([key, value]) => `${rfc3986(key ?? '')}=${rfc3986(value ?? '')}`)
    .join('&');
}

function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * STS in the region's partition: amazonaws.com, amazonaws.com.cn in China, c2s.ic.gov and the like
 * in the isolated regions. The AWS SDK's own endpoint rules know the partitions; EKS and STS share
 * a region's DNS suffix, so the EKS endpoint for the region gives it without a table of our own.
 */
export function stsHostname(region: string): string {
  const { url } = new EKSClient({ region }).config.endpointProvider({ Region: region, UseFIPS: false, UseDualStack: false });
  return url.hostname.replace(/^eks\./, 'sts.');
}
