import { InvalidImage, InvalidPipeline } from './errors.js';
import { expandMatrix, expansionNames, MAX_MATRIX_EXPANSIONS, type MatrixInput, type MatrixValues } from './matrix.js';
import { resolveNeeds } from './needs.js';
import { parsePipeline } from './parse.js';
import { selectSteps } from './step-selection.js';

const matrix = (axes: Record<string, string[]>, lists: { include?: MatrixValues[]; exclude?: MatrixValues[] } = {}): MatrixInput => ({
  axes: Object.entries(axes),
  include: lists.include ?? [],
  exclude: lists.exclude ?? [],
});

// Each example is GitHub's own, with the result its page documents:
// https://docs.github.com/en/actions/how-tos/write-workflows/choose-what-workflows-do/run-job-variations
describe("a matrix's combinations, as GitHub Actions documents strategy.matrix", () => {
  test.each<[string, MatrixInput, MatrixValues[]]>([
    [
      'the product, the first axis varying slowest ("Adding a matrix strategy to your workflow job")',
      matrix({ version: ['10', '12', '14'], os: ['ubuntu-latest', 'windows-latest'] }),
      [
        { version: '10', os: 'ubuntu-latest' },
        { version: '10', os: 'windows-latest' },
        { version: '12', os: 'ubuntu-latest' },
        { version: '12', os: 'windows-latest' },
        { version: '14', os: 'ubuntu-latest' },
        { version: '14', os: 'windows-latest' },
      ],
    ],
    [
      'include adds to the combinations whose original values it keeps, or makes a new one ("Expanding or adding matrix configurations")',
      matrix(
        { fruit: ['apple', 'pear'], animal: ['cat', 'dog'] },
        { include: [{ color: 'green' }, { color: 'pink', animal: 'cat' }, { fruit: 'apple', shape: 'circle' }, { fruit: 'banana' }, { fruit: 'banana', animal: 'cat' }] },
      ),
      [
        { fruit: 'apple', animal: 'cat', color: 'pink', shape: 'circle' },
        { fruit: 'apple', animal: 'dog', color: 'green', shape: 'circle' },
        { fruit: 'pear', animal: 'cat', color: 'pink' },
        { fruit: 'pear', animal: 'dog', color: 'green' },
        { fruit: 'banana' },
        { fruit: 'banana', animal: 'cat' },
      ],
    ],
    [
      'include adds a variable to one combination ("Example: Expanding configurations")',
      matrix({ os: ['windows-latest', 'ubuntu-latest'], node: ['14', '16'] }, { include: [{ os: 'windows-latest', node: '16', npm: '6' }] }),
      [
        { os: 'windows-latest', node: '14' },
        { os: 'windows-latest', node: '16', npm: '6' },
        { os: 'ubuntu-latest', node: '14' },
        { os: 'ubuntu-latest', node: '16' },
      ],
    ],
    [
      'include alone: one combination per entry ("Example: Adding configurations")',
      matrix({}, { include: [{ site: 'production', datacenter: 'site-a' }, { site: 'staging', datacenter: 'site-b' }] }),
      [
        { site: 'production', datacenter: 'site-a' },
        { site: 'staging', datacenter: 'site-b' },
      ],
    ],
    [
      'exclude needs only a partial match: 12 less 1 less 2 is 9 ("Excluding matrix configurations")',
      matrix(
        { os: ['macos-latest', 'windows-latest'], version: ['12', '14', '16'], environment: ['staging', 'production'] },
        { exclude: [{ os: 'macos-latest', version: '12', environment: 'production' }, { os: 'windows-latest', version: '16' }] },
      ),
      [
        { os: 'macos-latest', version: '12', environment: 'staging' },
        { os: 'macos-latest', version: '14', environment: 'staging' },
        { os: 'macos-latest', version: '14', environment: 'production' },
        { os: 'macos-latest', version: '16', environment: 'staging' },
        { os: 'macos-latest', version: '16', environment: 'production' },
        { os: 'windows-latest', version: '12', environment: 'staging' },
        { os: 'windows-latest', version: '12', environment: 'production' },
        { os: 'windows-latest', version: '14', environment: 'staging' },
        { os: 'windows-latest', version: '14', environment: 'production' },
      ],
    ],
    [
      'exclude comes first, so include can add an excluded combination back ("All include combinations are processed after exclude")',
      matrix({ node: ['18', '20'], os: ['linux', 'mac'] }, { exclude: [{ os: 'mac' }], include: [{ node: '20', os: 'mac', experimental: 'true' }] }),
      [{ node: '18', os: 'linux' }, { node: '20', os: 'linux' }, { node: '20', os: 'mac', experimental: 'true' }],
    ],
  ])('%s', (_, given, expected) => {
    expect(expandMatrix(given)).toEqual(expected);
  });
});

