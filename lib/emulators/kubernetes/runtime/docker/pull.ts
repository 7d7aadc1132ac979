/**
 * Images through the Engine API, as cri-dockerd pulls and inspects them. A failed pull comes back
 * in the daemon's own words the way Docker's Go client (and so cri-dockerd, and so the kubelet's
 * events) words them: a refused request as `Error response from daemon: <message>`, an error in
 * the progress stream as its message alone. The kubelet's pull classifier judges those words.
 */
import type Docker from 'dockerode';
import { parseImageReference } from '../../image-catalog.js';
import type { ImageConfig, PullResult, RegistryAuth, RuntimeImage } from '../container-runtime.js';
import { daemonError } from './daemon-errors.js';

/** What the Engine API's pull takes: the familiar name, and a tag or digest (never empty: that pulls every tag). */
export interface PullTarget {
  fromImage: string;
  tag: string;
  /** What inspect finds the image by once it is there. */
  inspectName: string;
}

/** As Docker's Go client splits a reference for POST /images/create (latest when it names no tag). */
export function pullTarget(image: string): PullTarget {
  const parsed = parseImageReference(image);
  // The daemon words the refusal of a reference it cannot parse; the kubelet checks them first anyway.
  if (!parsed.ok) return { fromImage: image, tag: 'latest', inspectName: image };
  const { domain, repository, tag, digest, full } = parsed.reference;
  const fromImage = domain === 'docker.io' ? repository.replace(/^library\//, '') : `${domain}/${repository}`;
  return { fromImage, tag: digest ?? tag ?? 'latest', inspectName: full };
}

/**
 * X-Registry-Auth: the login as JSON in base64 with URL-safe letters and its padding, which the
 * daemon's decoder (base64.URLEncoding) requires; without padding it quietly pulls with no login.
 */
export function registryAuthHeader(auth: RegistryAuth): string {
  return Buffer.from(JSON.stringify(auth)).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

interface Progress {
  error?: string;
  errorDetail?: { message?: string; code?: number };
}

/**
 * The error the progress stream ended with, as cri-dockerd words it: the message, with
 * `RegistryUnavailable: ` before a 502/503/504 (core/image.go filterHTTPError).
 */
export function streamFailure(body: string): string | undefined {
  for (const line of body.split('\n')) {
    if (line.trim() === '') continue;
    let progress: Progress;
    try {
      progress = JSON.parse(line) as Progress;
    } catch {
      continue;
    }
    const message = progress.errorDetail?.message ?? progress.error;
    if (message === undefined) continue;
    const code = progress.errorDetail?.code;
    return code === 502 || code === 503 || code === 504 ? `RegistryUnavailable: ${message}` : message;
  }
  return undefined;
}

/**
 * The repository digest for the imageID: the one of the repository asked for, else the first.
 * The daemon keeps the digests of every repository the image was ever pulled from or pushed to,
 * and cri-dockerd's plain first one can name a registry the pod never used.
 */
function repoDigest(digests: readonly string[] | undefined, target: PullTarget | undefined): string | undefined {
  if (target !== undefined) {
    const repository = target.fromImage;
    const own = digests?.find((digest) => digest.slice(0, digest.lastIndexOf('@')) === repository);
    if (own !== undefined) return own;
  }
  return digests?.[0];
}

/**
 * The image as the kubelet sees it: cri-dockerd's imageID (toPullableImageID), size and config.
 * `target`: the reference asked for, as pullTarget split it (once per runtime call).
 */
export function runtimeImage(info: Docker.ImageInspectInfo, target?: PullTarget): RuntimeImage {
  const config = (info.Config ?? {}) as Partial<Docker.ImageInspectInfo['Config']>;
  const imageConfig: ImageConfig = { user: config.User ?? '' };
  if (config.Entrypoint) imageConfig.entrypoint = typeof config.Entrypoint === 'string' ? [config.Entrypoint] : [...config.Entrypoint];
  if (config.Cmd) imageConfig.cmd = [...config.Cmd];
  if (config.Env) imageConfig.env = [...config.Env];
  if (config.WorkingDir) imageConfig.workingDir = config.WorkingDir;
  const digest = repoDigest(info.RepoDigests, target);
  return {
    imageID: digest !== undefined ? `docker-pullable://${digest}` : `docker://${info.Id}`,
    size: info.Size,
    config: imageConfig,
  };
}

function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.on('error', reject);
  });
}

export async function presentImage(docker: Docker, image: string): Promise<RuntimeImage | undefined> {
  return presentTarget(docker, pullTarget(image));
}

async function presentTarget(docker: Docker, target: PullTarget): Promise<RuntimeImage | undefined> {
  try {
    return runtimeImage(await docker.getImage(target.inspectName).inspect(), target);
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return undefined;
    throw error;
  }
}

export async function pullImage(docker: Docker, socketPath: string, image: string, auth?: RegistryAuth): Promise<PullResult> {
  const target = pullTarget(image);
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.createImage({
      fromImage: target.fromImage,
      tag: target.tag,
      ...(auth !== undefined ? { authconfig: { key: registryAuthHeader(auth) } } : {}),
    });
  } catch (error) {
    return { ok: false, error: daemonError(error, socketPath) };
  }
  let failure: string | undefined;
  try {
    failure = streamFailure(await readAll(stream));
  } catch (error) {
    return { ok: false, error: daemonError(error, socketPath) };
  }
  if (failure !== undefined) return { ok: false, error: failure };
  try {
    const pulled = await presentTarget(docker, target);
    return pulled ? { ok: true, image: pulled } : { ok: false, error: `Error response from daemon: No such image: ${target.inspectName}` };
  } catch (error) {
    return { ok: false, error: daemonError(error, socketPath) };
  }
}
