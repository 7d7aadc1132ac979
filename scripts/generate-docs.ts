/**
 * `npm run docs`: writes the documentation generated from the code between its markers in docs/:
 * the pipeline key table (docs/pipeline.md) from the schema's keys and lib/pipeline/key-docs.ts,
 * the CLI reference (docs/contracts.md's command table, docs/cli.md's help texts) from the
 * commands' own usage and `--help`, and the metric table (docs/metrics.md) from the metrics the
 * functions write (lib/workflow/metric-records.ts). test/generated-docs.test.ts fails when a committed copy is
 * not what this writes. Imports kept to the few exports the blocks are made of.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { main, usage } from '../lib/cli/main.js';
import { pipelineKeyDocs } from '../lib/pipeline/key-docs.js';
import { knownKeys } from '../lib/pipeline/schema.js';
import { METRICS } from '../lib/workflow/metric-records.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One generated block: the text between `<!-- generated: NAME -->` and `<!-- end generated: NAME -->` in FILE. */
export interface GeneratedBlock {
  file: string;
  name: string;
  content: string;
}

/** Every key the schema accepts, as the table names it (see key-docs.ts). */
export function schemaKeyPaths(): string[] {
  return [
    ...knownKeys.pipeline,
    ...knownKeys.checkout.map((key) => `checkout.${key}`),
    ...knownKeys.pipelineWhen.map((key) => `when.${key}`),
    ...knownKeys.concurrency.map((key) => `concurrency.${key}`),
    ...knownKeys.input.map((key) => `inputs[].${key}`),
    ...knownKeys.step.map((key) => `steps[].${key}`),
    ...knownKeys.resources.map((key) => `steps[].resources.${key}`),
    ...knownKeys.stepSecret.map((key) => `steps[].secrets[].${key}`),
    ...knownKeys.toleration.map((key) => `steps[].tolerations[].${key}`),
    ...knownKeys.when.map((key) => `steps[].when.${key}`),
    ...knownKeys.artifacts.map((key) => `steps[].artifacts.${key}`),
    ...knownKeys.reports.map((key) => `steps[].reports.${key}`),
    ...knownKeys.retry.map((key) => `steps[].retry.${key}`),
    ...knownKeys.approval.map((key) => `steps[].approval.${key}`),
    ...knownKeys.approvers.map((key) => `steps[].approval.approvers.${key}`),
    ...knownKeys.build.map((key) => `steps[].build.${key}`),
    ...knownKeys.cache.map((key) => `cache[].${key}`),
    ...knownKeys.cacheKey.map((key) => `cache[].key.${key}`),
    ...knownKeys.service.map((key) => `services[].${key}`),
  ];
}

const cell = (text: string) => text.replaceAll('|', '\\|');

/** The key table, or an error naming each key the schema and key-docs.ts disagree on. */
export function pipelineKeyTable(): string {
  const schema = schemaKeyPaths();
  const documented = Object.keys(pipelineKeyDocs);
  const undocumented = schema.filter((key) => !documented.includes(key));
  const unknown = documented.filter((key) => !schema.includes(key));
  if (undocumented.length > 0 || unknown.length > 0) {
    throw new Error(
      [
        ...undocumented.map((key) => `the schema accepts "${key}", which lib/pipeline/key-docs.ts does not describe`),
        ...unknown.map((key) => `lib/pipeline/key-docs.ts describes "${key}", which the schema does not accept`),
      ].join('\n'),
    );
  }
  const rows = Object.entries(pipelineKeyDocs).map(([key, doc]) => `| \`${key}\` | ${cell(doc.type)} | ${cell(doc.default)} | ${cell(doc.does)} |`);
  return ['| key | type | default | what it does |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** Every metric a build's or a step's record may hold. */
export function metricTable(): string {
  const rows = Object.entries(METRICS).map(([name, metric]) => `| \`${name}\` | ${metric.of} | ${metric.unit} | ${cell(metric.what)} |`);
  return ['| metric | record | unit | what it measures |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** The commands `step-runner --help` lists, with their one-line summaries. */
export function commands(): { name: string; summary: string }[] {
  const lines = usage().split('\n');
  const listed = lines.slice(lines.indexOf('Commands:') + 1);
  return listed.flatMap((line) => {
    const match = /^ {2}(\S+)\s+(.+)$/.exec(line);
    return match ? [{ name: match[1]!, summary: match[2]! }] : [];
  });
}

/** What `step-runner help NAME` prints. */
export async function commandHelp(name: string): Promise<string> {
  const lines: string[] = [];
  const code = await main(['help', name], { out: (line) => lines.push(line), err: (line) => lines.push(line), stopSignal: new Promise(() => {}) });
  if (code !== 0) throw new Error(`step-runner help ${name} exited ${code}: ${lines.join('\n')}`);
  return lines.join('\n');
}

export async function generatedBlocks(): Promise<GeneratedBlock[]> {
  // One at a time: each help loads its command's module, and jest's ESM loader fails on dynamic imports made side by side.
  const helps: { name: string; summary: string; help: string }[] = [];
  for (const command of commands()) helps.push({ ...command, help: await commandHelp(command.name) });
  const usageLine = (help: string) => help.split('\n')[0]!.replace(/^Usage: step-runner /, '');
  const commandTable = [
    '| command | what it does |',
    '| --- | --- |',
    ...helps.map((command) => `| \`${cell(usageLine(command.help))}\` | ${cell(command.summary)} |`),
  ].join('\n');
  const helpTexts = helps.map((command) => [`### \`${command.name}\``, '', '```text', command.help, '```'].join('\n')).join('\n\n');
  return [
    { file: 'docs/pipeline.md', name: 'pipeline-keys', content: pipelineKeyTable() },
    { file: 'docs/contracts.md', name: 'cli-commands', content: commandTable },
    { file: 'docs/cli.md', name: 'cli-help', content: helpTexts },
    { file: 'docs/metrics.md', name: 'metrics', content: metricTable() },
  ];
}

/** FILE's text with the block's content in place of what its markers held; an error if they are missing. */
export function withBlock(text: string, block: GeneratedBlock): string {
  const start = `<!-- generated: ${block.name} (npm run docs) -->`;
  const end = `<!-- end generated: ${block.name} -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${block.file} has no "${start}" ... "${end}" markers`);
  return `${text.slice(0, from + start.length)}\n${block.content}\n${text.slice(to)}`;
}

async function write(): Promise<void> {
  for (const block of await generatedBlocks()) {
    const file = `${ROOT}${block.file}`;
    const before = readFileSync(file, 'utf8');
    const after = withBlock(before, block);
    if (after !== before) writeFileSync(file, after);
    console.log(`${block.file}: ${block.name} ${after === before ? 'current' : 'written'}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await write();
