/**
 * A step pod's cache containers and the Secret they read their URLs from (the scripts are in
 * cache-scripts.ts):
 * - `step-runner-cache-restore`, an init container after the checkout and before the services,
 *   unpacks the entries into the workspace before the step's commands run;
 * - `step-runner-cache-save`, a native sidecar after the services, waits for the step script's
 *   hand-over in the scratch emptyDir, saves, keeps the step's artifacts (after a failure too),
 *   and tells the step it may exit.
 * The presigned URLs are in a Secret of the step's own, mounted as a volume (CACHE_URLS) in these
 * two containers only: the step's commands never see them, nor do the pod's spec and events. A
 * volume, not env and not a subPath mount: the kubelet brings a Secret's new content into its
 * volumes ("Mounted Secrets are updated automatically"; "A container using a Secret as a subPath
 * volume mount does not receive automated Secret updates", and env is set once, at the start;
 * Kubernetes docs, Secrets), and PollStep signs the URLs again while the step runs.
 */
import type { V1Container, V1EnvVar, V1Secret, V1SecurityContext, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { CacheDirEnv, cacheRestoreScript, cacheSaveScript, DEFAULT_CACHE_DIRS, DEFAULT_URLS_DIR, type ArtifactScriptPlan, type CacheScriptEntry } from './cache-scripts.js';
import { labelValue } from './pod-name.js';
import { Annotations, BUILD_DEADLINE_ANNOTATION, Labels, MANAGED_BY } from './types.js';
import { WORKSPACE_PATH, WORKSPACE_VOLUME } from './workspace.js';

/** What a step pod's cache does: planned by LaunchStep, one entry per cache of the step. */
export interface PodCachePlan {
  /** The cache containers' image (sh, curl, tar, gzip, sha256sum): the deployment's, default DEFAULT_CACHE_IMAGE. */
  image: string;
  /** The Secret that holds the URLs (cacheSecretManifest). */
  secret: string;
  entries: PodCacheEntry[];
  /** What the step keeps once its commands ended, whether they succeeded or failed; absent: nothing. */
  artifacts?: PodArtifacts;
  /** The test reports it sends then too (report-scripts.ts); absent: none. */
  reports?: PodReports;
}

/** A step's `reports:`: its globs, and the Secret's key of the bundle's upload. */
export interface PodReports {
  junit: string[];
  secretKey: string;
}

/** A step's artifacts: one upload per path and the manifest that lists what was kept. */
export interface PodArtifacts {
  paths: PodArtifact[];
  manifest: { secretKey: string };
}

/**
 * One path of `artifacts:`. `secretKey` and `object` are its upload as the path names it: a file,
 * or a folder's tar.gz when it ends in `/`. A path without the `/` may turn out to be a folder,
 * so it also has `folder`, its tar.gz upload.
 */
export interface PodArtifact {
  path: string;
  secretKey: string;
  object: string;
  folder?: { secretKey: string; object: string };
}

export interface PodCacheEntry {
  /** The exact key's name, for the log lines. */
  key: string;
  /** Relative to the workspace. */
  paths: string[];
  /** Where to restore from, in order: a label for the log and the Secret's key of its GET URL. */
  restore: { label: string; secretKey: string }[];
  /** The Secret's key of the PUT URL; absent: not saved. */
  save?: { secretKey: string };
  /** Why it is not saved, for the log (an exact hit, policy pull, a fork's PR). */
  saveSkipped?: string;
  /** It restores, but no entry was found to restore from: why, for the log. */
  restoreMiss?: string;
}

/** A pinned, well-known image with curl; its Alpine busybox brings sh, tar, gzip, sha256sum and tee. */
export const DEFAULT_CACHE_IMAGE = 'curlimages/curl:8.11.1';

export const CacheContainers = {
  restore: 'step-runner-cache-restore',
  save: 'step-runner-cache-save',
} as const;

/** The emptyDir the step and the cache containers share for the hand-over and the entries in flight. */
export const CACHE_SCRATCH = { volume: 'step-runner', mountPath: '/step-runner' } as const;

/** The step's Secret as a volume, a file per URL, mounted (read-only) in the cache containers only. */
export const CACHE_URLS = { volume: 'step-runner-urls', mountPath: DEFAULT_URLS_DIR } as const;

/** Whether the pod gets a restore container: some entry has a candidate or a note to print. */
export function hasCacheRestore(plan: PodCachePlan): boolean {
  return plan.entries.some((e) => e.restore.length > 0 || e.saveSkipped !== undefined || e.restoreMiss !== undefined);
}

/** Whether the pod gets a save sidecar (and the step waits for it): an entry to save, artifacts to keep, or reports to send. */
export function hasCacheSave(plan: PodCachePlan): boolean {
  return plan.entries.some((e) => e.save !== undefined) || plan.artifacts !== undefined || plan.reports !== undefined;
}

export interface CacheContainerOptions {
  /** Whether the pod has a workspace volume; without one there is nothing to restore into or save. */
  mounted: boolean;
  /** The pod's non-root user, when the deployment names one (see pod-manifest.ts). */
  runAsUser?: number | undefined;
  /** The step's name: the restore's lock says who restores an entry the step's siblings wait for (cache-scripts.ts). */
  step?: string;
}

function scriptArtifacts(plan: PodCachePlan): ArtifactScriptPlan | undefined {
  if (!plan.artifacts) return undefined;
  return {
    paths: plan.artifacts.paths.map((a) => {
      const own = { urlKey: a.secretKey, object: a.object };
      // A path that names a folder has only its tar.gz; any other may be either.
      return a.folder ? { path: a.path, file: own, folder: { urlKey: a.folder.secretKey, object: a.folder.object } } : { path: a.path, folder: own };
    }),
    manifest: { urlKey: plan.artifacts.manifest.secretKey },
  };
}

function scriptEntries(plan: PodCachePlan): CacheScriptEntry[] {
  return plan.entries.map((e) => ({
    key: e.key,
    paths: e.paths,
    restore: e.restore.map((c) => ({ label: c.label, urlKey: c.secretKey })),
    ...(e.save ? { save: { urlKey: e.save.secretKey } } : {}),
    ...(e.saveSkipped !== undefined ? { saveSkipped: e.saveSkipped } : {}),
    ...(e.restoreMiss !== undefined ? { restoreMiss: e.restoreMiss } : {}),
  }));
}

export function cacheRestoreContainer(plan: PodCachePlan, options: CacheContainerOptions): V1Container | undefined {
  if (!hasCacheRestore(plan)) return undefined;
  return helper(CacheContainers.restore, cacheRestoreScript(scriptEntries(plan), DEFAULT_CACHE_DIRS, options.step), plan.image, options);
}

export function cacheSaveContainer(plan: PodCachePlan, options: CacheContainerOptions): V1Container | undefined {
  if (!hasCacheSave(plan)) return undefined;
  const reports = plan.reports ? { junit: plan.reports.junit, urlKey: plan.reports.secretKey } : undefined;
  const script = cacheSaveScript(scriptEntries(plan), DEFAULT_CACHE_DIRS, scriptArtifacts(plan), reports);
  return { ...helper(CacheContainers.save, script, plan.image, options), restartPolicy: 'Always' };
}

/** The pod's volume of the step's Secret (CACHE_URLS): every key, as a file. */
export function cacheUrlsVolume(plan: Pick<PodCachePlan, 'secret'>): V1Volume {
  return { name: CACHE_URLS.volume, secret: { secretName: plan.secret } };
}

/** The step's own mount of the scratch directory, and the variable its script finds it by. */
export function stepScratchMount(): { mount: V1VolumeMount; env: V1EnvVar } {
  return { mount: { name: CACHE_SCRATCH.volume, mountPath: CACHE_SCRATCH.mountPath }, env: { name: CacheDirEnv.scratch, value: CACHE_SCRATCH.mountPath } };
}

/**
 * Small and fixed: tar and gzip -1 of one entry at a time need little memory; the limit keeps a
 * runaway from taking the step's share of the node. No cpu limit: packing should go as fast as the
 * node lets it.
 */
const HELPER_RESOURCES = { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } };

