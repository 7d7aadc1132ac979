import { readFileSync } from 'node:fs';
import { buildCatalog, parseCatalogDocument, resolveImage, type CatalogEntry } from './image-catalog.js';

const shipped = parseCatalogDocument(JSON.parse(readFileSync(new URL('./images/catalog.json', import.meta.url), 'utf8')), 'catalog.json');
const digest = `sha256:${'ab'.repeat(32)}`;
const catalog = buildCatalog([...shipped, { image: 'ghcr.io/acme/tool:2', digest }]);

test.each([
  // image as written                         resolution           containerd's full name
  ['alpine', 'found', 'docker.io/library/alpine:latest'],
  ['alpine:3.20', 'found', 'docker.io/library/alpine:3.20'],
  ['library/alpine:3.21', 'found', 'docker.io/library/alpine:3.21'],
  ['docker.io/library/alpine:3.22', 'found', 'docker.io/library/alpine:3.22'],
  ['index.docker.io/library/alpine:3.23', 'found', 'docker.io/library/alpine:3.23'],
  ['busybox:1.37-musl', 'found', 'docker.io/library/busybox:1.37-musl'],
  ['debian:bookworm-slim', 'found', 'docker.io/library/debian:bookworm-slim'],
  ['ubuntu:noble', 'found', 'docker.io/library/ubuntu:noble'],
  ['node:22-alpine', 'found', 'docker.io/library/node:22-alpine'],
  ['python:3.13-slim', 'found', 'docker.io/library/python:3.13-slim'],
  ['golang:1.25-alpine', 'found', 'docker.io/library/golang:1.25-alpine'],
  [`ghcr.io/acme/tool@${digest}`, 'found', `ghcr.io/acme/tool@${digest}`],
  [`ghcr.io/acme/tool:whatever@${digest}`, 'found', `ghcr.io/acme/tool@${digest}`],
  ['alpine:3.99-nope', 'unknown-tag', 'docker.io/library/alpine:3.99-nope'],
  [`alpine@sha256:${'0'.repeat(64)}`, 'unknown-tag', `docker.io/library/alpine@sha256:${'0'.repeat(64)}`],
  ['nosuchimage-xyz', 'unknown-repository', 'docker.io/library/nosuchimage-xyz:latest'],
  ['ghcr.io/acme/other:1', 'unknown-repository', 'ghcr.io/acme/other:1'],
  ['registry.typo.example/acme/tool:1', 'unknown-registry', 'registry.typo.example/acme/tool:1'],
])('%s -> %s (%s)', (image, kind, full) => {
  const resolution = resolveImage(catalog, image);
  expect(resolution.kind).toBe(kind);
  if (resolution.kind !== 'invalid') expect(resolution.reference.full).toBe(full);
});

test.each([
  ['Alpine:3.20', 'invalid reference format: repository name must be lowercase'],
  ['alpine:', 'invalid reference format'],
  ['alpine 3', 'invalid reference format'],
])('%s is not a reference: %s', (image, message) => {
  expect(resolveImage(catalog, image)).toEqual({ kind: 'invalid', message });
});

test('entries from user files override the shipped ones and add new images', () => {
  const extra: CatalogEntry[] = [{ image: 'alpine:3.20', private: true }, { image: 'example.com/ci/builder:7' }];
  const extended = buildCatalog([...shipped, ...parseCatalogDocument({ images: extra }, 'extra.json')]);
  const alpine = resolveImage(extended, 'alpine:3.20');
  expect(alpine.kind === 'found' && alpine.entry.private).toBe(true);
  expect(resolveImage(extended, 'example.com/ci/builder:7').kind).toBe('found');
});

test('a malformed catalog file is rejected with its name and the place of the problem', () => {
  expect(() => parseCatalogDocument({ images: [{ image: 'alpine', size: 'big' }] }, 'mine.json')).toThrow(/^mine\.json: invalid image catalog at images\.0\.size: /);
  expect(() => parseCatalogDocument({ images: [{ image: 'Bad Ref' }] }, 'mine.json')).toThrow('mine.json: invalid image reference "Bad Ref"');
});

test('the shipped catalog has the CI images people use, each with a size', () => {
  for (const image of ['alpine:3.20', 'alpine:latest', 'busybox:uclibc', 'debian:trixie', 'ubuntu:26.04', 'ubuntu:jammy', 'node:20-slim', 'node:24-bookworm', 'python:3.11-alpine', 'python:3.14', 'golang:1.24']) {
    const resolution = resolveImage(catalog, image);
    expect(resolution.kind === 'found' && (resolution.entry.size ?? 0) > 0 ? image : `${image}: ${resolution.kind}`).toBe(image);
  }
});
