/**
 * A local build's source on a cluster given by --kubeconfig: its pods cannot reach this machine,
 * so the source goes to them through the Kubernetes API, as `kubectl cp` sends files: a shallow
 * bare copy of the snapshot, packed as tar into `exec tar -x` in each pod's clone container, which
 * waits for it (BuildSource.upload) and then checks out from it like from any repository. Works
 * with kind, minikube or EKS alike; needs `pods/exec` (create) besides what builds need.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { CoreV1Api, Exec, type KubeConfig, type V1Pod, type V1Status } from '@kubernetes/client-node';
import tar from 'tar-fs';
import type { BuildSource } from '../../contract/index.js';
import { CHECKOUT_STEP, type CheckoutSettings } from '../../pipeline/index.js';
import { UPLOADED_SOURCE, UPLOAD_WAIT_SECONDS } from '../../workflow/checkout-step.js';
import type { StepInput } from '../../workflow/state-data.js';
import type { ExecutionEvent } from '../../emulators/stepfunctions/executor.js';
import { kubeConfigFromFile } from '../kube-config-file.js';

export interface SourceUploadOptions {
  kubeConfig: KubeConfig;
  /** The snapshot's repository (a file:// URL or a path). */
  url: string;
  /** The pipeline's checkout depth (0: all history): no more is sent than the clone would fetch. */
  depth: number;
  /** Progress and failures, for the person running the build. */
  report: (line: string) => void;
  /** How often to look whether the clone container runs yet. */
  pollMs?: number;
}

export interface SourceUploader {
  /** The executor's events: each pod that checks out gets the source once its clone container runs. */
  onEvent(event: ExecutionEvent): void;
  /** Waits for the uploads under way, then removes the packed copy. */
  dispose(): Promise<void>;
}

/**
 * The uploader of a local build whose source is sent (BuildSource.upload) to the cluster of this
 * kubeconfig; undefined for any other build.
 */
export function uploaderFor(
  source: BuildSource | undefined,
  checkout: CheckoutSettings | false,
  cluster: { kubeconfig: string; context?: string | undefined },
  report: (line: string) => void,
): SourceUploader | undefined {
  if (!source?.upload || checkout === false) return undefined;
  const kubeConfig = kubeConfigFromFile(cluster.kubeconfig, cluster.context);
  return sourceUploader({ kubeConfig, url: source.url, depth: checkout.depth, report });
}

/** In the clone container's working directory (the workspace): unpack, then say it is complete. */
const RECEIVE_SCRIPT = `mkdir -p ${UPLOADED_SOURCE.dir} && tar -xf - -C ${UPLOADED_SOURCE.dir} && touch ${UPLOADED_SOURCE.done}`;

export function sourceUploader(options: SourceUploadOptions): SourceUploader {
  const uploads = new Set<Promise<void>>();
  let packed: Promise<string> | undefined;
  const copy = () => (packed ??= shallowCopy(options.url, options.depth));

  return {
    onEvent(event) {
      const target = uploadTarget(event);
      if (!target) return;
      const upload = sendSource(target, copy, options).catch((error: unknown) => {
        options.report(`Could not send the source to pod ${target.podName}: ${(error as Error).message}`);
      });
      uploads.add(upload);
      void upload.finally(() => uploads.delete(upload));
    },
    async dispose() {
      await Promise.all([...uploads]);
      const dir = await packed?.catch(() => undefined);
      if (dir) await rm(path.dirname(dir), { recursive: true, force: true });
    },
  };
}

interface UploadTarget {
  namespace: string;
  podName: string;
}

/**
 * A LaunchStep that made a pod which checks out: the `clone` step's own (volume workspace), or any
 * step's while the checkout is each pod's init container (ephemeral workspace).
 */
function uploadTarget(event: ExecutionEvent): UploadTarget | undefined {
  if (event.type !== 'StateExited' || event.state?.name !== 'LaunchStep') return undefined;
  const state = event.state.output as Partial<StepInput> | undefined;
  const podName = state?.poll?.podName;
  if (!state?.namespace || !podName || !state.step || !state.settings) return undefined;
  const checksOut = state.step.name === state.settings.checkoutStep || state.settings.checkout !== undefined;
  return checksOut ? { namespace: state.namespace, podName } : undefined;
}

