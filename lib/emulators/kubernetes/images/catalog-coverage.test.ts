/**
 * Every image the README, docs and examples show can be pulled by the embedded cluster, so a
 * user who copies an example meets its real behaviour, not a catalog miss.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { buildCatalog, parseCatalogDocument, resolveImage } from '../image-catalog.js';

const root = new URL('../../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const catalog = buildCatalog(parseCatalogDocument(JSON.parse(read('lib/emulators/kubernetes/images/catalog.json')), 'catalog.json'));

/** The examples' own missing image: it is there to fail. */
const MEANT_TO_BE_MISSING = new Set(['alpine:3.99-does-not-exist']);

const files = ['README.md', ...readdirSync(new URL('docs/', root)).map((f) => `docs/${f}`), ...readdirSync(new URL('examples/', root)).map((f) => `examples/${f}`)];
const images = [
  ...new Set(
    files.flatMap((file) =>
      [...read(file).matchAll(/^\s*(?:-\s+)?image:\s*(.*)$/gm)]
        // A matrix's image (`node:${{ matrix.node }}-alpine`) is an image per combination, checked as the file is read.
        .filter((m) => !(m[1] ?? '').includes('${{'))
        .map((m) => /^["']?([a-z0-9][\w./:@-]*)/.exec(m[1] ?? '')?.[1] ?? ''),
    ),
  ),
].filter((image) => image !== '' && !MEANT_TO_BE_MISSING.has(image));

test('the examples name images at all (the pattern still finds them)', () => {
  expect(images).toEqual(expect.arrayContaining(['alpine:3.20', 'node:22-alpine', 'postgres:16-alpine', 'redis:7-alpine']));
});

test.each(images)('%s is in the shipped catalog', (image) => {
  expect(resolveImage(catalog, image).kind).toBe('found');
});
