/**
 * What runs where, as the README and docs/local.md say it: the Node.js this machine needs (package.json's engines)
 * and the Lambda runtime the functions are deployed on (serverless.yml), so the two statements
 * cannot drift from the files that decide them.
 */
import { readFileSync } from 'node:fs';

const read = (file: string) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');

test('docs/local.md names the Lambda runtime serverless.yml deploys on', () => {
  const runtime = /^\s+runtime:\s*(nodejs\d+\.x)\s*$/m.exec(read('serverless.yml'))?.[1];
  expect(runtime).toBeDefined();
  expect(read('docs/local.md')).toContain(`the deployed\nfunctions run on Lambda's \`${runtime}\``);
});

test("the README's local Node.js is package.json's engines minimum", () => {
  const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
  const [, major, minor] = /^>=(\d+)\.(\d+)\.\d+$/.exec(engines) ?? [];
  expect(major).toBeDefined();
  expect(read('README.md')).toContain(`Needs Node.js ${major} (${major}.${minor} or later`);
});
