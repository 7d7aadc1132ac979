/**
 * docs/pipeline.md's key table lists every key the schema accepts, and none it does not: the table
 * is generated (scripts/generate-docs.ts, from the schema's keys and lib/pipeline/key-docs.ts), and
 * a key added to the schema without its description fails here as it fails `npm run docs`.
 */
import { readFileSync } from 'node:fs';
import { schemaKeyPaths } from '../scripts/generate-docs.js';

function documentedKeyPaths(): string[] {
  const page = readFileSync(new URL('../docs/pipeline.md', import.meta.url), 'utf8');
  const table = page.split('<!-- generated: pipeline-keys (npm run docs) -->')[1]?.split('<!-- end generated: pipeline-keys -->')[0] ?? '';
  return [...table.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]!);
}

test('every pipeline key the schema accepts has its row in the docs/pipeline.md table', () => {
  const documented = documentedKeyPaths();
  expect(schemaKeyPaths().filter((key) => !documented.includes(key))).toEqual([]);
});

test('the docs/pipeline.md table lists no key the schema refuses, and each key once', () => {
  const documented = documentedKeyPaths();
  const known = schemaKeyPaths();
  expect(documented.filter((key) => !known.includes(key))).toEqual([]);
  expect(new Set(documented).size).toBe(documented.length);
});