async function sendSource(target: UploadTarget, copy: () => Promise<string>, options: SourceUploadOptions): Promise<void> {
  // Packed while the pod starts; a pod that never runs its clone needs none, and hears of no failure.
  const copying = copy();
  const container = await cloneRunning(target, options);
  if (!container) {
    copying.catch(() => undefined);
    return;
  }
  const dir = await copying;
  // tar-fs packs into a streamx stream; Readable.from makes it the Node stream client-node reads.
  const status = await execWithInput(options.kubeConfig, target, container, Readable.from(tar.pack(dir)));
  if (status.status !== 'Success') throw new Error(status.message ?? 'the upload did not complete');
  options.report(`Sent the source to pod ${target.podName}`);
}

/**
 * The clone container once it runs (a step's or an init container); undefined when it never will (the
 * pod ended or is gone, its clone already finished) or not within the time the clone waits.
 */
async function cloneRunning(target: UploadTarget, options: SourceUploadOptions): Promise<string | undefined> {
  const api = options.kubeConfig.makeApiClient(CoreV1Api);
  const deadline = Date.now() + UPLOAD_WAIT_SECONDS * 1000;
  while (Date.now() < deadline) {
    const pod = await api.readNamespacedPod({ namespace: target.namespace, name: target.podName }).catch(() => undefined);
    const state = pod ? cloneState(pod) : undefined;
    if (!pod || pod.metadata?.deletionTimestamp || state?.terminated || ['Succeeded', 'Failed'].includes(pod.status?.phase ?? '')) return undefined;
    if (state?.running) return cloneContainer(pod);
    await delay(options.pollMs ?? 250);
  }
  return undefined;
}

/** The clone container: `clone` as an init container (ephemeral workspace), else the clone step pod's own. */
function cloneContainer(pod: V1Pod): string | undefined {
  return pod.spec?.initContainers?.some((c) => c.name === CHECKOUT_STEP) ? CHECKOUT_STEP : pod.spec?.containers[0]?.name;
}

function cloneState(pod: V1Pod) {
  const name = cloneContainer(pod);
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  return statuses.find((s) => s.name === name)?.state;
}

/** Runs the receiving script in the clone container with `input` on its stdin; its stderr joins a failure's message. */
async function execWithInput(kubeConfig: KubeConfig, target: UploadTarget, container: string, input: Readable): Promise<V1Status> {
  let errors = '';
  const stderr = new Writable({
    write(chunk: Buffer, _encoding, done) {
      errors += chunk.toString();
      done();
    },
  });
  return new Promise<V1Status>((resolve, reject) => {
    let settled = false;
    const finish = (status: V1Status) => {
      if (settled) return;
      settled = true;
      const words = [status.message, errors.trim()].filter(Boolean).join(': ');
      resolve(words ? { ...status, message: words } : status);
    };
    new Exec(kubeConfig)
      .exec(target.namespace, target.podName, container, ['sh', '-c', RECEIVE_SCRIPT], null, stderr, input, false, finish)
      .then((socket) => {
        // A socket that closes without a status: the exec ended without saying how.
        socket.on('close', () => finish({ status: 'Failure', message: 'the connection closed before the command said how it ended' }));
      })
      .catch(reject);
  });
}

/**
 * A self-contained bare repository with the history the clone would fetch: the snapshot borrows
 * the user's objects, which the pod cannot have. Not checked for the commit: a copy without it is
 * still sent, so the clone's own fetch fails at once in git's words, naming the commit, as it
 * would on AWS (rather than waiting out the upload for a source that never comes).
 */
async function shallowCopy(url: string, depth: number): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'step-runner-upload-'));
  const dir = path.join(root, 'source.git');
  const args = ['clone', '-q', '--bare', '--no-tags', '--single-branch', ...(depth > 0 ? [`--depth=${depth}`] : []), url, dir];
  try {
    await promisify(execFile)('git', args, { env: gitEnv() });
    return dir;
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    // git's verdict is on its fatal/error lines; the rest is advice for a remote it cannot read.
    const stderr = (error as { stderr?: string }).stderr ?? '';
    const verdict = stderr.split('\n').filter((line) => /^(fatal|error):/.test(line)).join('; ');
    throw new Error(`could not pack the source: ${verdict || stderr.trim() || (error as Error).message}`);
  }
}

/** No GIT_DIR or the like from the caller. */
function gitEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_')));
}
