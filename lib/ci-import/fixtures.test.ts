/**
 * Real CI files (test/fixtures/ci-import/SOURCES.md says whose): each converts into a file the
 * pipeline's own parser accepts, with the steps, needs and images a reader of the source expects,
 * and every part it could not convert listed with its line and marked in the written file.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parsePipeline } from '../pipeline/index.js';
import { importCi } from './index.js';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/ci-import/', import.meta.url));

interface Expected {
  dialect: 'github' | 'gitlab';
  /** `name <- needs: image`, in the file's order (needs absent: the step above it). */
  steps: string[];
  /** `line: what` of each part not converted, by line. */
  unconverted: string[];
}

const gitlabShellImage = (go: string) => `registry.gitlab.com/gitlab-org/gitlab-build-images/debian-bookworm-ruby-3.3.11-golang-${go}-rust-1.89:rubygems-3.6-git-2.51-exiftool-12.60`;
const GO_VERSIONS = ['1.25', '1.26'];
const MODULES_DOWNLOAD = GO_VERSIONS.map((go) => `modules-download-go-version-${go.replace('.', '-')}`).join(', ');

const cases: [string, Expected][] = [
  [
    'octokit-octokit.js-test.yml',
    {
      dialect: 'github',
      // A matrix is a step per combination, each in its version's image; a step after it needs them all.
      steps: ['test-matrix-node-version-20 <- []: node:20', 'test-matrix-node-version-22 <- []: node:22', 'test-matrix-node-version-24 <- []: node:24', 'test <- [test-matrix-node-version-20, test-matrix-node-version-22, test-matrix-node-version-24]: node:lts'],
      unconverted: [
        '4: on.push.branches ["main"]',
        '7: on.pull_request.types ["opened","synchronize"]',
        "33: if: ${{ needs.test_matrix.result != 'success' }} on run: exit 1",
        '43: if: ${{ always() }}',
      ],
    },
  ],
  ['octokit-octokit.js-release.yml', { dialect: 'github', steps: ['release <- : node:lts'], unconverted: ['11: permissions:'] }],
  [
    'tj-commander.js-tests.yml',
    {
      dialect: 'github',
      // node-version's 22.x is the image's tag 22; the os axis chooses a runner, which is listed.
      steps: ['22', '24', '26'].flatMap((node) => ['ubuntu-latest', 'windows-latest', 'macos-latest'].map((os) => `test-node-version-${node}-os-${os} <- : node:${node}`)),
      unconverted: ['5: permissions:', '11: runs-on: ${{ matrix.os }}'],
    },
  ],
  [
    'tj-commander.js-codeql-analysis.yml',
    {
      dialect: 'github',
      steps: ['analyze <- : buildpack-deps:noble'],
      unconverted: ['9: on: schedule', '17: permissions:', '33: uses: github/codeql-action/init', '44: uses: github/codeql-action/autobuild', '58: uses: github/codeql-action/analyze'],
    },
  ],
  [
    'lukeed-kleur-ci.yml',
    {
      dialect: 'github',
      steps: ['test-nodejs-10 <- : node:10', 'test-nodejs-12 <- : node:12', 'test-nodejs-14 <- : node:14'],
      unconverted: ['30: if: matrix.nodejs >= 14 on run: c8 report --reporter=text-lcov > coverage.lcov...', '31: run: c8 report --reporter=text-lcov > coverage.lcov... (bash)'],
    },
  ],
  [
    'gitlab-org-gitlab-shell.gitlab-ci.yml',
    {
      dialect: 'gitlab',
      // GO_VERSION's two values are two steps of each job that extends .go-matrix-job, the version in their image.
      steps: [
        ...GO_VERSIONS.map((go) => `modules-download-go-version-${go.replace('.', '-')} <- []: ${gitlabShellImage(go)}`),
        ...['check-gitaly-version', 'modules-tidy', 'lint', 'nilaway', 'tests', 'tests-without-cgo', 'tests-fips', 'race', 'acceptance', 'logging-field-validator'].flatMap((job) => {
          const image = job === 'tests-fips' ? gitlabShellImage('1.25').replace('debian-bookworm', 'ubi-9.7') : gitlabShellImage('1.25');
          const matrix = ['tests', 'tests-without-cgo', 'race', 'acceptance'].includes(job);
          return matrix ? GO_VERSIONS.map((go) => `${job}-go-version-${go.replace('.', '-')} <- [${MODULES_DOWNLOAD}]: ${gitlabShellImage(go)}`) : [`${job} <- [${MODULES_DOWNLOAD}]: ${image}`];
        }),
      ],
      unconverted: [
        '2: include: template Code-Quality.gitlab-ci.yml',
        '3: include: template Security/SAST.gitlab-ci.yml',
        '4: include: template Security/Dependency-Scanning.gitlab-ci.yml',
        '5: include: template Security/Secret-Detection.gitlab-ci.yml',
        '6: include: component ${CI_SERVER_FQDN}/gitlab-org/components/danger-review/danger-review@2.1.0',
        '7: include: component ${CI_SERVER_FQDN}/components/code-intelligence/golang-code-intel@v0.1.2',
        '40: workflow: rules (rules that test different things (a `when` holds all of its keys at once))',
        '57: tags:',
        '81: cache: golang-${GO_VERSION}-cache',
        '85: cache: golang-${GO_VERSION}-cache',
        '124: services[0].command',
        '139: after_script (1 command)',
        '141: coverage:',
        '188: job "code_quality" has no script',
        '195: rules (rules that test different things (a `when` holds all of its keys at once))',
        '198: allow_failure:',
        '204: job "semgrep-sast" has no script',
        '208: job "gitlab-advanced-sast" has no script',
        '213: job "gemnasium-dependency_scanning" has no script',
        '218: job "secret_detection" has no script',
        '224: job "build-package-and-qa": trigger',
        '273: artifacts:reports:codequality gl-code-quality-report.json',
        '286: allow_failure:',
      ],
    },
  ],
];

