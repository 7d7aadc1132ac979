/**
 * `step-runner list` and `step-runner validate`, in-process through the CLI's `main`: neither
 * starts a cluster, a server or a process (FILE and --branch are given, so no git is asked).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../lib/cli/main.js';
import { capturedIO } from './fixtures/captured-io.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'list-validate-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function pipeline(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const SIDE_BY_SIDE = `version: 1
steps:
  - name: deps
    image: node:20-alpine
    commands: [npm ci]
  - name: test
    image: node:20-alpine
    needs: [deps]
    services:
      - name: db
        image: postgres:16-alpine
    commands: [npm test]
  - name: lint
    image: node:20-alpine
    needs: [deps]
    commands: [npm run lint]
  - name: publish
    image: alpine:3.20
    needs: [test, lint]
    when: {branch: [main]}
    commands: [echo publish]
  - name: report
    image: alpine:3.20
    when: {status: [failure]}
    commands: [echo failed]
`;

async function cli(args: string[]) {
  const io = capturedIO();
  const code = await main(args, io);
  return { code, out: io.outLines, err: io.errLines };
}

describe('step-runner list', () => {
  test('each step with its image, what it waits for, its services and what `when` decides, in columns', async () => {
    const file = pipeline('side-by-side.yml', SIDE_BY_SIDE);
    const { code, out, err } = await cli(['list', file, '--branch', 'feature/x']);
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(out).toEqual([
      `${file}: 5 steps, for branch feature/x, event local`,
      'STEP     IMAGE           NEEDS       SERVICES  WHEN',
      'deps     node:20-alpine  clone       -         runs',
      'test     node:20-alpine  deps        db        runs',
      'lint     node:20-alpine  deps        -         runs',
      'publish  alpine:3.20     test, lint  -         skipped: branch feature/x is not main',
      'report   alpine:3.20     publish     -         runs only if the build fails',
    ]);
  });

  test('--branch and --event change what `when` decides; --json gives the same as objects', async () => {
    const file = pipeline('side-by-side.yml', SIDE_BY_SIDE);
    const { code, out } = await cli(['list', file, '--branch', 'main', '--event', 'push', '--json']);
    expect(code).toBe(0);
    const listed = JSON.parse(out.join('\n')) as { branch: string; event: string; steps: { name: string; runs: string; reason: string | null; needs: string[] }[] };
    expect(listed).toMatchObject({ branch: 'main', event: 'push' });
    expect(listed.steps.map(({ name, runs, reason }) => [name, runs, reason])).toEqual([
      ['deps', 'yes', null],
      ['test', 'yes', null],
      ['lint', 'yes', null],
      ['publish', 'yes', null],
      ['report', 'after-failure', null],
    ]);
  });

  test('without needs in the file each step waits for the one above, and nothing without a checkout', async () => {
    const file = pipeline('one-by-one.yml', 'version: 1\ncheckout: false\nsteps:\n  - {name: a, image: alpine, commands: [echo], when: {event: [tag]}}\n  - {name: b, image: alpine, commands: [echo]}\n');
    const { code, out, err } = await cli(['list', file, '--branch', 'main']);
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(out.slice(2)).toEqual(['a     alpine  -      -         skipped: event local is not tag', 'b     alpine  a      -         runs']);
  });

  test('an invalid file: every problem, exit 2', async () => {
    const file = pipeline('bad.yml', 'version: 1\nsteps:\n  - name: Bad\n    image: alpine\n    commands: []\n');
    const { code, out, err } = await cli(['list', file, '--branch', 'main']);
    expect({ code, out }).toEqual({ code: 2, out: [] });
    expect(err[0]).toMatch(/^InvalidPipeline: /);
    expect(err.length).toBeGreaterThan(1);
  });
});

const MATRIX = `version: 1
checkout: false
steps:
  - name: test
    image: node:\${{ matrix.node }}-alpine
    matrix: { node: [20, 22], os: [linux] }
    commands: [npm test]
  - name: publish
    image: alpine:3.20
    commands: [echo publish]
`;

describe('a matrix, listed and validated', () => {
  test('list: one row per combination, its values beside its name, and the step below waiting for all of them', async () => {
    const file = pipeline('matrix.yml', MATRIX);
    const { code, out } = await cli(['list', file, '--branch', 'main']);
    expect(code).toBe(0);
    expect(out.slice(1).map((line) => line.split(/ {2,}/).slice(0, 4))).toEqual([
      ['STEP', 'MATRIX', 'IMAGE', 'NEEDS'],
      ['test-node-20-os-linux', 'test (node=20, os=linux)', 'node:20-alpine', '-'],
      ['test-node-22-os-linux', 'test (node=22, os=linux)', 'node:22-alpine', '-'],
      ['publish', '-', 'alpine:3.20', 'test-node-20-os-linux, test-node-22-os-linux'],
    ]);
  });

  test('validate: the steps counted with each combination, and each matrix named with its steps', async () => {
    const file = pipeline('matrix.yml', MATRIX);
    expect(await cli(['validate', file])).toEqual({ code: 0, out: [`${file}: valid, 3 steps`, '  test: a matrix of 2: test-node-20-os-linux, test-node-22-os-linux'], err: [] });
    const json = JSON.parse((await cli(['validate', file, '--json'])).out.join('\n')) as { matrices: unknown };
    expect(json.matrices).toEqual([{ step: 'test', steps: ['test-node-20-os-linux', 'test-node-22-os-linux'] }]);
  });
});

describe('step-runner validate', () => {
  test('a valid file: exit 0, and how many steps it has', async () => {
    const file = pipeline('side-by-side.yml', SIDE_BY_SIDE);
    expect(await cli(['validate', file])).toEqual({ code: 0, out: [`${file}: valid, 5 steps`], err: [] });
  });

  test('an invalid file: every problem as run prints them, exit 2', async () => {
    const text = 'version: 1\ncheckout: false\nsteps:\n  - name: Build\n    image: alpine:3.20\n    commands: [echo ok]\n    timeout: soon\n  - name: two\n    image: Alpine\n    commands: []\n';
    const file = pipeline('four.yml', text);
    const validated = await cli(['validate', file]);
    const ran = await cli(['run', file]);
    expect(validated.code).toBe(2);
    expect(validated.out).toEqual([]);
    expect(validated.err).toEqual(ran.err);
    expect(validated.err).toHaveLength(5);
  });

  test('--json: the problems as run --json lists them', async () => {
    const file = pipeline('typo.yml', 'version: 1\nsteps:\n  - name: a\n    image: alpine\n    comands: [true]\n');
    const { code, out } = await cli(['validate', file, '--json']);
    expect(code).toBe(2);
    const result = JSON.parse(out.join('\n')) as { valid: boolean; problems: { line: number; field: string }[] };
    expect(result.valid).toBe(false);
    expect(result.problems.map(({ line }) => line)).toContain(5);
  });

  test('a file that does not exist: exit 2, named', async () => {
    const { code, err } = await cli(['validate', join(dir, 'missing.yml')]);
    expect(code).toBe(2);
    expect(err.join('\n')).toContain('missing.yml: cannot read the pipeline file (ENOENT)');
  });
});