function helper(name: string, script: string, image: string, options: CacheContainerOptions): V1Container {
  return {
    name,
    image,
    imagePullPolicy: 'IfNotPresent',
    // What pod-manifest.ts's literal() does (which imports this file): the kubelet's $(VAR) and $$ stay out of the script.
    command: ['/bin/sh', '-c', script.replace(/\$/g, '$$$$')],
    env: [
      { name: CacheDirEnv.workspace, value: WORKSPACE_PATH },
      { name: CacheDirEnv.scratch, value: CACHE_SCRATCH.mountPath },
      { name: CacheDirEnv.urls, value: CACHE_URLS.mountPath },
    ],
    volumeMounts: [
      ...(options.mounted ? [{ name: WORKSPACE_VOLUME, mountPath: WORKSPACE_PATH }] : []),
      { name: CACHE_SCRATCH.volume, mountPath: CACHE_SCRATCH.mountPath },
      { name: CACHE_URLS.volume, mountPath: CACHE_URLS.mountPath, readOnly: true },
    ],
    resources: HELPER_RESOURCES,
    securityContext: helperSecurity(options.runAsUser),
  };
}

/**
 * As hardened as the step's. Without a deployment user the pod runs the images' own users, and the
 * curl image's is curl_user (100), who could not write a workspace the checkout wrote as root: the
 * helpers then run as root, as the checkout and most CI images do (allowed at Pod Security
 * `baseline`). With one, the pod's securityContext already makes every container that user.
 */
