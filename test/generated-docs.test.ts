/**
 * The generated parts of docs/ (the pipeline key table, the CLI reference) are what
 * `npm run docs` writes from the code now: a schema key or a command flag changed without
 * regenerating fails here, naming the page.
 */
import { readFileSync } from 'node:fs';
import { generatedBlocks, ROOT, withBlock } from '../scripts/generate-docs.js';

const blocks = generatedBlocks();

test.each(['docs/pipeline.md', 'docs/contracts.md', 'docs/cli.md', 'docs/metrics.md'])('%s holds what npm run docs writes', async (file) => {
  const committed = readFileSync(`${ROOT}${file}`, 'utf8');
  const own = (await blocks).filter((block) => block.file === file);
  expect(own.length).toBeGreaterThan(0);
  const current = own.reduce(withBlock, committed);
  if (current !== committed) throw new Error(`${file} is not what the code says: run npm run docs`);
});

test("the run command's usage names every option it parses", async () => {
  const reference = readFileSync(`${ROOT}docs/cli.md`, 'utf8');
  for (const flag of ['--cache-image', '--default-branch', '--clone-image', '--secret-file']) expect(reference).toContain(flag);
});
