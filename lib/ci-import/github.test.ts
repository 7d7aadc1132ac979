/** How a workflow's parts map, one rule per row, on small workflows (docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax). */
import { parsePipeline, type Step } from '../pipeline/index.js';
import { conditionOf, shellTestOf, substitute } from './github-expressions.js';
import { cacheKeyOf, versionTag } from './github-actions.js';
import { importCi } from './index.js';

/** The workflow's steps as the pipeline reads them, and the parts not converted as `line: what`. */
function convert(yaml: string): { steps: Step[]; checkout: unknown; when: unknown; unconverted: string[]; text: string } {
  const result = importCi(yaml, 'workflow.yml');
  expect(result.problems).toEqual([]);
  const pipeline = parsePipeline(result.yaml, 'out.yml');
  return { steps: pipeline.steps, checkout: pipeline.checkout, when: pipeline.when, unconverted: result.unconverted.map((part) => `${part.line}: ${part.what}`), text: result.yaml };
}

const job = (steps: string, extra = '') => `on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n${extra}    steps:\n${steps}`;

describe('a workflow\'s triggers as every step\'s when', () => {
  test.each([
    ['[push, pull_request]', undefined, undefined],
    ['push', { event: ['push', 'tag'] }, undefined],
    ['{push: {branches: [main]}, pull_request: {branches: [main]}}', { branch: ['main'], event: ['push', 'pull_request'] }, undefined],
    ['{push: {branches: [main, "release/*"]}}', { branch: ['main', 'release/*'], event: ['push'] }, undefined],
    ['{push: {tags: ["*"]}}', { event: ['tag'] }, undefined],
    ['pull_request', { event: ['pull_request'] }, undefined],
    ['{pull_request: {paths: ["src/**"]}}', { event: ['pull_request'] }, { paths: ['src/**'] }],
  ])('on: %s', (on, when, files) => {
    const converted = convert(`on: ${on}\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n`);
    expect(converted.steps[0]!.when).toEqual(when);
    expect(converted.when).toEqual(files);
  });

  test.each([
    ['{push: {branches: [main]}, pull_request: {}}', '2: on.push.branches ["main"]'],
    ['{schedule: [{cron: "0 0 * * *"}]}', '2: on: schedule'],
    ['{push: {branches-ignore: [wip]}}', '2: on.push.branches-ignore'],
    ['{pull_request: {types: [labeled]}}', '2: on.pull_request.types ["labeled"]'],
  ])('on: %s cannot be said, and is listed', (on, listed) => {
    const yaml = `on:\n  ${on.slice(1, -1).replace(/, (?=[a-z_-]+:)/g, '\n  ')}\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n`;
    expect(convert(yaml).unconverted).toContain(listed);
  });
});