describe("a combination's step name", () => {
  test.each<[string, string, MatrixValues[], string[], string[]]>([
    ['the step, then each variable and value', 'test', [{ node: '18', os: 'linux' }], [], ['test-node-18-os-linux']],
    ['lower-cased, anything but a letter or digit a dash', 'test', [{ NODE_VERSION: '18.x', os: 'Ubuntu 22.04' }], [], ['test-node-version-18-x-os-ubuntu-22-04']],
    ['two that read the same end in a hash each', 'test', [{ v: 'a.b' }, { v: 'a-b' }], [], ['test-v-a-b-cca77c0e', 'test-v-a-b-7f2b9b8e']],
    ['the name of another step ends in a hash', 'test', [{ v: '1' }], ['test-v-1'], ['test-v-1-4b6c8a5f']],
  ])('%s', (_, step, combinations, taken, expected) => {
    const names = expansionNames(step, combinations, new Set(taken));
    expect(names.map((name) => name.replace(/-[0-9a-f]{8}$/, '-HASH'))).toEqual(expected.map((name) => name.replace(/-[0-9a-f]{8}$/, '-HASH')));
    expect(new Set(names).size).toBe(names.length);
  });

  test('one too long for a DNS label is cut, and ends in a hash that keeps it apart from its siblings', () => {
    const names = expansionNames('integration', [{ os: 'ubuntu-22.04-with-a-very-long-suffix', arch: 'amd64-and-then-some' }, { os: 'ubuntu-22.04-with-a-very-long-suffix', arch: 'arm64-and-then-some' }], new Set());
    for (const name of names) expect(name).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
    expect(names[0]).not.toBe(names[1]);
    expect(expansionNames('integration', [{ os: 'ubuntu-22.04-with-a-very-long-suffix', arch: 'amd64-and-then-some' }], new Set())[0]).toBe(names[0]);
  });
});

const file = (steps: string, top = 'checkout: false\n') => `version: 1\n${top}steps:\n${steps}`;
const problemsOf = (text: string): string[] => {
  try {
    parsePipeline(text, 'ci.yml');
  } catch (error) {
    if (error instanceof InvalidPipeline || error instanceof InvalidImage) return error.problems.map((problem) => problem.message);
    throw error;
  }
  throw new Error('the file was accepted');
};

