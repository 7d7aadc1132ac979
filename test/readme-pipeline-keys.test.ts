/**
 * The README's pipeline key table lists every key the schema accepts, and none it does not: a key
 * added to lib/pipeline/schema.ts without a row fails here.
 */
import { readFileSync } from 'node:fs';
import { knownKeys } from '../lib/pipeline/schema.js';

/** Each map of the file, by where it sits, as the table writes the keys. */
function schemaKeyPaths(): string[] {
  return [
    ...knownKeys.pipeline,
    ...knownKeys.checkout.map((key) => `checkout.${key}`),
    ...knownKeys.pipelineWhen.map((key) => `when.${key}`),
    ...knownKeys.concurrency.map((key) => `concurrency.${key}`),
    ...knownKeys.step.map((key) => `steps[].${key}`),
    ...knownKeys.resources.map((key) => `steps[].resources.${key}`),
    ...knownKeys.secret.map((key) => `steps[].secrets[].${key}`),
    ...knownKeys.toleration.map((key) => `steps[].tolerations[].${key}`),
    ...knownKeys.when.map((key) => `steps[].when.${key}`),
    ...knownKeys.artifacts.map((key) => `steps[].artifacts.${key}`),
    ...knownKeys.retry.map((key) => `steps[].retry.${key}`),
    // A step's own caches (`steps[].cache`) have the pipeline's keys, documented once.
    ...knownKeys.cache.map((key) => `cache[].${key}`),
    ...knownKeys.cacheKey.map((key) => `cache[].key.${key}`),
    // A step's own services (`steps[].services`) have the same keys, documented once.
    ...knownKeys.service.map((key) => `services[].${key}`),
  ];
}

function readmeKeyPaths(): string[] {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.split(/^## The pipeline file$/m)[1]?.split(/^##+ /m)[0] ?? '';
  return [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]!);
}

test('every pipeline key the schema accepts has its row in the README table', () => {
  const documented = readmeKeyPaths();
  expect(schemaKeyPaths().filter((key) => !documented.includes(key))).toEqual([]);
});

test('the README table lists no key the schema refuses, and each key once', () => {
  const documented = readmeKeyPaths();
  const known = schemaKeyPaths();
  expect(documented.filter((key) => !known.includes(key))).toEqual([]);
  expect(new Set(documented).size).toBe(documented.length);
});
