/**
 * Every command answers --help (and `help <command>`) with each of its options explained, and a
 * usage mistake with exit 2 and its usage on stderr. In-process: nothing here starts anything.
 */
import { readFileSync } from 'node:fs';
import { main } from '../lib/cli/main.js';
import { capturedIO } from './fixtures/captured-io.js';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = capturedIO();
  const code = await main(args, io);
  return { code, out: io.outLines.join('\n'), err: io.errLines.join('\n') };
}

/** The options a usage line names, e.g. `--source` from `[--source DIR]`. */
function optionsOf(usage: string): string[] {
  return [...new Set([...usage.matchAll(/\[(--[a-z-]+)/g)].map((m) => m[1]!))];
}

describe.each(['run', 'serve', 'cluster'])('step-runner %s', (command) => {
  it.each([[[command, '--help']], [[command, '-h']], [['help', command]]])('%j prints its help on stdout, exit 0', async (args) => {
    const { code, out, err } = await cli(args);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toMatch(new RegExp(`^Usage: step-runner ${command} `));
  });

  it('explains every option of its usage line, one line each', async () => {
    const { out } = await cli([command, '--help']);
    const [usage, ...body] = out.split('\n');
    const options = optionsOf(usage!);
    expect(options.length).toBeGreaterThan(2);
    const explained = body.filter((line) => /^ {2}(-h, )?--[a-z-]+/.test(line)).map((line) => line.trim().replace(/^-h, /, '').split(/\s/)[0]);
    expect(options.filter((option) => !explained.includes(option))).toEqual([]);
  });
});

describe.each(['list', 'validate'])('step-runner %s', (command) => {
  it.each([[[command, '--help']], [['help', command]]])('%j prints its help on stdout, exit 0, every option explained', async (args) => {
    const { code, out, err } = await cli(args);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const [usage, ...body] = out.split('\n');
    expect(usage).toMatch(new RegExp(`^Usage: step-runner ${command} \\[FILE\\] `));
    const explained = body.filter((line) => /^ {2}--[a-z-]+/.test(line)).map((line) => line.trim().split(/\s/)[0]);
    expect(optionsOf(usage!).filter((option) => !explained.includes(option))).toEqual([]);
  });

  it('exits 2 on an unknown option, with its usage on stderr', async () => {
    const { code, out, err } = await cli([command, 'p.yml', '--bogus']);
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toMatch(new RegExp(`Unknown option '--bogus'[\\s\\S]*Usage: step-runner ${command} `));
  });
});

test('the top-level help lists list and validate', async () => {
  const { out } = await cli(['--help']);
  expect(out).toMatch(/\n {2}list {2,}\S[\s\S]*\n {2}validate {2,}\S/);
});

// `run` with no file looks for the work tree's default one (git: not a unit test), in
// test/run-from-repository.integration.test.ts.
test('run with an unknown option exits 2 and points at --help', async () => {
  const { code, err } = await cli(['run', 'p.yml', '--bogus']);
  expect(code).toBe(2);
  expect(err).toMatch(/Usage: step-runner run \[pipeline\.yml\][\s\S]*step-runner run --help/);
});

test.each([
  [['bogus'], /^step-runner: unknown command "bogus"\nUsage: step-runner <command>[\s\S]*\n {2}run [\s\S]*\n {2}serve [\s\S]*\n {2}cluster /],
  [['cluster', '--bogus'], /Unknown option '--bogus'[\s\S]*Usage: step-runner cluster/],
  [['cluster', '--port', 'many'], /--port must be a port number, got "many"/],
  [['cluster', '--autoscale-after', 'soon'], /--autoscale-after must be a duration such as 5s, 500ms or 2m, got "soon"/],
])('step-runner %j exits 2 with its usage on stderr, nothing on stdout', async (args, message) => {
  const { code, out, err } = await cli(args);
  expect({ code, out }).toEqual({ code: 2, out: '' });
  expect(err).toMatch(message);
});

test('the top-level help says how to get a command\'s help', async () => {
  const { code, out } = await cli(['--help']);
  expect(code).toBe(0);
  expect(out).toContain('step-runner <command> --help');
});

test.each([['--version'], ['-v']])("step-runner %s prints package.json's version alone, exit 0", async (flag) => {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  expect(await cli([flag])).toEqual({ code: 0, out: version, err: '' });
});