function helperSecurity(runAsUser: number | undefined): V1SecurityContext {
  return {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
    ...(runAsUser === undefined ? { runAsUser: 0, runAsGroup: 0 } : {}),
  };
}

/**
 * How one URL of the Secret is signed, so that PollStep can sign it again while the step runs
 * (lib/workflow/step-urls.ts): a GET, a PUT only if the object is not there (`If-None-Match: *`,
 * a cache entry's), or a plain PUT (an artifact's), of `object` for `seconds`.
 */
export interface UrlSigning {
  how: 'get' | 'put-new' | 'put';
  object: string;
  seconds: number;
}

/** On the step's cache Secret: JSON of secretKey -> UrlSigning. Object keys only, never a URL. */
export const URL_SIGNING_ANNOTATION = 'step-runner.dev/url-signing';

/**
 * The step's cache Secret: its URLs by key, and how each is signed (URL_SIGNING_ANNOTATION). Labelled with the build, so the build's cleanup
 * (deleteBuildObjects with BuildObjectKinds.secret) and the orphan sweep delete it with the rest.
 */
export function cacheSecretManifest(input: {
  buildId: string;
  namespace: string;
  podName: string;
  urls: Record<string, string>;
  /** How each URL is signed; absent: PollStep never signs them again. */
  signing?: Record<string, UrlSigning>;
  /** How long the build may need it (the orphan sweep's deadline); absent: the sweep leaves it to the build's cleanup. */
  deadlineSeconds?: number;
}): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: cacheSecretName(input.podName),
      namespace: input.namespace,
      labels: { [Labels.managedBy]: MANAGED_BY, [Labels.build]: labelValue(input.buildId) },
      annotations: {
        [Annotations.build]: input.buildId,
        ...(input.deadlineSeconds !== undefined ? { [BUILD_DEADLINE_ANNOTATION]: String(input.deadlineSeconds) } : {}),
        ...(input.signing ? { [URL_SIGNING_ANNOTATION]: JSON.stringify(input.signing) } : {}),
      },
    },
    stringData: { ...input.urls },
  };
}

export function cacheSecretName(podName: string): string {
  return `${podName}-cache`;
}
