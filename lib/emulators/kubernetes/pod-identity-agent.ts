/**
 * The EKS Pod Identity Agent and the part of EKS Auth it calls (AssumeRoleForPodIdentity), for the
 * embedded cluster: `GET /v1/credentials` with a pod's token in `Authorization` answers the
 * credentials of the role its service account is associated with, in the container credentials
 * provider's format (`AccessKeyId`, `SecretAccessKey`, `Token`, `AccountId`, `Expiration` in RFC
 * 3339), as aws/eks-pod-identity-agent pkg/handlers/eks_credential_handler.go and
 * pkg/credentials/model.go write it. The agent's own checks come first, in its words
 * (internal/validation/request.go: the address the call was made to, then a token that is there and
 * parses); then what EKS Auth decides: the token must be this cluster's, for the audience
 * pods.eks.amazonaws.com, unexpired, bound to a pod that still exists, and its service account must
 * have an association. The token names the account, so a pod can only ever get its own account's
 * role: another identity's credentials need another account's token, which only a pod of that
 * account holds. The credentials themselves come from the cluster's caller (`credentials`), who
 * plays STS AssumeRole with the session tags EKS Auth sets. Errors are written as the agent writes
 * EKS Auth's (pkg/errors/errors.go HandleCredentialFetchingError): `[request id]: (Code): message,
 * fault: client`, with EKS Auth's status.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from './clock.js';
import type { Pod } from './objects.js';
import { PodIdentity } from './pod-identity-webhook.js';
import type { TokenIssuer } from './service-account-token.js';
import type { ObjectStore } from './store.js';

/** An EKS Pod Identity association: the role a service account's pods get. */
export interface PodIdentityAssociation {
  namespace: string;
  serviceAccount: string;
  roleArn: string;
}

/** What EKS Auth knows when it assumes the role: the association and the pod the token is bound to. */
export interface PodIdentityCredentialsRequest {
  association: PodIdentityAssociation;
  clusterName: string;
  clusterArn: string;
  podName: string;
  podUid: string;
}

export interface PodIdentityCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

export interface PodIdentityOptions {
  /** The cluster EKS Auth is asked about, as the session tags name it. */
  clusterName: string;
  clusterArn: string;
  associations: readonly PodIdentityAssociation[];
  /** AssumeRole of the association's role, with Pod Identity's session tags (the caller's own AWS credentials). */
  credentials(request: PodIdentityCredentialsRequest): Promise<PodIdentityCredentials>;
}

/** A refusal in the agent's words, with its HTTP status. */
class AgentError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * EKS Auth's refusal, as the SDKs raise it (the code as the error's name); the agent passes it on
 * in its own words (agentWords).
 */
export class EksAuthRefusal extends Error {
  constructor(
    readonly status: number,
    code: string,
    message: string,
  ) {
    super(message);
    this.name = code;
  }
}

/** An EKS Auth error as the agent passes it on. */
function agentWords(error: EksAuthRefusal): AgentError {
  return new AgentError(error.status, `[${randomUUID()}]: (${error.name}): ${error.message}, fault: client`);
}

export interface PodIdentityAgent {
  /** What the webhook puts in AWS_CONTAINER_CREDENTIALS_FULL_URI. */
  readonly uri: string;
  /** Where the agent listens on this machine (the Docker runtime forwards 169.254.170.23:80 of a pod here). */
  readonly host: string;
  readonly port: number;
  associated(namespace: string, serviceAccount: string): boolean;
  /**
   * EKS Auth's AssumeRoleForPodIdentity, as the agent asks it, for a caller that holds a token
   * itself (a local run's LaunchStep: lib/local/pod-identity.ts); rejects with EksAuthRefusal.
   */
  assumeRoleForPodIdentity(token: string): Promise<PodIdentityCredentials>;
  close(): Promise<void>;
}

export interface AgentContext {
  store: ObjectStore;
  tokens: TokenIssuer;
  now: Clock;
}

/** Credentials are asked again after this share of their life: the agent's cache renews before expiry. */
const RENEW_AT = 0.5;

/** EKS Auth's decision of a token: the association and the credentials, or EksAuthRefusal. */
export type PodIdentityAuth = (token: string) => Promise<{ credentials: PodIdentityCredentials; association: PodIdentityAssociation }>;

/** The association of a namespace's service account, if the cluster has one. */
function associationOf(options: PodIdentityOptions, namespace: string, serviceAccount: string) {
  return options.associations.find((a) => a.namespace === namespace && a.serviceAccount === serviceAccount);
}

/**
 * What EKS Auth decides of a token. One the API server bound to no pod is refused: EKS Pod
 * Identity takes pod-bound tokens only (aws/eks-pod-identity-agent, cache-enhancements branch,
 * claims_validation.go, refuses a token without the kubernetes.io/pod claim; AWS's own callers
 * send none other: aws/secrets-store-csi-driver-provider-aws pod_identity_credential_provider.go;
 * Flux dropped its unbound design for it: fluxcd/flux2 PR #5309), so an unbound token never
 * passes here either. The refusal's words are this cluster's: EKS Auth's own are not published.
 */
