import { containerMounts } from '../../container-mounts.js';
import { hostEnv, hostPathOf, workingDirectory } from './container-paths.js';

const volumes = new Map([
  ['workspace', '/state/volumes/pvc-1'],
  ['cache', '/state/pods/uid/volumes/kubernetes.io~empty-dir/cache'],
]);
const root = '/state/pods/uid/containers/step/rootfs';

describe('a container path on the host', () => {
  const mounts = containerMounts(
    [
      { name: 'workspace', mountPath: '/workspace/' },
      { name: 'cache', mountPath: '/workspace/.cache' },
      { name: 'gone', mountPath: '/nowhere' },
    ],
    volumes,
  );

  test('mounts are normalised, the deepest first, and a mount of an unknown volume is dropped', () => {
    expect(mounts).toEqual([
      { containerPath: '/workspace/.cache', hostPath: '/state/pods/uid/volumes/kubernetes.io~empty-dir/cache', readOnly: false },
      { containerPath: '/workspace', hostPath: '/state/volumes/pvc-1', readOnly: false },
    ]);
  });

  test.each([
    ['/workspace', '/state/volumes/pvc-1'],
    ['/workspace/src/app', '/state/volumes/pvc-1/src/app'],
    ['/workspace/.cache/npm', '/state/pods/uid/volumes/kubernetes.io~empty-dir/cache/npm'],
    ['/workspaces', `${root}/workspaces`],
    ['/workspace/../etc', `${root}/etc`],
    ['/src', `${root}/src`],
  ])('%s is %s', (path, expected) => {
    expect(hostPathOf(path, mounts, root)).toBe(expected);
  });

  test('the working directory is workingDir on the host, or the fallback without one', () => {
    expect(workingDirectory({ workingDir: '/workspace/sub' }, mounts, root, '/home/me/project')).toBe('/state/volumes/pvc-1/sub');
    expect(workingDirectory({}, mounts, root, '/home/me/project')).toBe('/home/me/project');
  });

  test('env values that are a mount path or below one are rewritten; others are kept', () => {
    expect(
      hostEnv(
        {
          CI_WORKSPACE: '/workspace',
          CACHE: '/workspace/.cache/pip',
          SIMILAR: '/workspaces',
          ELSEWHERE: '/usr/local/bin',
          RELATIVE: 'workspace',
          TEXT: 'see /workspace',
        },
        mounts,
      ),
    ).toEqual({
      CI_WORKSPACE: '/state/volumes/pvc-1',
      CACHE: '/state/pods/uid/volumes/kubernetes.io~empty-dir/cache/pip',
      SIMILAR: '/workspaces',
      ELSEWHERE: '/usr/local/bin',
      RELATIVE: 'workspace',
      TEXT: 'see /workspace',
    });
  });
});

test('a subPath mounts a folder of the volume', () => {
  const mounts = containerMounts([{ name: 'workspace', mountPath: '/src', subPath: 'repo/app' }], volumes);
  expect(hostPathOf('/src/main.go', mounts, root)).toBe('/state/volumes/pvc-1/repo/app/main.go');
});

test('a mount at the root takes every path', () => {
  const mounts = containerMounts([{ name: 'workspace', mountPath: '/' }], volumes);
  expect(hostPathOf('/etc/passwd', mounts, root)).toBe('/state/volumes/pvc-1/etc/passwd');
  expect(hostEnv({ HOME: '/root' }, mounts)).toEqual({ HOME: '/state/volumes/pvc-1/root' });
});
