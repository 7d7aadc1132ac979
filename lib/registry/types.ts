/** What the registry check says about one image reference, and what it needs to ask. */

/** Why a check could not tell: each of these leaves the decision to the kubelet. */
export const InconclusiveReasons = {
  /** Credentials wanted (or refused): the node's own role or pull secrets may still pull. */
  unauthorized: 'unauthorized',
  rateLimited: 'rate-limited',
  timeout: 'timeout',
  /** DNS, connection or TLS failures. */
  unreachable: 'unreachable',
  /** 5xx, or an answer the distribution spec does not give for a manifest. */
  registryError: 'registry-error',
} as const;
export type InconclusiveReason = (typeof InconclusiveReasons)[keyof typeof InconclusiveReasons];

export type ImageVerdict =
  | { kind: 'found'; digest?: string; mediaType?: string }
  /** `words`: the registry's own (error codes and messages, else the HTTP status). */
  | { kind: 'not-found'; status: number; words: string }
  | { kind: 'inconclusive'; reason: InconclusiveReason; words: string }
  /** The check was off for this image (deployment setting or the pipeline's opt-out). */
  | { kind: 'skipped'; words: string };

export interface BasicCredentials {
  username: string;
  password: string;
}

/** Credentials for a registry as written in image references (`docker.io`, `ghcr.io`, `host:port`). */
export type CredentialsLookup = (registry: string) => Promise<BasicCredentials | undefined>;

/** The Docker configs a build's pods would pull with, as read from the cluster. */
export interface PullSecretConfigs {
  /** The `.dockerconfigjson` (or legacy `.dockercfg`) texts, in the service account's order. */
  documents: string[];
  /** Why some or all could not be read (no RBAC, no service account): said, not thrown. */
  unreadable: string[];
}

/**
 * Reads them for a namespace and the pods' own pull secrets (none named: the service account's).
 * Handed in (lib/kube's `pullSecretsReader`): this layer asks registries, the cluster is lib/kube's.
 */
export type PullSecretsReader = (namespace: string, podPullSecrets: readonly string[]) => Promise<PullSecretConfigs>;

/** One answer of the registry, as the verdict rules read it. */
export interface ManifestAnswer {
  status: number;
  headers: Pick<Headers, 'get'>;
  /** The body of a GET, when one was read (HEAD answers have none). */
  body?: string;
  /** Whether the request carried credentials of the build's (not an anonymous token). */
  authenticated: boolean;
}
