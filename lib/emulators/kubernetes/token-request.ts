/**
 * The TokenRequest API (`POST /api/v1/namespaces/NS/serviceaccounts/NAME/token`), as kube-apiserver
 * answers it (kubernetes/kubernetes pkg/registry/core/serviceaccount/storage/token.go, TokenREST
 * Create): the service account must exist; a `boundObjectRef` of kind Pod names a pod that exists
 * (else the pods getter's NotFound), running as that very account (else BadRequest "cannot bind
 * token for serviceaccount X to pod running with serviceaccount Y"), whose uid, when given, is the
 * pod's (else Conflict "the UID in the bound object reference ... does not match"); any other kind
 * this cluster does not bind to (BadRequest "cannot bind token to object of type"; a Secret the real
 * one takes, no caller here asks it). The token's `kubernetes.io` claim names the pod, and its node
 * only once it has one (pkg/serviceaccount/claims.go: the node info comes from pod.spec.nodeName):
 * a gated pod's token has a pod and no node. `expirationSeconds` defaults to an hour and may not be
 * under 10 minutes (pkg/apis/authentication/validation ValidateTokenRequest). Pure but for the store
 * and the issuer's key.
 */
import { ApiError, badRequest, invalid, notFound } from './api-errors.js';
import type { Clock } from './clock.js';
import type { KubeObject, Pod } from './objects.js';
import type { TokenIssuer } from './service-account-token.js';
import type { ObjectStore } from './store.js';

export const SERVICE_ACCOUNT_TOKEN_SUBRESOURCE = 'token';
const DEFAULT_SECONDS = 3600;
const MIN_SECONDS = 600;

interface TokenRequestBody {
  spec?: {
    audiences?: string[];
    expirationSeconds?: number;
    boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string };
  };
}

export function requestToken(
  context: { store: ObjectStore; now: Clock; tokens: TokenIssuer },
  namespace: string,
  name: string,
  body: unknown,
): Record<string, unknown> {
  const spec = (body as TokenRequestBody | undefined)?.spec ?? {};
  const seconds = spec.expirationSeconds ?? DEFAULT_SECONDS;
  if (seconds < MIN_SECONDS) {
    throw invalid('TokenRequest.authentication.k8s.io', name, [{ field: 'spec.expirationSeconds', reason: 'FieldValueInvalid', message: `Invalid value: ${seconds}: may not specify a duration less than 10 minutes` }]);
  }
  const account = context.store.get('serviceaccounts', namespace, name) as KubeObject | undefined;
  if (account === undefined) throw notFound('serviceaccounts', name);
  const ref = spec.boundObjectRef;
  let pod: Pod | undefined;
  if (ref !== undefined) {
    const group = (ref.apiVersion ?? '').includes('/') ? ref.apiVersion!.split('/')[0] : '';
    if (group !== '' || ref.kind !== 'Pod') throw badRequest(`cannot bind token to object of type ${ref.apiVersion ?? ''}, Kind=${ref.kind ?? ''}`);
    pod = context.store.get('pods', namespace, ref.name ?? '') as Pod | undefined;
    if (pod === undefined) throw notFound('pods', ref.name ?? '');
    const runsAs = pod.spec.serviceAccountName || 'default';
    if (runsAs !== name) throw badRequest(`cannot bind token for serviceaccount "${name}" to pod running with serviceaccount "${runsAs}"`);
    if (ref.uid && ref.uid !== pod.metadata.uid) {
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on Pod "${ref.name}": the UID in the bound object reference (${ref.uid}) does not match the UID in record (${pod.metadata.uid}). The object might have been deleted and then recreated`,
        { name: ref.name ?? '', kind: 'Pod' },
      );
    }
  }
  const now = context.now();
  const node = pod?.spec.nodeName ? (context.store.get('nodes', undefined, pod.spec.nodeName) as KubeObject | undefined) : undefined;
  const audiences = spec.audiences && spec.audiences.length > 0 ? spec.audiences : [context.tokens.issuer];
  const token = context.tokens.mint(
    {
      audience: audiences,
      expirationSeconds: seconds,
      namespace,
      serviceAccount: { name, uid: account.metadata.uid ?? '' },
      ...(pod ? { pod: { name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' } } : {}),
      ...(pod?.spec.nodeName ? { node: { name: pod.spec.nodeName, uid: node?.metadata.uid ?? '' } } : {}),
    },
    now,
  );
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: null },
    spec: { audiences, expirationSeconds: seconds, boundObjectRef: ref ?? null },
    status: { token, expirationTimestamp: new Date(now.getTime() + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') },
  };
}
