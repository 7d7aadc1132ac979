/**
 * Pull requests and their failures: the reference as the Engine API takes it, the login header,
 * and the daemon's recorded words (test/fixtures/kube/docker-pull-messages.json) turned into the
 * error this runtime reports, which must be what cri-dockerd reports and what the kubelet's pull
 * classifier judges as it judges containerd's words for the same failure.
 */
import type Docker from 'dockerode';
import { classifyPullMessage, isAuthPullFailure } from '../../../../kube/image-pull.js';
import { loadDockerPullMessages, runtimeError } from '../../../../../test/fixtures/docker/pull-wording.js';
import { daemonError } from './daemon-errors.js';
import { pullTarget, registryAuthHeader, runtimeImage, streamFailure } from './pull.js';

describe('pullTarget', () => {
  it.each([
    ['alpine', { fromImage: 'alpine', tag: 'latest', inspectName: 'docker.io/library/alpine:latest' }],
    ['alpine:3.20', { fromImage: 'alpine', tag: '3.20', inspectName: 'docker.io/library/alpine:3.20' }],
    ['docker.io/library/alpine:3.20', { fromImage: 'alpine', tag: '3.20', inspectName: 'docker.io/library/alpine:3.20' }],
    ['team/app', { fromImage: 'team/app', tag: 'latest', inspectName: 'docker.io/team/app:latest' }],
    ['127.0.0.1:5000/test/busybox:1', { fromImage: '127.0.0.1:5000/test/busybox', tag: '1', inspectName: '127.0.0.1:5000/test/busybox:1' }],
    [`ghcr.io/o/r@sha256:${'a'.repeat(64)}`, { fromImage: 'ghcr.io/o/r', tag: `sha256:${'a'.repeat(64)}`, inspectName: `ghcr.io/o/r@sha256:${'a'.repeat(64)}` }],
    // Left for the daemon to refuse in its words.
    ['Team/App:1', { fromImage: 'Team/App:1', tag: 'latest', inspectName: 'Team/App:1' }],
  ])('%s', (image, expected) => {
    expect(pullTarget(image)).toEqual(expected);
  });
});

describe('registryAuthHeader', () => {
  it("is the login's JSON in URL-safe base64 with its padding, as the daemon's decoder wants", () => {
    const login = { username: 'ci', password: '>>>???', serveraddress: 'ghcr.io' };
    const header = registryAuthHeader(login);
    expect(header).toMatch(/^[A-Za-z0-9_-]+=*$/);
    expect(header.length % 4).toBe(0);
    expect(JSON.parse(Buffer.from(header.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString())).toEqual(login);
  });
});

describe('runtimeImage', () => {
  const info = (extra: Partial<Docker.ImageInspectInfo>) =>
    ({ Id: 'sha256:1d', RepoTags: [], RepoDigests: [], Size: 2048, Config: { Entrypoint: null, Cmd: ['/bin/sh'], Env: ['PATH=/bin'], WorkingDir: '', User: '' }, ...extra }) as unknown as Docker.ImageInspectInfo;

  it.each([
    ['no digest: the image id', info({}), undefined, 'docker://sha256:1d'],
    ['a digest: pullable', info({ RepoDigests: ['r.io/a@sha256:01'] }), 'r.io/a:1', 'docker-pullable://r.io/a@sha256:01'],
    ['the digest of the repository asked for', info({ RepoDigests: ['old.io/a@sha256:01', 'r.io/a@sha256:02'] }), 'r.io/a:1', 'docker-pullable://r.io/a@sha256:02'],
    ['a familiar name', info({ RepoDigests: ['x.io/a@sha256:01', 'alpine@sha256:03'] }), 'docker.io/library/alpine', 'docker-pullable://alpine@sha256:03'],
    ['none of the repository asked for: the first', info({ RepoDigests: ['old.io/a@sha256:01'] }), 'r.io/a:1', 'docker-pullable://old.io/a@sha256:01'],
  ])('imageID, %s', (_name, inspected, image, imageID) => {
    expect(runtimeImage(inspected, image === undefined ? undefined : pullTarget(image)).imageID).toBe(imageID);
  });

  it('keeps the config the kubelet resolves a command and a user from; no user is root', () => {
    expect(runtimeImage(info({})).config).toEqual({ cmd: ['/bin/sh'], env: ['PATH=/bin'], user: '' });
    const configured = info({ Config: { Entrypoint: ['/bin/echo'], Cmd: ['hi'], Env: ['G=1'], WorkingDir: '/srv', User: '1000:1000' } as unknown as Docker.ImageInspectInfo['Config'] });
    expect(runtimeImage(configured)).toEqual({
      imageID: 'docker://sha256:1d',
      size: 2048,
      config: { entrypoint: ['/bin/echo'], cmd: ['hi'], env: ['G=1'], workingDir: '/srv', user: '1000:1000' },
    });
  });
});

describe('streamFailure', () => {
  it.each([
    ['progress only', '{"status":"Pulling fs layer"}\n{"status":"Done"}\n', undefined],
    ['an error line', '{"status":"Pulling"}\n{"errorDetail":{"message":"error pulling image configuration: download failed"},"error":"error pulling image configuration: download failed"}\n', 'error pulling image configuration: download failed'],
    ['a 503 from the registry', '{"errorDetail":{"code":503,"message":"received unexpected HTTP status: 503 Service Unavailable"},"error":"x"}', 'RegistryUnavailable: received unexpected HTTP status: 503 Service Unavailable'],
    ['only the error field', '{"error":"short"}', 'short'],
  ])('%s', (_name, body, expected) => {
    expect(streamFailure(body)).toBe(expected);
  });
});

describe('daemonError', () => {
  it('words an unreachable daemon as the Docker client does', () => {
    const refused = Object.assign(new Error('connect ENOENT /run/docker.sock'), { code: 'ENOENT' });
    expect(daemonError(refused, '/run/docker.sock')).toBe('Cannot connect to the Docker daemon at unix:///run/docker.sock. Is the docker daemon running?');
  });
});

/** A refusal as docker-modem rejects with it: for a streamed request the message only in its text. */
function modemRefusal(status: number, message: string, streamed: boolean): Error {
  const reason = status === 404 ? 'no such image' : status === 500 ? 'server error' : 'unexpected';
  return Object.assign(new Error(`(HTTP code ${status}) ${reason} - ${message} `), { statusCode: status, json: streamed ? null : { message } });
}

const recorded = loadDockerPullMessages();

describe("the recorded daemon failures, as this runtime's pull reports them", () => {
  const cases = recorded.cases.filter((c) => c.backOff !== null).map((c) => [c.name, c] as const);

  it.each(cases)('%s', (_name, c) => {
    const reported =
      c.via === 'http' ? daemonError(modemRefusal(c.status, c.daemonMessage, true), '/run/docker.sock') : streamFailure(`${JSON.stringify({ errorDetail: { message: c.daemonMessage }, error: c.daemonMessage })}\n`)!;
    expect(reported).toBe(runtimeError(c.via, c.daemonMessage));
    expect(daemonError(modemRefusal(c.status, c.daemonMessage, false), '/run/docker.sock')).toBe(runtimeError('http', c.daemonMessage));
    expect(classifyPullMessage(reported, c.image)).toBe(c.verdict);
    expect(isAuthPullFailure(reported, c.image)).toBe(c.auth);
  });
});