describe('a job as a step', () => {
  it('runs its run: steps as commands in one shell, in the image setup-node names', () => {
    const { steps } = convert(job('      - uses: actions/checkout@v4\n      - uses: actions/setup-node@v4\n        with: {node-version: 20.x}\n      - run: npm ci\n      - run: |\n          npm test\n          npm run lint\n'));
    expect(steps[0]).toEqual(expect.objectContaining({ name: 'build', image: 'node:20', commands: ['npm ci', 'npm test\nnpm run lint'] }));
  });

  it('takes container: over setup actions and the runner, and its services with their container ports', () => {
    const services = '    services:\n      postgres:\n        image: postgres:16\n        env: {POSTGRES_USER: ci, POSTGRES_PASSWORD: "${{ secrets.PG }}"}\n        ports: ["5432:5432"]\n    container:\n      image: node:22-bookworm\n      env: {NODE_ENV: test}\n';
    const { steps } = convert(job('      - run: npm test\n', services));
    expect(steps[0]).toEqual(expect.objectContaining({ image: 'node:22-bookworm', env: { NODE_ENV: 'test' } }));
    expect(steps[0]!.services).toEqual([
      expect.objectContaining({ name: 'postgres', image: 'postgres:16', env: { POSTGRES_USER: 'ci' }, ports: [5432], secrets: [{ env: 'POSTGRES_PASSWORD', secret: 'imported-secrets', key: 'PG' }] }),
    ]);
  });

  it('gives jobs without needs `needs: []`, so they start together as on GitHub, and keeps the others\'', () => {
    const yaml = 'on: push\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps: [{run: make lint}]\n  test:\n    runs-on: ubuntu-latest\n    steps: [{run: make test}]\n  deploy:\n    needs: [lint, test]\n    runs-on: ubuntu-latest\n    steps: [{run: make deploy}]\n';
    expect(convert(yaml).steps.map((step) => [step.name, step.needs])).toEqual([
      ['lint', []],
      ['test', []],
      ['deploy', ['lint', 'test']],
    ]);
  });

  it('starts a job that needs a reusable workflow\'s job without it, and says so', () => {
    const yaml = 'on: push\njobs:\n  shared:\n    uses: org/repo/.github/workflows/build.yml@v1\n  test:\n    needs: [shared]\n    runs-on: ubuntu-latest\n    steps: [{run: make test}]\n';
    const { steps, unconverted, text } = convert(yaml);
    expect(steps.map((step) => [step.name, step.needs])).toEqual([['test', []]]);
    expect(unconverted).toEqual(['4: jobs.shared: uses: org/repo/.github/workflows/build.yml@v1']);
    expect(text).toContain('# needs a job that is not converted: started without it');
  });

  it('keeps the job\'s own event when it and the triggers have none in common', () => {
    const { steps } = convert("on: pull_request\njobs:\n  a:\n    if: github.event_name == 'push'\n    runs-on: ubuntu-latest\n    steps: [{run: make}]\n");
    expect(steps[0]!.when).toEqual({ event: ['push'] });
  });

  it('maps a job\'s if: on the ref and event to when, and failure() to status', () => {
    const yaml = "on: push\njobs:\n  deploy:\n    if: github.ref == 'refs/heads/main' && github.event_name == 'push'\n    runs-on: ubuntu-latest\n    steps: [{run: make deploy}]\n  report:\n    if: failure()\n    runs-on: ubuntu-latest\n    steps: [{run: make report}]\n";
    const { steps } = convert(yaml);
    expect(steps[0]!.when).toEqual({ branch: ['main'], event: ['push'] });
    expect(steps[1]!.when).toEqual({ event: ['push', 'tag'], status: ['failure'] });
  });

  it('tests a run: step\'s if: on the branch in the shell, and leaves out (and lists) one it cannot test', () => {
    const { steps, unconverted, text } = convert(job("      - run: make publish\n        if: github.ref == 'refs/heads/main'\n      - run: make notify\n        if: contains(github.event.head_commit.message, 'notify')\n"));
    expect(steps[0]!.commands).toEqual(['if [ "$CI_BRANCH" = "main" ]; then\nmake publish\nfi']);
    expect(unconverted).toEqual(["9: if: contains(github.event.head_commit.message, 'notify') on run: make notify"]);
    expect(text).toContain('#     make notify');
  });

  it('reads secrets from one Secret, env from the workflow and the job, and exports a value that reads a variable', () => {
    const yaml = 'on: push\nenv: {CI_LEVEL: full}\njobs:\n  build:\n    runs-on: ubuntu-latest\n    env:\n      TOKEN: ${{ secrets.NPM_TOKEN }}\n      SHA: ${{ github.sha }}\n    steps: [{run: "echo ${{ secrets.OTHER }}"}]\n';
    const [step] = convert(yaml).steps;
    expect(step!.env).toEqual({ CI_LEVEL: 'full' });
    expect(step!.secrets).toEqual([
      { env: 'TOKEN', secret: 'imported-secrets', key: 'NPM_TOKEN' },
      { env: 'OTHER', secret: 'imported-secrets', key: 'OTHER' },
    ]);
    expect(step!.commands).toEqual(['export SHA="$CI_COMMIT_SHA"', 'echo $OTHER']);
  });

  it('makes actions/cache a cache and upload-artifact artifacts; lists any other action', () => {
    const steps = [
      '      - uses: actions/cache@v4',
      '        with:',
      '          path: node_modules',
      "          key: ${{ runner.os }}-modules-${{ hashFiles('package-lock.json') }}",
      '          restore-keys: ${{ runner.os }}-modules-',
      '      - run: npm ci',
      '      - uses: actions/upload-artifact@v4',
      '        with: {path: dist/, retention-days: 5}',
      '      - uses: codecov/codecov-action@v4',
      '',
    ].join('\n');
    const { steps: [step], unconverted } = convert(job(steps));
    expect(step!.cache).toEqual([expect.objectContaining({ key: { files: ['package-lock.json'], prefix: 'modules' }, paths: ['node_modules'], fallbackKeys: ['modules'] })]);
    expect(step!.artifacts).toEqual(expect.objectContaining({ paths: ['dist/'], expireInDays: 5 }));
    expect(unconverted).toEqual(['14: uses: codecov/codecov-action']);
  });

  it('lists an input of a converted action that nothing here reads', () => {
    const { steps, unconverted } = convert(job('      - uses: actions/setup-node@v4\n        with: {node-version: 20, registry-url: "https://registry.npmjs.org"}\n      - run: npm publish\n'));
    expect(steps[0]!.image).toBe('node:20');
    expect(unconverted).toEqual(['6: actions/setup-node with registry-url']);
  });

  it('checks out nothing when no job uses actions/checkout, and the whole history for fetch-depth: 0', () => {
    expect(convert(job('      - run: echo hi\n')).checkout).toBe(false);
    expect(convert(job('      - uses: actions/checkout@v4\n        with: {fetch-depth: 0}\n      - run: git log\n')).checkout).toEqual({ depth: 0, submodules: false });
  });

  it('writes a matrix as the step\'s matrix: a step per combination, each value its variable, renamed where GitHub\'s name is none', () => {
    const strategy = '    strategy:\n      fail-fast: false\n      matrix:\n        node-version: [18.x, 20.x]\n        os: [linux, arm]\n        exclude: [{node-version: 18.x, os: arm}]\n        include: [{node-version: 22.x, os: linux, experimental: true}]\n';
    const { steps, unconverted, text } = convert(job('      - uses: actions/setup-node@v4\n        with: {node-version: "${{ matrix.node-version }}"}\n      - run: echo ${{ matrix.node-version }}-${{ matrix.os }}\n', strategy));
    expect(steps.map((step) => [step.name, step.image, step.env, step.matrix?.failFast])).toEqual([
      ['build-node-version-18-os-linux', 'node:18', { node_version: '18', os: 'linux' }, false],
      ['build-node-version-20-os-linux', 'node:20', { node_version: '20', os: 'linux' }, false],
      ['build-node-version-20-os-arm', 'node:20', { node_version: '20', os: 'arm' }, false],
      ['build-node-version-22-os-linux-experimental-true', 'node:22', { node_version: '22', os: 'linux', experimental: 'true' }, false],
    ]);
    expect(steps[0]!.commands).toEqual(['echo ${node_version}-${os}']);
    expect(unconverted).toEqual([]);
    expect(text).toContain('# matrix node-version is node_version');
  });

  it('writes a matrix value in a container\'s image as the image\'s template', () => {
    const { steps } = convert(job('      - run: python --version\n', '    container: python:${{ matrix.py }}-slim\n    strategy:\n      matrix:\n        py: ["3.11", "3.12"]\n'));
    expect(steps.map((step) => step.image)).toEqual(['python:3.11-slim', 'python:3.12-slim']);
  });

  test.each([
    ['a matrix of one combination: its values in place', '      fail-fast: false\n      matrix: {node: [18]}\n', ['node:18'], []],
    ['max-parallel', '      max-parallel: 2\n      matrix: {node: [18, 20]}\n', ['node:18', 'node:20'], ['6: strategy.max-parallel: 2']],
    ['a matrix an expression makes', '      matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}\n', ['node:lts'], ['6: strategy.matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}', '8: actions/setup-node node-version: ${{ matrix.node }}']],
    ['a variable the job\'s env sets too: the matrix\'s', '      matrix: {node: [18, 20]}\n    env: {node: "16"}\n', ['node:18', 'node:20'], ['7: env node']],
    ['a value that is a map: the first combination', '      matrix:\n        node: [{v: 18}, {v: 20}]\n', ['node:lts'], ['6: strategy.matrix node [{"v":18}, {"v":20}]', '9: actions/setup-node node-version: {"v":18}']],
  ])('%s', (_, strategy, images, listed) => {
    const { steps, unconverted } = convert(job('      - uses: actions/setup-node@v4\n        with: {node-version: "${{ matrix.node }}"}\n      - run: echo hi\n', `    strategy:\n${strategy}`));
    expect(steps.map((step) => step.image)).toEqual(images);
    expect(unconverted).toEqual(listed);
  });

  it('keeps a variable that is a secret in one run: step and a value in another as the secret, and lists the value', () => {
    const yaml = 'on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    timeout-minutes: ${{ inputs.minutes }}\n    steps:\n      - run: make a\n        env: {TOKEN: plain}\n      - run: make b\n        env: {TOKEN: "${{ secrets.T }}"}\n';
    const { steps, unconverted } = convert(yaml);
    expect(steps[0]!.env).toEqual({});
    expect(steps[0]!.secrets).toEqual([{ env: 'TOKEN', secret: 'imported-secrets', key: 'T' }]);
    expect(unconverted).toEqual(['5: timeout-minutes: ${{ inputs.minutes }}', '8: env TOKEN: plain']);
  });

  it('lists a windows runner, and writes a Linux image', () => {
    const { steps, unconverted } = convert('on: push\njobs:\n  win:\n    runs-on: windows-latest\n    steps: [{run: dir}]\n');
    expect(steps[0]!.image).toBe('buildpack-deps:noble');
    expect(unconverted).toEqual(['4: runs-on: windows-latest']);
  });
});

