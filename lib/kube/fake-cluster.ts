import { ApiException, type CoreV1Event, type V1ObjectMeta, type V1PersistentVolumeClaim, type V1Pod, type V1Secret } from '@kubernetes/client-node';
import { unexpectedKubeError } from './api-error.js';
import { parseSigning } from './cache-secret.js';
import { URL_SIGNING_ANNOTATION } from './cache-containers.js';
import { isAboutClaim, isAboutPod } from './classify-events.js';
import { PodPhases } from './classify-reasons.js';
import { buildSelector, toDelete } from './cleanup.js';
import { TOKEN_EXPIRES_ANNOTATION, GIT_TOKEN_KEY } from './git-credentials.js';
import { APPROVAL_TOKEN_KEY } from './approval-token.js';
import { adoptPod } from './launch.js';
import { gatesWithout, isGated } from './scheduling-gate.js';
import { needsClaimEvents } from './observe.js';
import { buildObjectOrphanVerdict, selectOrphanedPods } from './orphans.js';
import type { BuildObjectKindName, StepCluster } from './step-cluster.js';
import { Annotations, BUILD_DEADLINE_ANNOTATION, Labels, MANAGED_BY, STEP_CONTAINER } from './types.js';
import { adoptClaim, SELECTED_NODE_ANNOTATION } from './workspace.js';
import { keptDeadlineSeconds, succeededStepAnnotation } from './workspace-record.js';

/**
 * An in-memory StepCluster for lib/workflow's unit tests: a task's cluster side is arranged and
 * inspected as plain objects, without the embedded API server (lib/emulators/kubernetes) that the
 * client-node adapter (step-cluster.ts) is tested against. Nothing runs here: a pod stays as it was
 * made or put until the test changes it, and its log is what the test sets.
 *
 * Where the adapter decides (whether a pod or claim is adopted, which objects are the build's, which
 * are orphans, when a kept object's deadline falls), the fake decides by the same pure functions of
 * lib/kube. What the API server does of its own is kept to what the tasks rely on, each noted where
 * it is done: a Secret's stringData is written into its data, and a new object gets its
 * creationTimestamp, uid and resourceVersion. A deleted object is gone at once, where the API server
 * keeps a pod until its kubelet has stopped it (deletionTimestamp): a test marks one on its way out
 * itself. test/embedded-cluster-pods.integration.test.ts runs one script of requests on this and
 * on the adapter against the embedded cluster, and compares what each answered.
 */
export interface FakeStepCluster extends StepCluster {
  /** Pods, claims and Secrets by `namespace/name`; events in the order they were added. */
  readonly pods: Map<string, V1Pod>;
  readonly claims: Map<string, V1PersistentVolumeClaim>;
  readonly secrets: Map<string, V1Secret>;
  readonly events: CoreV1Event[];
  /** A container's log by `namespace/pod/container`. */
  readonly logs: Map<string, string>;
  /** A restarted container's previous run's log (`previous: true`), by the same key; none: not restarted. */
  readonly previousLogs: Map<string, string>;
  /** Each node's `node.kubernetes.io/instance-type` by its name; a node not here has none. */
  readonly instanceTypes: Map<string, string>;
  /** Each method called, in order, with its namespace and name: `launchPod ci/step-x`. */
  readonly calls: string[];
  /** Puts an object as a test arranges it (by its metadata's namespace and name), with what the API server adds. */
  put(kind: 'pod', object: V1Pod): V1Pod;
  put(kind: 'claim', object: V1PersistentVolumeClaim): V1PersistentVolumeClaim;
  put(kind: 'secret', object: V1Secret): V1Secret;
}

export const objectKey = (namespace: string, name: string): string => `${namespace}/${name}`;
export const logKey = (namespace: string, podName: string, container: string = STEP_CONTAINER): string => `${namespace}/${podName}/${container}`;