describe('a step with a matrix, as the loader reads it', () => {
  const text = file(`  - name: build
    image: alpine:3.20
    commands: [make]
  - name: test
    image: node:\${{ matrix.node }}-alpine
    commands: [npm test]
    env: { CI: "true" }
    matrix:
      node: [18, 20, 22]
      os: [linux, mac]
      exclude:
        - { node: 18, os: mac }
      include:
        - { node: 22, os: mac, experimental: true }
        - { node: 16, os: linux }
  - name: deploy
    image: alpine:3.20
    commands: [./deploy]
`);

  test('each combination is a step of its own: its values in env, its image read with them, its line the step\'s', () => {
    const pipeline = parsePipeline(text, 'ci.yml');
    const test = pipeline.steps.filter((step) => step.matrix?.of === 'test');
    expect(test.map((step) => [step.name, step.image, step.env])).toEqual([
      ['test-node-18-os-linux', 'node:18-alpine', { node: '18', os: 'linux', CI: 'true' }],
      ['test-node-20-os-linux', 'node:20-alpine', { node: '20', os: 'linux', CI: 'true' }],
      ['test-node-20-os-mac', 'node:20-alpine', { node: '20', os: 'mac', CI: 'true' }],
      ['test-node-22-os-linux', 'node:22-alpine', { node: '22', os: 'linux', CI: 'true' }],
      ['test-node-22-os-mac-experimental-true', 'node:22-alpine', { node: '22', os: 'mac', experimental: 'true', CI: 'true' }],
      ['test-node-16-os-linux', 'node:16-alpine', { node: '16', os: 'linux', CI: 'true' }],
    ]);
    expect(test.map((step) => step.line)).toEqual(Array(6).fill(7));
    expect(test.map((step) => step.imageRef?.tag)).toEqual(['18-alpine', '20-alpine', '20-alpine', '22-alpine', '22-alpine', '16-alpine']);
  });

  test('the combinations run side by side after the step above them, and the step below waits for all of them', () => {
    const pipeline = parsePipeline(text, 'ci.yml');
    const needs = resolveNeeds(pipeline.steps);
    const names = pipeline.steps.map((step) => step.name);
    const combinations = names.slice(1, 7);
    expect(needs.slice(1, 7)).toEqual(Array(6).fill(['build']));
    expect(needs[7]).toEqual(combinations);
  });

  test('needs: [test] means every combination of test; run --step takes a combination, or the step for all of them', () => {
    const pipeline = parsePipeline(
      file(`  - name: test
    image: alpine:3.20
    commands: [env]
    matrix: { v: [1, 2] }
  - name: lint
    image: alpine:3.20
    commands: [lint]
    needs: []
  - name: report
    image: alpine:3.20
    commands: [report]
    needs: [test, lint]
`),
      'ci.yml',
    );
    expect(pipeline.steps.find((step) => step.name === 'report')!.needs).toEqual(['test-v-1', 'test-v-2', 'lint']);
    expect(selectSteps(pipeline.steps, { steps: ['report'], needs: true }).steps.map((step) => step.name)).toEqual(['test-v-1', 'test-v-2', 'lint', 'report']);
    expect(selectSteps(pipeline.steps, { steps: ['test-v-2'], needs: true }).steps.map((step) => step.name)).toEqual(['test-v-2']);
    expect(selectSteps(pipeline.steps, { steps: ['test'], needs: true }).steps.map((step) => step.name)).toEqual(['test-v-1', 'test-v-2']);
  });

  test('values are text as written, as env values are', () => {
    const pipeline = parsePipeline(file('  - name: t\n    image: alpine:3.20\n    commands: [env]\n    matrix:\n      python: [3.10, 3.12]\n      debug: [true]\n      include: [{ python: 3.10, extra: 1.0 }]\n'), 'ci.yml');
    expect(pipeline.steps.map((step) => step.env)).toEqual([
      { python: '3.10', debug: 'true', extra: '1.0' },
      { python: '3.12', debug: 'true' },
    ]);
  });

  test('fail-fast: false is kept on each combination', () => {
    const pipeline = parsePipeline(file('  - name: t\n    image: alpine:3.20\n    commands: [env]\n    fail-fast: false\n    matrix: { v: [1, 2] }\n'), 'ci.yml');
    expect(pipeline.steps.map((step) => step.matrix)).toEqual([
      { of: 't', values: { v: '1' }, failFast: false },
      { of: 't', values: { v: '2' }, failFast: false },
    ]);
  });

  const step = (lines: string) => file(`  - name: t\n    image: alpine:3.20\n    commands: [env]\n${lines}`);
  const many = Array.from({ length: 17 }, (_, i) => i).join(', ');
  test.each<[string, string, string]>([
    ['an axis that is no variable name', step('    matrix: { node-version: [18] }\n'), 'ci.yml line 7: step "t": matrix.node-version: "node-version" is not a valid environment variable name'],
    ['an axis that is no list', step('    matrix: { node: 18 }\n'), 'ci.yml line 7: step "t": matrix.node: must be a list of values, not the number 18'],
    ['a value that is a map', step('    matrix: { node: [{a: 1}] }\n'), 'ci.yml line 7: step "t": matrix.node[0]: must be text (a value becomes an environment variable), not a map'],
    ['a value listed twice', step('    matrix: { node: [18, 18] }\n'), 'ci.yml line 7: step "t": matrix.node[1]: "18" is listed twice'],
    ['an exclude naming no axis', step('    matrix:\n      node: [18]\n      exclude: [{ os: mac }]\n'), 'ci.yml line 9: step "t": matrix.exclude[0].os: "os" is no axis of the matrix (node), so this would exclude nothing'],
    ['nothing left', step('    matrix:\n      node: [18]\n      exclude: [{ node: 18 }]\n'), 'ci.yml line 7: step "t": matrix: expands to no step at all: every combination is excluded'],
    ['too many', step(`    matrix: { a: [${many}], b: [${many}] }\n`), `ci.yml line 7: step "t": matrix: expands to 289 steps; at most ${MAX_MATRIX_EXPANSIONS} are allowed`],
    ['fail-fast without a matrix', step('    fail-fast: false\n'), 'ci.yml line 7: step "t": fail-fast: goes with "matrix"'],
    ['a variable also in env', step('    env: { node: "1" }\n    matrix: { node: [18] }\n'), 'ci.yml line 8: step "t": matrix: "node" is a variable of the matrix and also set in env or secrets'],
    ['an image naming no variable of the matrix', file('  - name: t\n    image: node:${{ matrix.nod }}\n    commands: [env]\n    matrix: { node: [18] }\n'), 'ci.yml line 5: step "t": image: node:${{ matrix.nod }}: the combination {"node":"18"} has no "nod"'],
    ['an image with another expression', file('  - name: t\n    image: node:${{ github.sha }}\n    commands: [env]\n    matrix: { node: [18] }\n'), 'only a matrix value, "${{ matrix.NAME }}", can be written into an image'],
    ['an image template without a matrix', file('  - name: t\n    image: node:${{ matrix.node }}\n    commands: [env]\n'), 'ci.yml line 5: step "t": image: node:${{ matrix.node }}: "${{ matrix.NAME }}" needs a "matrix" on the step'],
    ['a matrix of approvals', file('  - name: t\n    approval: {message: ship?}\n    matrix: { env: [a, b] }\n'), 'ci.yml line 6: step "t": matrix: an approval step waits for a person and runs no pod, so it takes no matrix'],
  ])('refused with its line: %s', (_, text, message) => {
    expect(problemsOf(text)[0]).toContain(message);
  });

  test('an image a combination makes wrong is an image problem, naming the image it made', () => {
    const problems = problemsOf(file('  - name: t\n    image: node:${{ matrix.tag }}\n    commands: [env]\n    matrix: { tag: ["18", "bad tag"] }\n'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^ci\.yml line 5: step "t": .*node:bad tag/);
  });

  test("a matrix whose steps would not fit in the build's state data is refused, saying so", () => {
    const values = Array.from({ length: 16 }, (_, i) => i).join(', ');
    const big = file(`  - name: t\n    image: alpine:3.20\n    timeout: 1m\n    commands: [${JSON.stringify('x'.repeat(200))}]\n    matrix: { a: [${values}], b: [${values}] }\n`);
    expect(problemsOf(big)[0]).toMatch(/^ci\.yml: the steps come to \d+ KiB once their aliases are expanded \(256 of them combinations of a matrix\); at most 128 KiB fit/);
  });

  test("the time budget counts a matrix's combinations a round of max-parallel at a time", () => {
    const matrixOf = (n: number, maxParallel: string) => file(`  - name: t\n    image: alpine:3.20\n    commands: [env]\n    timeout: 5h\n    matrix: { v: [${Array.from({ length: n }, (_, i) => i).join(', ')}] }\n`, `checkout: false\n${maxParallel}`);
    expect(parsePipeline(matrixOf(40, ''), 'ci.yml').steps).toHaveLength(40);
    expect(problemsOf(matrixOf(41, ''))[0]).toContain("the steps' timeouts add up to 25h");
    expect(problemsOf(matrixOf(5, 'max-parallel: 1\n'))[0]).toContain("the steps' timeouts add up to 25h");
  });
});
