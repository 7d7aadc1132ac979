/**
 * A step identity's credentials on AWS, as EKS Pod Identity gives them to the step's pod, for
 * what LaunchStep reads as the step (its AWS secrets, lib/workflow/aws-secrets.ts; its ECR login):
 * the two calls the EKS Pod Identity Agent makes for a pod
 * (docs.aws.amazon.com/eks/latest/userguide/pod-id-how-it-works.html):
 *
 * 1. a token of the identity's service account, audience `pods.eks.amazonaws.com`, BOUND TO THE
 *    STEP'S POD, by the Kubernetes TokenRequest API (`create serviceaccounts/token`, which the
 *    deployment grants for the identities' accounts only: deploy/identities.yaml). LaunchStep asks
 *    it (lib/kube/pod-identity-token.ts) and hands it here as `podToken`;
 * 2. EKS Auth's AssumeRoleForPodIdentity with it: EKS finds the association of that namespace and
 *    service account, assumes its role with the session tags Pod Identity sets, and answers with
 *    the credentials (docs.aws.amazon.com/eks/latest/APIReference/API_auth_AssumeRoleForPodIdentity.html:
 *    POST /clusters/NAME/assume-role-for-pod-identity, `{"token"}`, restJson1, SigV4 name
 *    `eks-auth`; endpoint `https://eks-auth.REGION.api.aws`, the service model's endpoint rules).
 *
 * Why bound to the pod. An earlier version sent a token bound to nothing (the pod did not exist
 * yet), and everything known says EKS refuses it: Flux's maintainers dropped that very design
 * because EKS Pod Identity "requires the ServiceAccount token to be bound to a pod" (fluxcd/flux2
 * PR #5309, rfcs/0010-multi-tenant-workload-identity/README.md at c18ab388); AWS's own callers only
 * send pod-bound tokens (aws/secrets-store-csi-driver-provider-aws credential_provider/
 * pod_identity_credential_provider.go at 82d5169: TokenRequest{Audiences: pods.eks.amazonaws.com,
 * BoundObjectRef: {Kind: "Pod"}}); aws/eks-pod-identity-agent's cache-enhancements branch rejects
 * a token without the `kubernetes.io/pod` claim (claims_validation.go). Kubernetes binds a token to
 * a pod only when that pod exists and runs as the same service account (kubernetes/kubernetes
 * pkg/registry/core/serviceaccount/storage/token.go), so LaunchStep makes the step's pod first,
 * held by a scheduling gate, and removes the gate once what it reads is in its Secrets
 * (lib/workflow/gated-launch.ts). The `kubernetes-pod-name` and `kubernetes-pod-uid` session tags
 * are then the step's pod's, as its own containers' will be.
 *
 * What remains to check on a real EKS cluster (docs/deploy.md, "Secrets from AWS"): EKS Auth called
 * from a Lambda (not from a node's agent) with a pod-bound token of a gated pod that was never
 * scheduled, so a token with a pod claim and no node claim. Nothing documented says EKS Auth wants
 * the node claim; nothing documented says it does not.
 *
 * So IAM sees the identity's role exactly as the step's pod will, trust policy and session tags
 * included, and the runner needs no trust of its own in any role. @aws-sdk/client-eks-auth is not
 * among the project's packages: the request is signed here with @smithy/signature-v4, as the EKS
 * token is (lib/kube/eks-token.ts). AWS_ENDPOINT_URL_EKS_AUTH, else AWS_ENDPOINT_URL, is honoured
 * as the SDKs do.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentials, AwsCredentialsProvider, IdentityCredentials } from '../contract/aws-credentials.js';

export interface PodIdentityCredentialsOptions {
  clusterName: string;
  region: string;
  /** The function's own credentials, which sign the EKS Auth request (eks-auth:AssumeRoleForPodIdentity). */
  credentials: AwsCredentialsProvider;
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

/** EKS Auth's endpoint: the variables the SDKs read, else the region's. */
export function eksAuthEndpoint(region: string, env: NodeJS.ProcessEnv = process.env): URL {
  return new URL(env['AWS_ENDPOINT_URL_EKS_AUTH'] || env['AWS_ENDPOINT_URL'] || `https://eks-auth.${region}.api.aws`);
}

export function podIdentityCredentials(options: PodIdentityCredentialsOptions): IdentityCredentials {
  return (request) => {
    let cached: AwsCredentials | undefined;
    return async () => {
      // Fresh for a minute more at least, as the SDKs' own container provider wants them.
      if (cached?.expiration && cached.expiration.getTime() - Date.now() > 60_000) return cached;
      const token = await request.podToken();
      cached = await assumeRoleForPodIdentity({ ...options, token });
      return cached;
    };
  };
}

/** AWS's error, as the SDKs raise it: its code as the name. */
class EksAuthError extends Error {}

export async function assumeRoleForPodIdentity(input: PodIdentityCredentialsOptions & { token: string }): Promise<AwsCredentials> {
  const endpoint = eksAuthEndpoint(input.region, input.env);
  const body = JSON.stringify({ token: input.token });
  const path = `${endpoint.pathname.replace(/\/$/, '')}/clusters/${encodeURIComponent(input.clusterName)}/assume-role-for-pod-identity`;
  const signer = new SignatureV4({ credentials: await input.credentials(), region: input.region, service: 'eks-auth', sha256: Sha256 });
  const signed = await signer.sign(
    new HttpRequest({
      method: 'POST',
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      ...(endpoint.port ? { port: Number(endpoint.port) } : {}),
      path,
      headers: { host: endpoint.host, 'content-type': 'application/json' },
      body,
    }),
  );
  const response = await (input.fetch ?? fetch)(new URL(path, endpoint), { method: 'POST', headers: signed.headers, body });
  const text = await response.text();
  const parsed = parseJson(text);
  if (!response.ok) {
    // restJson1: the code in X-Amzn-Errortype (or the body's __type/code), after any ":" detail.
    const type = (response.headers.get('x-amzn-errortype') ?? String(parsed?.['__type'] ?? parsed?.['code'] ?? `HTTP ${response.status}`)).split(':')[0]!.split('#').pop()!;
    const error = new EksAuthError(String(parsed?.['message'] ?? parsed?.['Message'] ?? text.slice(0, 300)));
    error.name = type;
    throw error;
  }
  const credentials = parsed?.['credentials'] as { accessKeyId?: string; secretAccessKey?: string; sessionToken?: string; expiration?: number } | undefined;
  if (!credentials?.accessKeyId || !credentials.secretAccessKey) throw new Error('EKS Auth answered AssumeRoleForPodIdentity without credentials');
  return {
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {}),
    // epoch-seconds, as the service model says of Credentials.expiration.
    ...(credentials.expiration !== undefined ? { expiration: new Date(credentials.expiration * 1000) } : {}),
  };
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
