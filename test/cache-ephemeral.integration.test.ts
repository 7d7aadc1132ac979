/**
 * The cache with an ephemeral workspace (each pod its own emptyDir and its own checkout): the
 * clone still runs once as the build's first step, since a key's files must be hashed before any
 * step's pod is made, and each step's pod restores and saves in its own workspace.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { localBuildsForFile } from './fixtures/local-builds.js';

const builds = localBuildsForFile({ prefix: 'cache-ephemeral', repository: true, cache: true, settings: { workspaceMode: 'ephemeral' } });

const PIPELINE = `version: 1
steps:
  - name: install
    image: busybox:1.37
    cache:
      - key: {files: [package-lock.json], prefix: deps}
        paths: [deps]
    commands:
      - test -f package-lock.json
      - |
        if [ -f deps/lib.txt ]; then echo "deps from the cache"; else mkdir -p deps && echo v1 > deps/lib.txt && echo downloaded; fi
`;

describe('a cache with an ephemeral workspace', () => {
  beforeAll(() => builds.commit({ 'package-lock.json': 'lock\n' }));

  it('hashes the keys in a clone step of their own, then restores into the next build\'s own checkout', async () => {
    const logOf = async (id: string) => {
      const { summary } = await builds.build(id, PIPELINE);
      expect({ status: summary.status, cause: summary.cause, steps: summary.steps.map((step) => step.name) }).toEqual({ status: 'SUCCEEDED', cause: null, steps: ['clone', 'install'] });
      return readFile(path.join(builds.root, 'logs', id, 'install.log'), 'utf8');
    };
    const first = await logOf('ephemeral-1');
    // The pod's own checkout comes first in its log, then the cache's miss, the commands and the save.
    expect(first).toMatch(/checked out [0-9a-f]{40}[\s\S]*cache deps-[0-9a-f]{40}: miss[\s\S]*\ndownloaded\n[\s\S]*: saved \(/);
    const second = await logOf('ephemeral-2');
    expect(second).toMatch(/restored from deps-[0-9a-f]{12}… \(this branch\)/);
    expect(second).toContain('deps from the cache');
  });
});
