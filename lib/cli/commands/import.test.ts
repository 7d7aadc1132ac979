/** `step-runner import` through `main`, as a person calls it: what lands on stdout, stderr and disk. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../main.js';
import { parsePipeline } from '../../pipeline/index.js';

const KLEUR = fileURLToPath(new URL('../../../test/fixtures/ci-import/lukeed-kleur-ci.yml', import.meta.url));

async function importCommand(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['import', ...argv], { out: (line) => out.push(line), err: (line) => err.push(line), stopSignal: new Promise(() => {}) });
  return { code, out: out.join('\n'), err };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'step-runner-import-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('step-runner import', () => {
  it('prints the pipeline on stdout and each part it could not convert on stderr, with its line', async () => {
    const { code, out, err } = await importCommand(KLEUR);
    expect(code).toBe(0);
    expect(parsePipeline(out, 'out.yml').steps.map((step) => step.name)).toEqual(['test-nodejs-10', 'test-nodejs-12', 'test-nodejs-14']);
    expect(err).toEqual([
      expect.stringMatching(new RegExp(`^${KLEUR.replace(/[.]/g, '\\.')} line 30: not converted: if: matrix\\.nodejs >= 14`)),
      expect.stringMatching(/ line 31: not converted: run: c8 report/),
      'step-runner import: printed: 1 step from a GitHub Actions workflow; 2 parts not converted (listed above, and marked "not converted" in the file)',
    ]);
  });

  it('writes -o PATH instead, refuses to replace it without --force, and replaces it with', async () => {
    const target = path.join(dir, '.step-runner.yml');
    const first = await importCommand(KLEUR, '-o', target);
    expect(first.code).toBe(0);
    expect(first.out).toBe('');
    expect(first.err.at(-1)).toBe(`step-runner import: wrote ${target}: 1 step from a GitHub Actions workflow; 2 parts not converted (listed above, and marked "not converted" in the file)`);
    const written = await readFile(target, 'utf8');
    expect(written).toContain('# not converted (line 30): if: matrix.nodejs >= 14');
    expect(() => parsePipeline(written, target)).not.toThrow();

    await writeFile(target, 'mine\n');
    const refused = await importCommand(KLEUR, '-o', target);
    expect(refused).toEqual({ code: 2, out: '', err: [`step-runner import: ${target} exists: give --force to replace it, or another path`, 'Usage: step-runner import FILE [-o PATH] [--force]'] });
    expect(await readFile(target, 'utf8')).toBe('mine\n');
    expect((await importCommand(KLEUR, '-o', target, '--force')).code).toBe(0);
    expect(await readFile(target, 'utf8')).toBe(written);
  });

  it('exits 2 naming a file that is missing or is no CI file', async () => {
    const missing = path.join(dir, 'nothing.yml');
    expect(await importCommand(missing)).toEqual({ code: 2, out: '', err: [`step-runner import: ${missing}: the file does not exist`] });
    const notCi = path.join(dir, 'notes.yml');
    await writeFile(notCi, 'title: notes\nitems: [a, b]\n');
    expect(await importCommand(notCi)).toEqual({ code: 2, out: '', err: [`step-runner import: ${notCi}: no job to convert in this GitLab CI file`] });
    expect((await importCommand()).code).toBe(2);
  });
});
