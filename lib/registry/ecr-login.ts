/**
 * A registry login for Amazon ECR from an identity's AWS credentials, as `aws ecr
 * get-login-password` makes one (docs.aws.amazon.com/AmazonECR/latest/userguide/registry_auth.html,
 * "Using an authorization token"): ECR's `GetAuthorizationToken`
 * (docs.aws.amazon.com/AmazonECR/latest/APIReference/API_GetAuthorizationToken.html) answers a
 * base64 `authorizationToken` that decodes to `AWS:PASSWORD`, "valid for 12 hours", whose scope is
 * the calling principal's: it opens every ECR registry that principal may use, so one call per
 * region serves every account's registry there. That base64 text is exactly a Docker config's
 * `auth` field (`base64(user:password)`, containers-auth.json(5)), which is how the build pod is
 * handed it (docker-config.ts `withRegistryAuths`): no `docker login` in the pod.
 *
 * The request is signed with @smithy/signature-v4 over fetch, as the ECR image check (ecr.ts) and
 * the EKS token are: no ECR SDK client for one call. Its endpoint honours AWS_ENDPOINT_URL_ECR, then
 * AWS_ENDPOINT_URL, as the SDKs do (@smithy/core getEndpointUrlConfig: the service id "ECR"), so a
 * local stand-in (moto's ECR backend) answers when they name it.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialsProvider } from '../contract/aws-credentials.js';
import { ecrRepositoryOf } from './ecr-host.js';

/** An ECR registry a build pushes to: its host, and the account and region the host names. */
export interface EcrRegistryHost {
  host: string;
  accountId: string;
  region: string;
  /** The repositories of it the build names (`team/app`), for messages. */
  repositories: string[];
}

/**
 * The ECR registries among image references (`HOST/REPOSITORY[:TAG]`), each once, in the order
 * first named, with the repositories named in each. A reference whose first part is no ECR host
 * (ghcr.io, a registry on loopback) is left to the pipeline's pull secrets. Pure.
 */
export function ecrRegistriesOf(references: readonly string[]): EcrRegistryHost[] {
  const found = new Map<string, EcrRegistryHost>();
  for (const reference of references) {
    const ecr = ecrRepositoryOf(reference);
    if (!ecr) continue;
    const { repository, ...registry } = ecr;
    const entry = found.get(registry.host) ?? { ...registry, repositories: [] };
    if (!entry.repositories.includes(repository)) entry.repositories.push(repository);
    found.set(registry.host, entry);
  }
  return [...found.values()];
}

/** ECR's API endpoint for a region: the variables the SDKs read, else the region's own. */
export function ecrApiEndpoint(region: string, env: NodeJS.ProcessEnv = process.env): URL {
  return new URL(env['AWS_ENDPOINT_URL_ECR'] || env['AWS_ENDPOINT_URL'] || `https://api.ecr.${region}.amazonaws.com`);
}

/** One region's login: the base64 `AWS:PASSWORD` text, and when it stops working. */
export interface EcrAuthorization {
  /** base64 of `AWS:PASSWORD`, as ECR answers it: a Docker config `auth` as it is. */
  auth: string;
  /** When ECR says it expires (12 hours after it was made); absent if it did not say. */
  expiresAt?: Date;
}

/** ECR's error, as the SDKs raise it: the service's code as the name, its message as the message. */
export class EcrApiError extends Error {}

export interface EcrLoginOptions {
  region: string;
  credentials: AwsCredentialsProvider;
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** `GetAuthorizationToken` in the region, signed with the credentials; rejects with EcrApiError (AccessDeniedException...). */
export async function ecrAuthorization({ region, credentials, env, fetch: doFetch = fetch, signal }: EcrLoginOptions): Promise<EcrAuthorization> {
  const endpoint = ecrApiEndpoint(region, env);
  const body = '{}';
  const path = endpoint.pathname || '/';
  const signer = new SignatureV4({ credentials: await credentials(), region, service: 'ecr', sha256: Sha256 });
  const signed = await signer.sign(
    new HttpRequest({
      method: 'POST',
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      ...(endpoint.port ? { port: Number(endpoint.port) } : {}),
      path,
      headers: { host: endpoint.host, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AmazonEC2ContainerRegistry_V20150921.GetAuthorizationToken' },
      body,
    }),
  );
  const response = await doFetch(new URL(path, endpoint), { method: 'POST', headers: signed.headers, body, ...(signal ? { signal } : {}) });
  const text = await response.text();
  let data: { authorizationData?: { authorizationToken?: string; expiresAt?: number }[]; __type?: string; message?: string; Message?: string } = {};
  try {
    data = JSON.parse(text) as typeof data;
  } catch {
    // Not ECR's JSON: judged by its status below.
  }
  if (!response.ok) {
    // awsJson1_1: the code in `__type` (after any `#`), else X-Amzn-ErrorType.
    const type = (data.__type ?? response.headers.get('x-amzn-errortype') ?? `HTTP ${response.status}`).split(':')[0]!.split('#').pop()!;
    const error = new EcrApiError(data.message ?? data.Message ?? (text.slice(0, 300) || `HTTP ${response.status}`));
    error.name = type;
    throw error;
  }
  const [first] = data.authorizationData ?? [];
  if (!first?.authorizationToken || decodeEcrAuth(first.authorizationToken) === undefined) {
    throw new EcrApiError('ECR answered GetAuthorizationToken without a token of the form base64("AWS:PASSWORD")');
  }
  // expiresAt: a timestamp, epoch seconds in awsJson1_1.
  return { auth: first.authorizationToken, ...(typeof first.expiresAt === 'number' ? { expiresAt: new Date(first.expiresAt * 1000) } : {}) };
}

/** The user and password an ECR token stands for, or undefined when it is not base64 of `USER:PASSWORD`. Pure. */
export function decodeEcrAuth(auth: string): { username: string; password: string } | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(auth)) return undefined;
  const decoded = Buffer.from(auth, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 && colon < decoded.length - 1 ? { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) } : undefined;
}