export function podIdentityAuth(options: PodIdentityOptions, context: AgentContext): PodIdentityAuth {
  /** By pod uid: what was asked for the pod, until when it is kept. Forgotten once the pod is gone. */
  const cache = new Map<string, { until: number; credentials: Promise<PodIdentityCredentials>; namespace: string; name: string }>();
  const podLives = (namespace: string, name: string, uid: string) => {
    const pod = context.store.get('pods', namespace, name) as Pod | undefined;
    return pod !== undefined && pod.metadata.uid === uid && !pod.metadata.deletionTimestamp;
  };
  return async (token) => {
    const now = context.now();
    const checked = context.tokens.verify(token, PodIdentity.audience, now);
    if (!checked.ok) throw new EksAuthRefusal(400, 'InvalidTokenException', `The service account token is not valid: ${checked.problem}`);
    const bound = checked.claims['kubernetes.io'];
    const pod = bound.pod;
    if (pod === undefined) {
      throw new EksAuthRefusal(400, 'InvalidTokenException', `The service account token is not valid: it is bound to no pod (EKS Pod Identity takes a token bound to a pod of the service account: TokenRequest boundObjectRef kind Pod)`);
    }
    for (const [uid, entry] of cache) if (!podLives(entry.namespace, entry.name, uid)) cache.delete(uid);
    if (!podLives(bound.namespace, pod.name, pod.uid)) {
      throw new EksAuthRefusal(400, 'InvalidTokenException', `The service account token is not valid: pod ${bound.namespace}/${pod.name} it is bound to no longer exists`);
    }
    const association = associationOf(options, bound.namespace, bound.serviceaccount.name);
    if (association === undefined) {
      throw new EksAuthRefusal(404, 'ResourceNotFoundException', `No Pod Identity association was found for service account ${bound.namespace}/${bound.serviceaccount.name} in cluster ${options.clusterName}`);
    }
    const key = pod.uid;
    let cached = cache.get(key);
    if (cached === undefined || cached.until <= now.getTime()) {
      const asked = options.credentials({ association, clusterName: options.clusterName, clusterArn: options.clusterArn, podName: pod.name, podUid: pod.uid });
      cached = { until: Number.POSITIVE_INFINITY, credentials: asked, namespace: bound.namespace, name: pod.name };
      cache.set(key, cached);
      const entry = cached;
      asked.then(
        (credentials) => {
          const expires = credentials.expiration?.getTime();
          entry.until = expires === undefined ? Number.POSITIVE_INFINITY : now.getTime() + (expires - now.getTime()) * RENEW_AT;
        },
        () => cache.delete(key),
      );
    }
    try {
      return { credentials: await cached.credentials, association };
    } catch (error) {
      throw new EksAuthRefusal(403, 'AccessDeniedException', `Unable to assume role ${association.roleArn}: ${(error as Error).message}`);
    }
  };
}

/**
 * Starts the agent on `listenHost` (the address the pods reach this machine at). `viaLinkLocal`:
 * the pods call it at 169.254.170.23, as on EKS (the Docker runtime forwards that address of each
 * such pod here); else at the address it listens on (loopback, the process runtime's pods).
 */
export async function startPodIdentityAgent(options: PodIdentityOptions, context: AgentContext, listenHost: string, viaLinkLocal: boolean): Promise<PodIdentityAgent> {
  const eksAuth = podIdentityAuth(options, context);
  let validHosts: string[] = [];

  const credentialsFor = async (request: IncomingMessage): Promise<Record<string, string>> => {
    const host = hostOnly(request.headers.host ?? '');
    if (!validHosts.includes(host)) {
      throw new AgentError(403, `Access Denied. Called agent through invalid address, please use either [${validHosts.join(' ')}] address not ${host}`);
    }
    const token = request.headers.authorization ?? '';
    if (token === '') throw new AgentError(400, 'Service account token cannot be empty');
    if (token.split('.').length !== 3) throw new AgentError(400, 'Service account token cannot be parsed: token is malformed: token contains an invalid number of segments');
    let credentials: PodIdentityCredentials;
    let association: PodIdentityAssociation;
    try {
      ({ credentials, association } = await eksAuth(token));
    } catch (error) {
      if (error instanceof EksAuthRefusal) throw agentWords(error);
      throw error;
    }
    return {
      AccessKeyId: credentials.accessKeyId,
      SecretAccessKey: credentials.secretAccessKey,
      ...(credentials.sessionToken !== undefined ? { Token: credentials.sessionToken } : {}),
      AccountId: association.roleArn.split(':')[4] ?? '',
      ...(credentials.expiration !== undefined ? { Expiration: credentials.expiration.toISOString() } : {}),
    };
  };

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    // One request per connection: the Docker runtime's forwarder is one nc per connection.
    response.setHeader('Connection', 'close');
    if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== '/v1/credentials') {
      writeText(response, 404, '404 page not found');
      return;
    }
    credentialsFor(request).then(
      (body) => {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify(body));
      },
      (error: unknown) => writeText(response, error instanceof AgentError ? error.status : 500, (error as Error).message),
    );
  };

  const server: Server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, listenHost, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  validHosts = viaLinkLocal ? [PodIdentity.agentAddress, 'fd00:ec2::23'] : [listenHost];
  return {
    uri: viaLinkLocal ? PodIdentity.agentUri : `http://${listenHost}:${port}/v1/credentials`,
    host: listenHost,
    port,
    associated: (namespace, serviceAccount) => associationOf(options, namespace, serviceAccount) !== undefined,
    assumeRoleForPodIdentity: async (token) => (await eksAuth(token)).credentials,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** As Go's http.Error: text/plain, the message and a newline. */
function writeText(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  response.end(`${message}\n`);
}

/** The Host header without its port or IPv6 brackets (validateRequestTargetHost). */
export function hostOnly(host: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  if (bracketed) return bracketed[1]!;
  const colons = host.split(':').length - 1;
  return colons === 1 ? host.slice(0, host.indexOf(':')) : host;
}