describe('expressions', () => {
  test.each([
    ["github.ref == 'refs/heads/main'", { branch: ['main'] }],
    ["'refs/heads/main' == github.ref", { branch: ['main'] }],
    ["${{ github.event_name == 'pull_request' }}", { event: ['pull_request'] }],
    ["startsWith(github.ref, 'refs/tags/')", { event: ['tag'] }],
    ["startsWith(github.ref, 'refs/heads/release/')", { branch: ['release/**'] }],
    ['success() && failure()', { status: ['failure'] }],
    ["github.ref == 'refs/heads/a' || github.ref == 'refs/heads/b'", undefined],
    ['always()', undefined],
    ["contains(github.ref, 'x')", undefined],
  ])('if: %s', (expression, when) => {
    expect(conditionOf(expression)).toEqual(when);
  });

  test.each([
    [{ branch: ['main'] }, '[ "$CI_BRANCH" = "main" ]'],
    [{ event: ['push'] }, '{ [ "$CI_EVENT" = push ] || [ "$CI_EVENT" = local ]; }'],
    [{ branch: ['release/*'] }, undefined],
    [{ status: ['failure'] }, undefined],
  ])('%j in the shell: %s', (when, test) => {
    expect(shellTestOf(when)).toBe(test);
  });

  it('substitutes what the build knows and keeps the rest, reported', () => {
    expect(substitute('${{ github.sha }} ${{ env.X }} ${{ matrix.os }} ${{ steps.a.outputs.b }}', { os: 'linux' })).toEqual({
      text: '$CI_COMMIT_SHA $X linux ${{ steps.a.outputs.b }}',
      secrets: [],
      unknown: ['${{ steps.a.outputs.b }}'],
      readsVariable: true,
    });
  });

  test.each([
    ['22.x', '22'],
    ['lts/*', 'lts'],
    ['v18.17.0', '18.17.0'],
    ['>=18', undefined],
  ])('setup version %s is image tag %s', (version, tag) => {
    expect(versionTag(version)).toBe(tag);
  });

  test.each([
    ["${{ runner.os }}-npm-${{ hashFiles('**/package-lock.json') }}", { files: ['**/package-lock.json'], prefix: 'npm' }],
    ["deps-${{ hashFiles('go.sum', 'go.mod') }}", { files: ['go.sum', 'go.mod'], prefix: 'deps' }],
    ['${{ runner.os }}', undefined],
  ])('cache key %s', (key, parsed) => {
    expect(cacheKeyOf(key)).toEqual(parsed);
  });
});
