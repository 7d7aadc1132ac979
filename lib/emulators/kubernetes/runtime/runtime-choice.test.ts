import { describe, expect, it } from '@jest/globals';
import {
  chooseRuntime,
  DockerUnavailable,
  dockerSocketCandidates,
  PROCESS_RUNTIME_NOTICE,
  requestedRuntime,
  runtimeKind,
  runtimeNotice,
  socketFailureReason,
  UnknownRuntime,
  unusableDockerHost,
} from './runtime-choice.js';

const HOME = '/home/ada';
const DEFAULTS = [
  '/var/run/docker.sock',
  '/home/ada/.docker/run/docker.sock',
  '/home/ada/.docker/desktop/docker.sock',
  '/home/ada/.colima/default/docker.sock',
  '/home/ada/.colima/docker.sock',
  '/run/podman/podman.sock',
];
const paths = (env: NodeJS.ProcessEnv, platform: NodeJS.Platform = 'linux') => dockerSocketCandidates(env, platform, HOME).map((c) => c.socketPath);

describe('dockerSocketCandidates', () => {
  it.each([
    ['nothing set: the system daemon, then Docker Desktop, colima, Podman', {}, DEFAULTS],
    ['a unix DOCKER_HOST first', { DOCKER_HOST: 'unix:///srv/docker.sock' }, ['/srv/docker.sock', ...DEFAULTS]],
    ['a DOCKER_HOST naming a default socket is not tried twice', { DOCKER_HOST: 'unix:///var/run/docker.sock' }, DEFAULTS],
    ['a tcp DOCKER_HOST is left out', { DOCKER_HOST: 'tcp://10.0.0.2:2375' }, DEFAULTS],
    ['an empty unix DOCKER_HOST is left out', { DOCKER_HOST: 'unix://' }, DEFAULTS],
    [
      'XDG_RUNTIME_DIR adds rootless Docker and Podman of the user',
      { XDG_RUNTIME_DIR: '/run/user/1000' },
      [...DEFAULTS.slice(0, 3), '/run/user/1000/docker.sock', ...DEFAULTS.slice(3, 5), '/run/user/1000/podman/podman.sock', DEFAULTS[5]],
    ],
  ])('%s', (_title, env, expected) => {
    expect(paths(env)).toEqual(expected);
  });

  it('is the same on macOS, and empty on Windows (a named pipe, and mounts the kubelet cannot make)', () => {
    expect(paths({}, 'darwin')).toEqual(DEFAULTS);
    expect(paths({ DOCKER_HOST: 'unix:///x.sock' }, 'win32')).toEqual([]);
  });

  it('says where each socket comes from', () => {
    expect(dockerSocketCandidates({ DOCKER_HOST: 'unix:///srv/d.sock' }, 'linux', HOME).slice(0, 3)).toEqual([
      { socketPath: '/srv/d.sock', source: 'DOCKER_HOST' },
      { socketPath: '/var/run/docker.sock', source: 'the system Docker daemon' },
      { socketPath: '/home/ada/.docker/run/docker.sock', source: 'Docker Desktop' },
    ]);
  });
});

describe('what was asked for', () => {
  it.each([
    ['the flag', 'process', { STEP_RUNNER_RUNTIME: 'docker' }, 'process'],
    ['STEP_RUNNER_RUNTIME without the flag', undefined, { STEP_RUNNER_RUNTIME: 'docker' }, 'docker'],
    ['nothing: auto', undefined, {}, undefined],
    ['an empty STEP_RUNNER_RUNTIME: auto', undefined, { STEP_RUNNER_RUNTIME: '' }, undefined],
  ] as const)('%s', (_title, flag, env, expected) => {
    expect(requestedRuntime(flag, env)).toBe(expected);
  });

  it('refuses a runtime that does not exist, naming where it came from and the ones that do', () => {
    expect(() => requestedRuntime(undefined, { STEP_RUNNER_RUNTIME: 'podman' })).toThrow(new UnknownRuntime('STEP_RUNNER_RUNTIME must be one of docker, process, got "podman"'));
    expect(() => runtimeKind('containerd', '--runtime')).toThrow('--runtime must be one of docker, process, got "containerd"');
    expect(runtimeKind('docker', '--runtime')).toBe('docker');
  });
});

