/**
 * The examples of the README and docs/ that are meant to be run, run as written: each block marked
 * `<!-- readme-test: serve -->` is given to sh against a local server started here, as a reader
 * would paste it into a terminal beside `npm start -- serve`. Only the port (localhost:3000) and
 * the secrets (the environment variables the page names) are the test's own.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { FAST_TIMINGS } from '../lib/emulators/kubernetes/index.js';
import { startLocalServer, type LocalServer } from '../lib/local/server/local-server.js';
import { describeRequiring, type Requirement } from './fixtures/requirements.js';
import { waitFor } from './fixtures/wait-for.js';

/** The pages whose examples may be marked: the README and docs/ (the serve example is in docs/local.md). */
const PAGES = ['README.md', ...readdirSync(new URL('../docs/', import.meta.url)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const MARKER = '<!-- readme-test: serve -->';
const GITHUB_SECRET = 'readme-github-secret-8d21';
const GENERIC_SECRET = 'readme-generic-secret-4f7a';

/** The marked blocks: the fenced block right after each marker, with the line it starts on. */
function markedBlocks(page: string, markdown: string, marker: string): { where: string; language: string; code: string }[] {
  const lines = markdown.split('\n');
  const blocks: { where: string; language: string; code: string }[] = [];
  lines.forEach((text, i) => {
    if (text.trim() !== marker) return;
    let open = i + 1;
    while (lines[open]?.trim() === '') open++;
    const fence = /^```(\w*)\s*$/.exec(lines[open] ?? '');
    if (!fence) throw new Error(`${page}:${i + 1}: ${marker} is not followed by a fenced code block`);
    const close = lines.findIndex((l, at) => at > open && l.startsWith('```'));
    if (close < 0) throw new Error(`${page}:${open + 1}: the code block never ends`);
    blocks.push({ where: `${page}:${open + 1}`, language: fence[1] ?? '', code: lines.slice(open + 1, close).join('\n') });
  });
  return blocks;
}

const onPath = (program: string, args: string[]): Requirement => ({
  present: spawnSync(program, args, { stdio: 'ignore' }).status === 0,
  missing: `${program} is not on PATH`,
  remedy: `apt-get install ${program}`,
});
const programs: Requirement[] = [onPath('openssl', ['version']), onPath('curl', ['--version'])];
const allPrograms: Requirement = {
  present: programs.every((p) => p.present),
  missing: programs.filter((p) => !p.present).map((p) => p.missing).join(', ') || 'nothing',
  remedy: programs.filter((p) => !p.present).map((p) => p.remedy).join('; ') || 'nothing',
};

function runSh(code: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-e', '-c', code], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Every line of the block's output that is a JSON object: the webhook answers curl printed. */
function answers(stdout: string): Record<string, unknown>[] {
  return stdout.split('\n').flatMap((line) => {
    const text = line.trim();
    if (!text.startsWith('{')) return [];
    try {
      return [JSON.parse(text) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

const blocks = PAGES.flatMap((page) => markedBlocks(page, readFileSync(new URL(`../${page}`, import.meta.url), 'utf8'), MARKER));

describe('the README and docs/ mark the examples they run', () => {
  it('marks at least the generic webhook example, each mark on a sh block', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(1);
    expect(blocks.some((b) => b.code.includes('/webhook/generic'))).toBe(true);
    for (const block of blocks) expect(block.language).toBe('sh');
  });
});

describeRequiring("the marked examples of the README and docs/, run as written against a local server", allPrograms, () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await startLocalServer({ port: 0, secret: GITHUB_SECRET, genericSecret: GENERIC_SECRET, timings: FAST_TIMINGS, overrides: { waitMs: 20, retryMs: 20 } });
  }, 60_000);
  afterAll(() => server?.close());

  it.each(blocks.map((b) => [b.where, b] as const))('%s starts a build that succeeds', async (_where, block) => {
    const port = new URL(server.url).port;
    const code = block.code.replace(/\b(localhost|127\.0\.0\.1):3000\b/g, `127.0.0.1:${port}`);
    const result = await runSh(code, { PATH: process.env.PATH, HOME: process.env.HOME, GENERIC_WEBHOOK_SECRET: GENERIC_SECRET, GITHUB_WEBHOOK_SECRET: GITHUB_SECRET });
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
    const answered = answers(result.stdout);
    // A refusal is an answer too ({"error": ...}): each must be a started build.
    expect(answered.length).toBeGreaterThanOrEqual(1);
    for (const answer of answered) expect(answer).toEqual(expect.objectContaining({ executionName: expect.any(String) }));
    for (const answer of answered) {
      const name = answer.executionName as string;
      let status = 'RUNNING';
      await waitFor(
        async () => {
          status = ((await (await fetch(`${server.url}/executions/${name}`)).json()) as { status: string }).status;
          return status !== 'RUNNING';
        },
        { timeoutMs: 30_000, intervalMs: 100, what: `the build ${name} to end` },
      );
      expect({ name, status }).toEqual({ name, status: 'SUCCEEDED' });
    }
  }, 60_000);
});
