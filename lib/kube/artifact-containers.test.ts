/** A step pod that keeps artifacts, as stepPodManifest makes it: the save sidecar, its URLs, and the step's hand-over on any exit. */
import { Pod } from 'kubernetes-models/v1/Pod';
import type { Step } from '../pipeline/types.js';
import { CACHE_URLS, CacheContainers, DEFAULT_CACHE_IMAGE, type PodArtifacts, type PodCachePlan } from './cache-containers.js';
import { stepPodManifest } from './pod-manifest.js';
import { STEP_CONTAINER } from './types.js';
import { parseImageReference } from '../pipeline/index.js';

const step: Step = { name: 'build', image: 'node:22-alpine', imageRef: parseImageReference('node:22-alpine'), commands: ['npm test'], env: {}, pull: 'if-not-present', timeoutSeconds: 600, secrets: [] };
const artifacts: PodArtifacts = {
  paths: [
    { path: 'dist/', secretKey: 'ARTIFACT_0_DIR', object: 'artifacts/30d/local/b1/build/0-dist.tar.gz' },
    { path: 'coverage/lcov.info', secretKey: 'ARTIFACT_1', object: 'artifacts/30d/local/b1/build/1-coverage_lcov.info', folder: { secretKey: 'ARTIFACT_1_DIR', object: 'artifacts/30d/local/b1/build/1-coverage_lcov.info.tar.gz' } },
  ],
  manifest: { secretKey: 'ARTIFACT_MANIFEST' },
};

function pod(cache: PodCachePlan) {
  return stepPodManifest({ buildId: 'b1', step, namespace: 'ci', workspace: { ephemeral: true }, cache });
}

describe('a step pod that keeps artifacts', () => {
  it("has the save sidecar and no restore container when it has no cache, reading every upload URL from the Secret's volume", () => {
    const manifest = pod({ image: DEFAULT_CACHE_IMAGE, secret: 's-cache', entries: [], artifacts });
    expect(() => new Pod(manifest as ConstructorParameters<typeof Pod>[0]).validate()).not.toThrow();
    const init = manifest.spec?.initContainers ?? [];
    expect(init.map((c) => c.name)).toEqual([CacheContainers.save]);
    expect(manifest.spec?.volumes).toContainEqual({ name: CACHE_URLS.volume, secret: { secretName: 's-cache' } });
    expect(init[0]?.volumeMounts).toContainEqual({ name: CACHE_URLS.volume, mountPath: CACHE_URLS.mountPath, readOnly: true });
    const script = init[0]?.command?.[2] ?? '';
    expect(script).toContain("artifact_keep_one 'dist/' '\"dist/\"' '' '' 'ARTIFACT_0_DIR'");
    expect(script).toContain("'ARTIFACT_1' '\"artifacts/30d/local/b1/build/1-coverage_lcov.info\"' 'ARTIFACT_1_DIR'");
    expect(script).toContain(`"$$(cache_url 'ARTIFACT_MANIFEST')"`);
  });

  it.each([
    ['with artifacts: it hands over however the commands end', { artifacts }, true],
    ['with a cache save only: it hands over after success only', { entries: [{ key: 'k', paths: ['x'], restore: [], save: { secretKey: 'SAVE_0' } }] }, false],
  ])('the step script %s', (_what, more, trapped) => {
    const manifest = pod({ image: DEFAULT_CACHE_IMAGE, secret: 's-cache', entries: [], ...more });
    const script = manifest.spec?.containers.find((c) => c.name === STEP_CONTAINER)?.command?.[2] ?? '';
    expect(script.includes("trap 'step_runner_end \"$$?\"' EXIT")).toBe(trapped);
    expect(script.includes('/ended"')).toBe(trapped);
  });
});
