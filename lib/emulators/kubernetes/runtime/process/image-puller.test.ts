/**
 * What the node says of an image its catalog lacks: that it is not in the local catalog and how
 * to add it, never that it does not exist or may be private, and words lib/kube fails at once on.
 */
import { readFileSync } from 'node:fs';
import { pullFailedCause, runtimeWords } from '../../../../kube/cause.js';
import { classifyPullMessage, isAuthPullFailure } from '../../../../kube/image-pull.js';
import { buildCatalog, parseCatalogDocument } from '../../image-catalog.js';
import { ImagePuller } from './image-puller.js';

const shipped = parseCatalogDocument(JSON.parse(readFileSync(new URL('../../images/catalog.json', import.meta.url), 'utf8')), 'catalog.json');
const puller = new ImagePuller(buildCatalog(shipped));

describe('a pull of an image the catalog lacks', () => {
  it.each([
    ['a real tag of a catalogued repository', 'node:20.18-alpine'],
    ['a real repository on Docker Hub', 'nginxinc/nginx-unprivileged:1.27'],
    ['a real repository on another known registry', 'ghcr.io/actions/actions-runner:2.320.0'],
    ['a deliberately missing tag', 'alpine:3.99-does-not-exist'],
  ])('%s (%s): not in the local image catalog, add it with --images, permanent', (_title, image) => {
    const outcome = puller.pull(image);
    if (outcome.ok) throw new Error(`${image} is in the catalog`);
    expect(outcome.error).toContain('not in the local image catalog');
    expect(outcome.error).toContain('--images FILE');
    expect(outcome.error).not.toMatch(/does not exist|private|access denied|authorization/);
    const event = `Failed to pull image "${image}": ${outcome.error}`;
    expect(classifyPullMessage(event, image)).toBe('permanent');
    expect(isAuthPullFailure(event, image)).toBe(false);
    const cause = pullFailedCause({ step: 'build', image }, { reason: 'ErrImagePull', words: runtimeWords(event) });
    expect(cause).toContain('not in the local image catalog');
    expect(cause).not.toMatch(/does not exist|private/);
  });
});
