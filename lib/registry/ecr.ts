/**
 * ECR images are asked through ECR's own API, `DescribeImages`, signed with the function's role
 * (SigV4 over fetch, as lib/kube signs its EKS token: no ECR SDK client for one call). Unlike the
 * registry protocol's token (`GetAuthorizationToken`, which IAM cannot scope), this permission is
 * granted on the account's repositories only; another account's image is then inconclusive.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialsProvider } from '../contract/aws-credentials.js';
import { ecrRegistry } from './ecr-host.js';
import type { ManifestTarget } from './reference.js';
import { InconclusiveReasons, type ImageVerdict } from './types.js';

export { ecrRegistry };

export interface EcrOptions {
  credentials: AwsCredentialsProvider;
  fetch?: typeof fetch;
}

/** The ECR check for one image, or undefined when the image is not in ECR. */
export type EcrCheck = (target: ManifestTarget, signal: AbortSignal) => Promise<ImageVerdict> | undefined;

/** What ECR's JSON errors mean for the check: only a missing image or repository is "not found". */
const NOT_FOUND = new Set(['ImageNotFoundException', 'RepositoryNotFoundException']);
const THROTTLED = new Set(['ThrottlingException', 'TooManyRequestsException', 'LimitExceededException']);

export function ecrCheck({ credentials, fetch: doFetch = fetch }: EcrOptions): EcrCheck {
  return (target, signal) => {
    const ecr = ecrRegistry(target.registry);
    if (!ecr) return undefined;
    return describeImage(target, ecr, credentials, doFetch, signal);
  };
}

async function describeImage(
  target: ManifestTarget,
  { accountId, region }: { accountId: string; region: string },
  credentials: AwsCredentialsProvider,
  doFetch: typeof fetch,
  signal: AbortSignal,
): Promise<ImageVerdict> {
  const hostname = `api.ecr.${region}.amazonaws.com`;
  const imageId = target.reference.includes(':') ? { imageDigest: target.reference } : { imageTag: target.reference };
  const body = JSON.stringify({ registryId: accountId, repositoryName: target.repository, imageIds: [imageId] });
  try {
    const signer = new SignatureV4({ credentials: await credentials(), region, service: 'ecr', sha256: Sha256 });
    const signed = await signer.sign(
      new HttpRequest({
        method: 'POST',
        protocol: 'https:',
        hostname,
        path: '/',
        headers: { host: hostname, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AmazonEC2ContainerRegistry_V20150921.DescribeImages' },
        body,
      }),
    );
    const response = await doFetch(`https://${hostname}/`, { method: 'POST', headers: signed.headers, body, signal });
    const text = await response.text();
    let data: { imageDetails?: { imageDigest?: string; imageManifestMediaType?: string }[]; __type?: string; message?: string; Message?: string } = {};
    try {
      data = JSON.parse(text) as typeof data;
    } catch {
      // An answer that is not ECR's JSON: judged by its status alone.
    }
    if (response.ok) {
      const detail = data.imageDetails?.[0];
      return { kind: 'found', ...(detail?.imageDigest ? { digest: detail.imageDigest } : {}), ...(detail?.imageManifestMediaType ? { mediaType: detail.imageManifestMediaType } : {}) };
    }
    const type = (data.__type ?? '').split('#').pop() ?? '';
    const words = `${response.status} ${type || 'error'}: ${data.message ?? data.Message ?? text.slice(0, 200)}`.trim();
    if (NOT_FOUND.has(type)) return { kind: 'not-found', status: response.status, words };
    if (THROTTLED.has(type) || response.status === 429) return { kind: 'inconclusive', reason: InconclusiveReasons.rateLimited, words };
    if (type === 'AccessDeniedException' || response.status === 403 || /Unrecognized|InvalidSignature|ExpiredToken/.test(type)) {
      return { kind: 'inconclusive', reason: InconclusiveReasons.unauthorized, words };
    }
    return { kind: 'inconclusive', reason: InconclusiveReasons.registryError, words };
  } catch (error) {
    if (signal.aborted) return { kind: 'inconclusive', reason: InconclusiveReasons.timeout, words: 'ECR did not answer in time' };
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'inconclusive', reason: InconclusiveReasons.unreachable, words: `ECR DescribeImages: ${message}` };
  }
}