describe.each(cases)('import %s', (name, expected) => {
  const file = `test/fixtures/ci-import/${name}`;
  const text = readFileSync(`${FIXTURES}${name}`, 'utf8');
  const result = importCi(text, file);
  const lines = text.split('\n');

  it('writes a pipeline file the pipeline parser accepts', () => {
    expect(result.problems).toEqual([]);
    expect(() => parsePipeline(result.yaml, '.step-runner.yml')).not.toThrow();
  });

  it('makes each job a step, with its needs and image', () => {
    const pipeline = parsePipeline(result.yaml, '.step-runner.yml');
    expect(result.dialect).toBe(expected.dialect);
    expect(pipeline.steps.map((step) => `${step.name} <- ${step.needs ? `[${step.needs.join(', ')}]` : ''}: ${step.image}`)).toEqual(expected.steps);
  });

  it('lists every part it could not convert, with its line, and marks each in the written file', () => {
    expect(result.unconverted.map((part) => `${part.line}: ${part.what}`)).toEqual(expected.unconverted);
    for (const part of result.unconverted) {
      // The line is the part's own: it says one of the words the entry names.
      const words = part.what.split(/[^\w-]+/).filter((word) => word.length >= 3);
      expect({ line: part.line, text: lines[part.line - 1], mentions: words.some((word) => lines[part.line - 1]!.includes(word)) }).toEqual(expect.objectContaining({ mentions: true }));
      expect(part.instead.length).toBeGreaterThan(10);
      expect(result.yaml).toContain(`# not converted (line ${part.line}): ${part.what}`);
    }
  });
});

describe('what the real files convert into', () => {
  const convert = (name: string) => parsePipeline(importCi(readFileSync(`${FIXTURES}${name}`, 'utf8'), name).yaml, name);

  it('commander.js: setup-node\'s npm cache is a cache keyed on the lock file, its folder in the workspace', () => {
    const [test] = convert('tj-commander.js-tests.yml').steps;
    expect(test!.env).toEqual({ node_version: '22', os: 'ubuntu-latest' });
    expect(test!.commands).toEqual(['export npm_config_cache="$CI_WORKSPACE/.npm"', 'npm ci', 'npm test', 'npm run check']);
    expect(test!.cache).toEqual([expect.objectContaining({ key: { files: ['package-lock.json'], prefix: 'npm' }, paths: ['.npm'], fallbackKeys: ['npm-'] })]);
  });

  it('octokit release: push branches are the step\'s branch and event; secrets come from a Secret', () => {
    const [release] = convert('octokit-octokit.js-release.yml').steps;
    expect(release!.when).toEqual(expect.objectContaining({ branch: ['main', 'next', 'beta', '*.x', 'debug'], event: ['push'] }));
    expect(release!.secrets).toEqual([
      { env: 'GITHUB_TOKEN', secret: 'imported-secrets', key: 'GITHUB_TOKEN' },
      { env: 'NPM_TOKEN', secret: 'imported-secrets', key: 'OCTOKITBOT_NPM_TOKEN' },
    ]);
  });

  it('kleur: the command under a matrix condition is not run, and the written file shows it', () => {
    const yaml = importCi(readFileSync(`${FIXTURES}lukeed-kleur-ci.yml`, 'utf8'), 'ci.yml').yaml;
    const [test] = parsePipeline(yaml, 'ci.yml').steps;
    expect(test!.commands!.join('\n')).not.toContain('codecov');
    expect(yaml).toContain('#     bash <(curl -s https://codecov.io/bash)');
  });

  it('gitlab-shell: extends, !reference and anchors give the tests job its service, cache, paths and artifacts', () => {
    const tests = convert('gitlab-org-gitlab-shell.gitlab-ci.yml').steps.find((step) => step.name === 'tests-go-version-1-26')!;
    expect(tests.services?.map((service) => [service.name, service.image])).toEqual([['gitaly', 'registry.gitlab.com/gitlab-org/build/cng/gitaly:master']]);
    expect(tests.cache).toEqual([expect.objectContaining({ key: { files: ['go.mod', 'go.sum'], prefix: 'golang-1.25-cache' }, paths: ['.GOPATH/pkg/mod'], policy: 'pull' })]);
    expect(tests.when?.paths).toEqual(['.gitlab-ci.yml', 'go.mod', 'go.sum', '**/*.go']);
    expect(tests.artifacts?.paths).toEqual(['cover.xml']);
    expect(tests.commands).toEqual(expect.arrayContaining(['export GOPATH="$CI_PROJECT_DIR/.GOPATH"', 'make build', 'make verify test_fancy', 'make coverage']));
    expect(tests.env).toEqual(expect.objectContaining({ GOTOOLCHAIN: 'local', GITALY_CONNECTION_INFO: '{"address":"tcp://gitaly:8075", "storage":"default"}', GO_VERSION: '1.26' }));
  });
});