/** `now` stamps the objects it makes (creationTimestamp), as the API server's clock would. */
export function fakeStepCluster({ now = () => new Date() }: { now?: () => Date } = {}): FakeStepCluster {
  const pods = new Map<string, V1Pod>();
  const claims = new Map<string, V1PersistentVolumeClaim>();
  const secrets = new Map<string, V1Secret>();
  const events: CoreV1Event[] = [];
  const logs = new Map<string, string>();
  const previousLogs = new Map<string, string>();
  const instanceTypes = new Map<string, string>();
  const calls: string[] = [];
  let version = 0;
  const stores = { pod: pods, claim: claims, secret: secrets } as const;
  const objectsOf = { claim: claims, secret: secrets } as const;

  // What the API server sets on a create: metadata.creationTimestamp, uid and resourceVersion
  // (kubernetes.io/docs/reference/kubernetes-api/common-definitions/object-meta/), and on every write a new
  // resourceVersion; Secret stringData "is merged into the data field on write" (kubernetes.io/docs/reference/kubernetes-api/config-and-storage-resources/secret-v1/).
  function stored<T extends { metadata?: V1ObjectMeta }>(object: T, created: boolean): T {
    const metadata: V1ObjectMeta = { ...object.metadata, resourceVersion: String(++version) };
    if (created) {
      metadata.creationTimestamp ??= now();
      metadata.uid ??= `fake-${version}`;
    }
    const copy = structuredClone({ ...object, metadata }) as T & Partial<V1Secret>;
    if (copy.stringData) {
      copy.data = { ...copy.data };
      for (const [key, value] of Object.entries(copy.stringData)) copy.data[key] = Buffer.from(value, 'utf8').toString('base64');
      delete copy.stringData;
    }
    return copy;
  }
  const keyOf = (object: { metadata?: V1ObjectMeta }) => objectKey(object.metadata!.namespace!, object.metadata!.name!);
  const call = (method: string, namespace: string, name: string) => calls.push(`${method} ${objectKey(namespace, name)}`);
  const inNamespace = <T extends { metadata?: V1ObjectMeta }>(store: Map<string, T>, namespace: string, labelSelector: string): T[] =>
    [...store.values()].filter((object) => object.metadata?.namespace === namespace && matches(object.metadata?.labels, labelSelector));
  const remove = (store: Map<string, unknown>, namespace: string, names: readonly string[]) => names.filter((name) => store.delete(objectKey(namespace, name)));
  const runnerSelector = `${Labels.managedBy}=${MANAGED_BY}`;
  // What the adapter makes of a 404 it does not expect: KubernetesUnavailable, naming the request.
  const notFound = (operation: string, namespace: string, name: string) =>
    unexpectedKubeError(operation, new ApiException(404, 'Not Found', { kind: 'Status', reason: 'NotFound', message: `"${name}" not found in ${namespace}` }, {}));

  const cluster: FakeStepCluster = {
    pods,
    claims,
    secrets,
    events,
    logs,
    previousLogs,
    instanceTypes,
    calls,
    put(kind: 'pod' | 'claim' | 'secret', object: V1Pod | V1PersistentVolumeClaim | V1Secret) {
      const store = stores[kind] as Map<string, typeof object>;
      const kept = stored(object, true);
      store.set(keyOf(object), kept);
      return kept as never;
    },
    async launchPod(manifest) {
      call('launchPod', manifest.metadata!.namespace!, manifest.metadata!.name!);
      const existing = pods.get(keyOf(manifest));
      if (existing) return adoptPod(existing, manifest);
      const pod = stored(manifest, true);
      pods.set(keyOf(pod), pod);
      return { pod, adopted: false };
    },
    async observePod(namespace, podName, { now: observedAt = now, knownPod, claimName } = {}) {
      call('observePod', namespace, podName);
      const pod = knownPod !== undefined ? knownPod : (pods.get(objectKey(namespace, podName)) ?? null);
      // As observeStep: a pod a watch delivered as succeeded is classified by its status alone.
      const succeeded = knownPod !== undefined && knownPod?.status?.phase === PodPhases.Succeeded;
      const inHere = events.filter((event) => (event.metadata?.namespace ?? event.involvedObject.namespace) === namespace);
      const about = succeeded ? [] : inHere.filter((event) => event.involvedObject.name === podName && isAboutPod(event, pod));
      const claimEvents = !succeeded && claimName && needsClaimEvents(pod, claimName) ? inHere.filter((event) => isAboutClaim(event, claimName)) : undefined;
      return { pod, events: about, ...(claimEvents ? { claimEvents } : {}), observedAt: observedAt() };
    },
    async listPods(namespace, labelSelector) {
      call('listPods', namespace, labelSelector);
      return inNamespace(pods, namespace, labelSelector);
    },
    async readLog(namespace, podName, container, { previous = false } = {}) {
      call('readLog', namespace, podName);
      // As the adapter: a 400 (never restarted) or 404 (pod gone) reads as nothing.
      return pods.has(objectKey(namespace, podName)) ? ((previous ? previousLogs : logs).get(logKey(namespace, podName, container)) ?? '') : '';
    },
    async ungatePod(namespace, podName) {
      call('ungatePod', namespace, podName);
      const pod = pods.get(objectKey(namespace, podName));
      if (!pod) return false;
      if (isGated(pod)) pods.set(objectKey(namespace, podName), stored({ ...pod, spec: { ...pod.spec!, schedulingGates: gatesWithout(pod) ?? [] } }, false));
      return true;
    },
    async podIdentityToken(namespace, serviceAccount, bound) {
      call('podIdentityToken', namespace, bound.name);
      // As the API server's TokenRequest (pkg/registry/core/serviceaccount/storage/token.go): a pod
      // that exists, with that uid, running as that account; the token only names what it binds.
      const pod = pods.get(objectKey(namespace, bound.name));
      if (!pod || pod.metadata?.uid !== bound.uid || pod.spec?.serviceAccountName !== serviceAccount) {
        throw new ApiException(400, 'Bad Request', { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'BadRequest', message: `cannot bind token to pod ${bound.name}`, code: 400 }, {});
      }
      return `fake-token:${namespace}/${serviceAccount}@${bound.name}/${bound.uid}`;
    },
    async deletePod(namespace, podName) {
      call('deletePod', namespace, podName);
      return pods.delete(objectKey(namespace, podName));
    },
    async markStepFinished(namespace, podName, at) {
      call('markStepFinished', namespace, podName);
      if (!pods.has(objectKey(namespace, podName))) return false;
      annotate(pods, objectKey(namespace, podName), { [Annotations.finished]: at.toISOString() });
      return true;
    },
    async deleteBuildPods(namespace, buildId) {
      call('deleteBuildPods', namespace, buildId);
      return remove(pods, namespace, toDelete(inNamespace(pods, namespace, buildSelector(buildId)), buildId)).length;
    },
    async deleteBuildObjects(kind: BuildObjectKindName, namespace, buildId) {
      call(`deleteBuildObjects(${kind})`, namespace, buildId);
      const store = objectsOf[kind];
      return remove(store, namespace, toDelete(inNamespace<{ metadata?: V1ObjectMeta }>(store, namespace, buildSelector(buildId)), buildId)).length;
    },
    async deleteOrphanedPods(namespace, options) {
      call('deleteOrphanedPods', namespace, '');
      const orphans = selectOrphanedPods(inNamespace(pods, namespace, runnerSelector), options.now(), options.marginSeconds);
      return remove(pods, namespace, orphans.map((pod) => pod.metadata!.name!));
    },
    async deleteOrphanedBuildObjects(kind, namespace, options) {
      call(`deleteOrphanedBuildObjects(${kind})`, namespace, '');
      const store = objectsOf[kind];
      const at = options.now();
      const orphans = inNamespace<{ metadata?: V1ObjectMeta }>(store, namespace, runnerSelector).filter((object) => buildObjectOrphanVerdict(object, at, options.marginSeconds) === 'orphan');
      return remove(store, namespace, orphans.map((object) => object.metadata!.name!));
    },
    async readSecretValues(namespace, refs) {
      const values: string[] = [];
      for (const name of new Set(refs.map((ref) => ref.secret))) {
        call('readSecretValues', namespace, name);
        const data = secrets.get(objectKey(namespace, name))?.data;
        for (const ref of refs) {
          const encoded = ref.secret === name ? data?.[ref.key] : undefined;
          if (encoded !== undefined) values.push(Buffer.from(encoded, 'base64').toString('utf8'));
        }
      }
      return values;
    },
    async storeApprovalToken(manifest) {
      call('storeApprovalToken', manifest.metadata!.namespace!, manifest.metadata!.name!);
      // An earlier attempt's token is replaced: only the newest attempt waits.
      secrets.set(keyOf(manifest), stored(manifest, true));
      return manifest.metadata!.name!;
    },
    async readApprovalToken(namespace, secretName) {
      call('readApprovalToken', namespace, secretName);
      const encoded = secrets.get(objectKey(namespace, secretName))?.data?.['taskToken'];
      return encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
    },
    async markApprovalGiven(namespace, secretName, at) {
      call('markApprovalGiven', namespace, secretName);
      const secret = secrets.get(objectKey(namespace, secretName));
      if (!secret) return false;
      const { [APPROVAL_TOKEN_KEY]: _token, ...data } = secret.data ?? {};
      secrets.set(objectKey(namespace, secretName), stored({ ...secret, metadata: { ...secret.metadata, annotations: { ...secret.metadata?.annotations, [Annotations.finished]: at.toISOString() } }, data }, false));
      return true;
    },
    async listBuildSecrets(namespace, buildId) {
      call('listBuildSecrets', namespace, buildId);
      return structuredClone(inNamespace(secrets, namespace, buildSelector(buildId)));
    },
    async ensureGitCredentials(manifest) {
      call('ensureGitCredentials', manifest.metadata!.namespace!, manifest.metadata!.name!);
      // A retried PrepareBuild's Secret holds the same token: kept as it is.
      if (!secrets.has(keyOf(manifest))) secrets.set(keyOf(manifest), stored(manifest, true));
      return manifest.metadata!.name!;
    },
    async gitTokenExpiry(namespace, secretName) {
      call('gitTokenExpiry', namespace, secretName);
      const at = Date.parse(secrets.get(objectKey(namespace, secretName))?.metadata?.annotations?.[TOKEN_EXPIRES_ANNOTATION] ?? '');
      return Number.isNaN(at) ? undefined : at;
    },
    async renewGitCredentials(namespace, secretName, token) {
      call('renewGitCredentials', namespace, secretName);
      const secret = secrets.get(objectKey(namespace, secretName));
      if (!secret) throw notFound(`renew secret ${namespace}/${secretName}`, namespace, secretName);
      const annotations = { ...secret.metadata?.annotations };
      if (token.expiresAt) annotations[TOKEN_EXPIRES_ANNOTATION] = token.expiresAt;
      else delete annotations[TOKEN_EXPIRES_ANNOTATION];
      secrets.set(objectKey(namespace, secretName), stored({ ...secret, metadata: { ...secret.metadata, annotations }, data: {}, stringData: { [GIT_TOKEN_KEY]: token.token } }, false));
    },
    async ensureCacheSecret(manifest) {
      call('ensureCacheSecret', manifest.metadata!.namespace!, manifest.metadata!.name!);
      // A retried LaunchStep's URLs replace its first attempt's.
      secrets.set(keyOf(manifest), stored(manifest, !secrets.has(keyOf(manifest))));
      return manifest.metadata!.name!;
    },
    async ensureStepAwsSecret(manifest) {
      call('ensureStepAwsSecret', manifest.metadata!.namespace!, manifest.metadata!.name!);
      secrets.set(keyOf(manifest), stored(manifest, !secrets.has(keyOf(manifest))));
      return manifest.metadata!.name!;
    },
    async ensureRegistryLoginSecret(manifest) {
      call('ensureRegistryLoginSecret', manifest.metadata!.namespace!, manifest.metadata!.name!);
      secrets.set(keyOf(manifest), stored(manifest, !secrets.has(keyOf(manifest))));
      return manifest.metadata!.name!;
    },
    async cacheSecretSigning(namespace, secretName) {
      call('cacheSecretSigning', namespace, secretName);
      return parseSigning(secrets.get(objectKey(namespace, secretName))?.metadata?.annotations?.[URL_SIGNING_ANNOTATION]);
    },
    async replaceCacheSecretUrls(namespace, secretName, urls) {
      call('replaceCacheSecretUrls', namespace, secretName);
      const secret = secrets.get(objectKey(namespace, secretName));
      if (!secret) return false;
      const data = { ...secret.data };
      for (const [key, url] of Object.entries(urls)) data[key] = Buffer.from(url, 'utf8').toString('base64');
      secrets.set(objectKey(namespace, secretName), stored({ ...secret, data }, false));
      return true;
    },
    async ensureWorkspaceClaim(manifest) {
      call('ensureWorkspaceClaim', manifest.metadata!.namespace!, manifest.metadata!.name!);
      if (claims.has(keyOf(manifest))) return adoptClaim(claims.get(keyOf(manifest)), manifest);
      const claim = stored(manifest, true);
      claims.set(keyOf(claim), claim);
      return { claim, adopted: false };
    },
    async workspaceNode(namespace, claimName) {
      call('workspaceNode', namespace, claimName);
      return claims.get(objectKey(namespace, claimName))?.metadata?.annotations?.[SELECTED_NODE_ANNOTATION] || undefined;
    },
    async nodeInstanceType(nodeName) {
      call('nodeInstanceType', '', nodeName);
      return instanceTypes.get(nodeName) ?? null;
    },
    async recordStepSucceeded(namespace, claimName, step, at) {
      call('recordStepSucceeded', namespace, claimName);
      annotate(claims, objectKey(namespace, claimName), { [succeededStepAnnotation(step)]: at.toISOString() });
    },
    async keepBuildObjects(namespace, buildId, claimName, keep) {
      call('keepBuildObjects', namespace, claimName);
      const claim = claims.get(objectKey(namespace, claimName));
      if (!claim) return { claim: undefined, keptSecrets: 0 };
      const keepOne = (store: Map<string, { metadata?: V1ObjectMeta }>, key: string): boolean => {
        const metadata = store.get(key)?.metadata;
        const deadline = keptDeadlineSeconds(metadata, keep.now, keep.seconds);
        if (deadline === undefined || metadata?.deletionTimestamp) return false;
        annotate(store, key, { [BUILD_DEADLINE_ANNOTATION]: String(deadline) });
        return true;
      };
      keepOne(claims, objectKey(namespace, claimName));
      const owned = inNamespace<V1Secret>(secrets, namespace, buildSelector(buildId)).filter((secret) => {
        const exactBuild = secret.metadata?.annotations?.[Annotations.build];
        return exactBuild === undefined || exactBuild === buildId;
      });
      const keptSecrets = owned.filter((secret) => keepOne(secrets, keyOf(secret))).length;
      return { claim: claims.get(objectKey(namespace, claimName)), keptSecrets };
    },
  };

  function annotate(store: Map<string, { metadata?: V1ObjectMeta }>, key: string, annotations: Record<string, string>): void {
    const object = store.get(key);
    if (object) store.set(key, stored({ ...object, metadata: { ...object.metadata, annotations: { ...object.metadata?.annotations, ...annotations } } }, false));
  }

  return cluster;
}

/** Whether labels match a selector of `key=value` terms joined by commas (the only form the runner writes). */
function matches(labels: Record<string, string> | undefined, selector: string): boolean {
  return selector
    .split(',')
    .filter(Boolean)
    .every((term) => {
      const [key, value] = term.split('=');
      return labels?.[key!] === value;
    });
}
