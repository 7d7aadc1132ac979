/**
 * A build step's inputs key: what changes it (everything that decides the image) and what does not
 * (where the image goes, how a map was written), the tag that records it, and the steps never skipped.
 */
import { buildInputsKey, inputsTag, neverSkipped, type BuildInputs } from './build-inputs.js';
import type { StepBuild } from './types.js';

const BASE: BuildInputs = {
  contextTree: '3be22be77da4887e869c981806d8452f034dd014',
  dockerfile: 'FROM alpine:3.20\nCOPY . /app\n',
  bases: [`docker.io/library/alpine:3.20@sha256:${'1'.repeat(64)}`],
  target: 'runtime',
  buildArgs: { NODE_VERSION: '22', DEBUG: 'false' },
  labels: { 'org.opencontainers.image.revision': 'aaaaaaaa', 'org.opencontainers.image.source': 'https://github.com/org/app' },
  builderImage: 'quay.io/buildah/stable:v1.42.2',
  platform: 'unpinned',
};
const key = buildInputsKey(BASE);

describe('the inputs key', () => {
  it('is a sha256 in hex, the same for the same inputs', () => {
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(buildInputsKey({ ...BASE })).toBe(key);
  });

  it.each<[string, Partial<BuildInputs>]>([
    ["another context content (its folder's tree id)", { contextTree: '599bd5d1dac146f0f67cb5802217b05d8e94d98c' }],
    ['another Dockerfile', { dockerfile: 'FROM alpine:3.21\nCOPY . /app\n' }],
    ["a base image's tag pushed again (another digest)", { bases: [`docker.io/library/alpine:3.20@sha256:${'2'.repeat(64)}`] }],
    ['a Dockerfile that differs by a newline', { dockerfile: 'FROM alpine:3.20\nCOPY . /app' }],
    ['another target', { target: 'test' }],
    ['no target (the last stage)', { target: undefined }],
    ['another build-arg value', { buildArgs: { NODE_VERSION: '20', DEBUG: 'false' } }],
    ['one build-arg more', { buildArgs: { NODE_VERSION: '22', DEBUG: 'false', EXTRA: '' } }],
    ['another commit (the OCI revision label)', { labels: { ...BASE.labels, 'org.opencontainers.image.revision': 'bbbbbbbb' } }],
    ['a label of the step more', { labels: { ...BASE.labels, team: 'web' } }],
    ['another builder image', { builderImage: 'quay.io/buildah/stable:v1.43.0' }],
    ['another platform', { platform: 'arm64' }],
    ['a build-arg value moved into a label of the same name', { buildArgs: { NODE_VERSION: '22' }, labels: { ...BASE.labels, DEBUG: 'false' } }],
  ])('changes with %s', (_, change) => {
    const changed = { ...BASE, ...change };
    if ('target' in change && change.target === undefined) delete changed.target;
    expect(buildInputsKey(changed)).not.toBe(key);
  });

  it.each<[string, Partial<BuildInputs>]>([
    ['build-args written in another order', { buildArgs: { DEBUG: 'false', NODE_VERSION: '22' } }],
    ['labels written in another order', { labels: { 'org.opencontainers.image.source': 'https://github.com/org/app', 'org.opencontainers.image.revision': 'aaaaaaaa' } }],
  ])('does not change with %s', (_, change) => {
    expect(buildInputsKey({ ...BASE, ...change })).toBe(key);
  });
});

describe("the key's tag", () => {
  it.each<[string, string[], string | undefined]>([
    ["in the first tag's repository, the key's first 40 hex digits", ['ghcr.io/org/app:1.4', 'ghcr.io/org/app:latest'], `ghcr.io/org/app:inputs-${key.slice(0, 40)}`],
    ['with a registry port', ['localhost:5000/team/app:1'], `localhost:5000/team/app:inputs-${key.slice(0, 40)}`],
    ["Docker Hub's name in full", ['app:1'], `docker.io/library/app:inputs-${key.slice(0, 40)}`],
    ['none without a tag', [], undefined],
  ])('is %s', (_, tags, expected) => {
    expect(inputsTag({ tags }, key)).toBe(expected);
  });
});

describe('a build step never skipped', () => {
  const build = (more: Partial<StepBuild> = {}): StepBuild => ({ context: '.', dockerfile: 'Dockerfile', buildArgs: {}, tags: ['ghcr.io/org/app:1'], push: true, labels: {}, ...more });
  it.each<[string, Parameters<typeof neverSkipped>[0], string | undefined]>([
    ['a build that pushes may be skipped', { secrets: [], build: build() }, undefined],
    ['two tags of one repository may be skipped', { secrets: [], build: build({ tags: ['ghcr.io/org/app:1', 'ghcr.io/org/app:latest'] }) }, undefined],
    ['push: false is never skipped', { secrets: [], build: build({ push: false, tags: [] }) }, 'it pushes nothing (push: false)'],
    ['a build with secrets is never skipped', { secrets: [{ env: 'NPM_TOKEN', secret: 'npm', key: 'token' }], build: build() }, 'it has build secrets, whose content could change the image and is never hashed'],
    ['tags in two repositories are never skipped', { secrets: [], build: build({ tags: ['ghcr.io/org/app:1', 'ghcr.io/org/mirror:1'] }) }, 'its tags name 2 repositories (a tag is copied within one repository only)'],
  ])('%s', (_, step, expected) => {
    expect(neverSkipped(step)).toBe(expected);
  });
});