describe('unusableDockerHost', () => {
  it.each([
    [{}, undefined],
    [{ DOCKER_HOST: '' }, undefined],
    [{ DOCKER_HOST: 'unix:///var/run/docker.sock' }, undefined],
    [{ DOCKER_HOST: 'tcp://10.0.0.2:2375' }, 'DOCKER_HOST=tcp://10.0.0.2:2375 cannot be used: the kubelet bind-mounts this machine\'s folders into containers, so only a local unix:// socket will do.'],
    [{ DOCKER_HOST: 'ssh://me@box' }, expect.stringMatching(/^DOCKER_HOST=ssh:\/\/me@box cannot be used/)],
  ])('%j', (env, expected) => {
    expect(unusableDockerHost(env)).toEqual(expected);
  });
});

describe('DockerUnavailable', () => {
  it('names every socket tried and why, and what to do', () => {
    const error = new DockerUnavailable([
      { socketPath: '/var/run/docker.sock', source: 'the system Docker daemon', reason: 'no such file' },
      { socketPath: '/home/ada/.colima/docker.sock', source: 'colima', reason: 'connection refused: nothing listening' },
    ]);
    expect(error.name).toBe('DockerUnavailable');
    expect(error.message).toBe(
      '--runtime docker: no Docker daemon answered at /var/run/docker.sock (no such file), /home/ada/.colima/docker.sock (connection refused: nothing listening). ' +
        'Start Docker, set DOCKER_HOST=unix://..., or use --runtime process.',
    );
  });

  it('says why a tcp DOCKER_HOST was not tried', () => {
    const error = new DockerUnavailable([], unusableDockerHost({ DOCKER_HOST: 'tcp://h:2375' }), 'STEP_RUNNER_RUNTIME=docker');
    expect(error.message).toMatch(/^STEP_RUNNER_RUNTIME=docker: no Docker daemon answered \(no socket to try on this system\)\. DOCKER_HOST=tcp:\/\/h:2375 cannot be used: .* Start Docker/);
  });
});

describe('chooseRuntime without a socket to try', () => {
  it('process when asked, by the flag or STEP_RUNNER_RUNTIME, without looking for a daemon', async () => {
    expect(await chooseRuntime('process', {})).toEqual({ kind: 'process' });
    expect(await chooseRuntime(undefined, { STEP_RUNNER_RUNTIME: 'process' })).toEqual({ kind: 'process' });
  });

  it('process when nothing is asked and there is no daemon; DockerUnavailable when docker is asked', async () => {
    expect(await chooseRuntime(undefined, {}, { platform: 'win32' })).toEqual({ kind: 'process' });
    await expect(chooseRuntime('docker', {}, { platform: 'win32' })).rejects.toThrow(DockerUnavailable);
    await expect(chooseRuntime(undefined, { STEP_RUNNER_RUNTIME: 'docker' }, { platform: 'win32' })).rejects.toThrow(/^STEP_RUNNER_RUNTIME=docker: no Docker daemon answered/);
  });

  it('refuses a STEP_RUNNER_RUNTIME that names no runtime, unless the flag says which', async () => {
    await expect(chooseRuntime(undefined, { STEP_RUNNER_RUNTIME: 'fast' })).rejects.toThrow(UnknownRuntime);
    expect(await chooseRuntime('process', { STEP_RUNNER_RUNTIME: 'fast' })).toEqual({ kind: 'process' });
  });
});

describe('runtimeNotice', () => {
  it('says steps are local processes and not their images, or names the Docker socket', () => {
    expect(runtimeNotice({ kind: 'process' })).toBe(PROCESS_RUNTIME_NOTICE);
    expect(PROCESS_RUNTIME_NOTICE).toMatch(/^Steps run as local processes .*not inside their images/);
    expect(runtimeNotice({ kind: 'docker', socketPath: '/var/run/docker.sock' })).toBe('Steps run in their images through Docker at /var/run/docker.sock.');
  });
});

describe('socketFailureReason', () => {
  const failure = (code: string | undefined, message = 'boom') => Object.assign(new Error(message), code ? { code } : {});
  it.each([
    ['ENOENT', 'no such file'],
    ['ECONNREFUSED', 'connection refused: nothing listening'],
    ['EACCES', 'permission denied'],
    ['ENOTSOCK', 'not a socket'],
    ['ECONNRESET', 'ECONNRESET: boom'],
    [undefined, 'boom'],
  ])('%s: %s', (code, expected) => {
    expect(socketFailureReason(failure(code))).toBe(expected);
  });
});
