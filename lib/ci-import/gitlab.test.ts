/** How a .gitlab-ci.yml's parts map, one rule per row, on small files (docs.gitlab.com/ci/yaml/). */
import { parsePipeline, type Pipeline } from '../pipeline/index.js';
import { importCi } from './index.js';
import { expandVariables } from './gitlab-config.js';
import { ifCondition, onlyExceptVerdict, rulesVerdict } from './gitlab-rules.js';
import { gitlabExpireIn, gitlabSeconds, workspaceRelative } from './gitlab-values.js';

function convert(yaml: string): { pipeline: Pipeline; unconverted: string[]; text: string } {
  const result = importCi(yaml, '.gitlab-ci.yml');
  expect(result.problems).toEqual([]);
  return { pipeline: parsePipeline(result.yaml, 'out.yml'), unconverted: result.unconverted.map((part) => `${part.line}: ${part.what}`), text: result.yaml };
}

describe('a GitLab job as a step', () => {
  it('runs before_script then script, in its image or the default one', () => {
    const { pipeline } = convert('default:\n  image: node:22\n  before_script: [npm ci]\ntest:\n  script: [npm test]\nlint:\n  image: node:20\n  script: npm run lint\n');
    expect(pipeline.steps.map((step) => [step.name, step.image, step.commands])).toEqual([
      ['test', 'node:22', ['npm ci', 'npm test']],
      ['lint', 'node:20', ['npm ci', 'npm run lint']],
    ]);
  });

  it('makes stages needs: a job waits for every job of the stage before its own, unless it says its needs', () => {
    const yaml = 'image: alpine:3.20\nstages: [build, test, deploy]\nbuild-a:\n  stage: build\n  script: [make a]\nbuild-b:\n  stage: build\n  script: [make b]\nunit:\n  script: [make unit]\nquick:\n  stage: test\n  needs: [build-a]\n  script: [make quick]\ndeploy:\n  stage: deploy\n  script: [make deploy]\n';
    expect(convert(yaml).pipeline.steps.map((step) => [step.name, step.needs])).toEqual([
      ['build-a', []],
      ['build-b', []],
      ['unit', ['build-a', 'build-b']],
      ['quick', ['build-a']],
      ['deploy', ['unit', 'quick']],
    ]);
  });

  it('lists a need on a job of another file or pipeline, and starts the step without it', () => {
    const yaml = 'image: alpine:3.20\nbuild:\n  script: [make]\ntest:\n  needs: [build, {pipeline: $PARENT_PIPELINE_ID, job: generate}, from-include]\n  script: [make test]\n';
    const { pipeline, unconverted } = convert(yaml);
    expect(pipeline.steps.map((step) => [step.name, step.needs])).toEqual([['build', []], ['test', ['build']]]);
    expect(unconverted).toEqual(['5: needs generate, from-include']);
  });

  it('merges extends (hashes deeply, lists replaced) and !reference', () => {
    const yaml = [
      '.base:',
      '  image: golang:1.22',
      '  variables: {A: "1", B: "2"}',
      '  script: [go build]',
      '.setup:',
      '  before_script: [go version]',
      'build:',
      '  extends: .base',
      '  variables: {B: "3"}',
      '  before_script:',
      '    - !reference [.setup, before_script]',
      '    - go env',
      '',
    ].join('\n');
    const [build] = convert(yaml).pipeline.steps;
    expect(build).toEqual(expect.objectContaining({ image: 'golang:1.22', env: { A: '1', B: '3' }, commands: ['go version', 'go env', 'go build'] }));
  });

  it('expands variables in the image, exports values that read variables, and gives GitLab\'s own from the build\'s', () => {
    const yaml = 'variables:\n  GO: "1.22"\n  GOPATH: $CI_PROJECT_DIR/.go\nbuild:\n  image: golang:${GO}\n  script: [echo $CI_COMMIT_REF_NAME, echo $CI_MERGE_REQUEST_IID]\n';
    const { pipeline, unconverted } = convert(yaml);
    expect(pipeline.steps[0]).toEqual(
      expect.objectContaining({
        image: 'golang:1.22',
        env: { GO: '1.22' },
        commands: ['export CI_COMMIT_REF_NAME="${CI_BRANCH:-${CI_REF#refs/tags/}}"', 'export CI_PROJECT_DIR="$CI_WORKSPACE"', 'export GOPATH="$CI_PROJECT_DIR/.go"', 'echo $CI_COMMIT_REF_NAME', 'echo $CI_MERGE_REQUEST_IID'],
      }),
    );
    expect(unconverted).toEqual(["6: GitLab's variables $CI_MERGE_REQUEST_IID"]);
  });

  it('takes services with their alias and variables, and lists their command', () => {
    const yaml = 'test:\n  image: ruby:3\n  services:\n    - postgres:16\n    - name: redis:7\n      alias: cache\n      command: [redis-server, --save, ""]\n      variables: {X: "1"}\n  script: [rake]\n';
    const { pipeline, unconverted } = convert(yaml);
    expect(pipeline.steps[0]!.services?.map((service) => [service.name, service.image, service.env])).toEqual([
      ['postgres', 'postgres:16', {}],
      ['cache', 'redis:7', { X: '1' }],
    ]);
    expect(unconverted).toEqual(['7: services[1].command']);
  });

  it('makes a cache keyed on files a cache, its paths in the workspace', () => {
    const yaml = 'test:\n  image: node:22\n  cache:\n    key:\n      files: [package-lock.json]\n      prefix: npm\n    paths: [$CI_PROJECT_DIR/.npm/, node_modules/]\n    policy: pull\n    fallback_keys: [npm-main]\n  script: [npm ci]\n';
    expect(convert(yaml).pipeline.steps[0]!.cache).toEqual([expect.objectContaining({ key: { files: ['package-lock.json'], prefix: 'npm' }, paths: ['.npm', 'node_modules'], policy: 'pull', fallbackKeys: ['npm-main'] })]);
  });

  it('makes artifacts artifacts, expire_in in days, JUnit reports the step\'s reports, and keeps other reports as artifacts, listed', () => {
    const yaml = 'test:\n  image: node:22\n  script: [npm test]\n  artifacts:\n    paths: [coverage/]\n    expire_in: 1 week\n    reports:\n      junit: [junit.xml, "./rspec-*.xml"]\n      coverage_report: {coverage_format: cobertura, path: coverage.xml}\n';
    const { pipeline, unconverted } = convert(yaml);
    expect(pipeline.steps[0]!.artifacts).toEqual(expect.objectContaining({ paths: ['coverage/'], expireInDays: 7 }));
    expect(pipeline.steps[0]!.reports).toEqual({ junit: ['junit.xml', 'rspec-*.xml'] });
    expect(unconverted).toEqual(['9: artifacts:reports:coverage_report ']);
  });

  test.each([
    ['rules: [{if: \'$CI_COMMIT_BRANCH == "main"\'}]', { branch: ['main'] }, []],
    ['rules: [{if: \'$CI_PIPELINE_SOURCE == "merge_request_event"\'}, {if: $CI_COMMIT_TAG}]', { event: ['pull_request', 'tag'] }, []],
    ['rules: [{changes: ["src/**/*"]}]', { paths: ['src/**/*'] }, []],
    ['rules: [{if: $CI_COMMIT_TAG}, {when: never}]', undefined, ['4: rules (a rule with `when: never`)']],
    ['rules: [{if: $CI_MERGE_REQUEST_IID}, {if: \'$CI_COMMIT_BRANCH == "main"\'}]', undefined, ['4: rules (rules that test different things (a `when` holds all of its keys at once))']],
    ['only: [main, "release/1.0"]', { branch: ['main', 'release/1.0'] }, []],
    ['except: [tags]', { event: ['push', 'pull_request', 'generic'] }, []],
    ['when: on_failure', { status: ['failure'] }, []],
    ['when: manual', { event: ['generic'] }, ['4: when: manual']],
  ])('%s', (condition, when, listed) => {
    const { pipeline, unconverted } = convert(`job:\n  image: alpine:3.20\n  script: [make]\n  ${condition}\n`);
    expect(pipeline.steps[0]!.when).toEqual(when);
    expect(unconverted).toEqual(listed);
  });

  it('lists include:, a trigger job and a job whose script comes from a template, at their lines', () => {
    const yaml = 'include:\n  - template: Security/SAST.gitlab-ci.yml\n  - local: ci/more.yml\nsast:\n  stage: test\nbuild:\n  image: alpine:3.20\n  script: [make]\ndownstream:\n  trigger: group/project\n';
    const { pipeline, unconverted, text } = convert(yaml);
    expect(pipeline.steps.map((step) => step.name)).toEqual(['build']);
    expect(unconverted).toEqual(['2: include: template Security/SAST.gitlab-ci.yml', '3: include: local ci/more.yml', '4: job "sast" has no script', '10: job "downstream": trigger']);
    expect(text).toContain('# not converted (line 3): include: local ci/more.yml\n#   instead: import that file too');
  });

  test.each([
    ['one entry: its variables are the axes', '      - PY: ["3.11", "3.12"]\n        OS: alpine\n', [['python:3.11', { PY: '3.11', OS: 'alpine' }], ['python:3.12', { PY: '3.12', OS: 'alpine' }]], []],
    ['entries of one value each: include entries', '      - PY: "3.11"\n      - {PY: "3.12", OS: [slim]}\n', [['python:3.11', { PY: '3.11' }], ['python:3.12', { PY: '3.12', OS: 'slim' }]], []],
    ['too many combinations: the first', `      - {${Array.from({ length: 9 }, (_, index) => `V${index}: [a, b]`).join(', ')}, PY: "3.11"}\n`, [['python:3.11', { ...Object.fromEntries(Array.from({ length: 9 }, (_, index) => [`V${index}`, 'a'])), PY: '3.11' }]], ['3: parallel: matrix V0 [a, b], V1 [a, b], V2 [a, b], V3 [a, b], V4 [a, b], V5 [a, b], V6 [a, b], V7 [a, b], V8 [a, b], PY [3.11]']],
    ['entries that list values: the first combination', '      - PY: ["3.11", "3.12"]\n      - PY: "3.13"\n', [['python:3.11', { PY: '3.11' }]], ['3: parallel: matrix PY [3.11, 3.12]', '3: parallel: matrix, 1 more entry']],
  ])('parallel: matrix, %s', (_, entries, steps, listed) => {
    const { pipeline, unconverted } = convert(`test:\n  image: python:$PY\n  parallel:\n    matrix:\n${entries}  script: [pytest]\n`);
    expect(pipeline.steps.map((step) => [step.image, step.env])).toEqual(steps);
    expect(unconverted).toEqual(listed);
  });

  it('writes a matrix value in a service or an artifact path for the first combination, and lists it: only the image holds one', () => {
    const { pipeline, unconverted } = convert('test:\n  image: python:$PY\n  parallel:\n    matrix:\n      - PY: ["3.11", "3.12"]\n  script: [pytest]\n  artifacts:\n    paths: [out-$PY/]\n  services: ["redis:$PY"]\n');
    expect(pipeline.steps.map((step) => [step.image, step.artifacts?.paths, step.services?.map((service) => service.image)])).toEqual([
      ['python:3.11', ['out-3.11/'], ['redis:3.11']],
      ['python:3.12', ['out-3.11/'], ['redis:3.11']],
    ]);
    expect(unconverted).toEqual(['7: artifacts: out-$PY/', '9: services: redis:$PY']);
  });

  it('names the file\'s variables once and merges them into each step that keeps them', () => {
    const { text, pipeline } = convert('variables: {A: "1"}\none:\n  image: alpine:3.20\n  script: [a]\ntwo:\n  image: alpine:3.20\n  variables: {B: "2"}\n  script: [b]\n');
    expect(text).toContain('env: &variables');
    expect(text).toContain('<<: *variables');
    expect(pipeline.steps.map((step) => step.env)).toEqual([{ A: '1' }, { A: '1', B: '2' }]);
  });

  it('names two services of one image apart, and none after the pod\'s own containers', () => {
    const { pipeline } = convert('test:\n  image: ruby:3\n  services: [postgres:15, postgres:16, {name: alpine:3.20, alias: step}]\n  script: [rake]\n');
    expect(pipeline.steps[0]!.services?.map((service) => service.name)).toEqual(['postgres', 'postgres-2', 'step-2']);
  });

  it('shares out the 24 hours a build may run when 30 jobs would take an hour each', () => {
    const jobs = Array.from({ length: 30 }, (_, index) => `job${index}:\n  image: alpine:3.20\n  script: [make]\n`).join('');
    const { pipeline, text } = convert(jobs);
    expect(new Set(pipeline.steps.map((step) => step.timeoutSeconds))).toEqual(new Set([2880]));
    expect(text).toContain('would add up to 30h, more than the 24h a build may run: 30 steps written with `timeout: 48m`');
  });

  it('reads a file that starts with a spec: header, and lists the inputs', () => {
    const { pipeline, unconverted } = convert('spec:\n  inputs:\n    stage: {default: test}\n---\nbuild:\n  image: alpine:3.20\n  script: [make]\n');
    expect(pipeline.steps.map((step) => step.name)).toEqual(['build']);
    expect(unconverted).toEqual(['1: spec: inputs']);
  });

  it('refuses a file that is already a pipeline file, or not YAML', () => {
    expect(() => importCi('version: 1\nsteps: []\n', '.step-runner.yml')).toThrow('already a step-runner pipeline file');
    expect(() => importCi('a: [\n', 'x.yml')).toThrow(/^x\.yml line \d+: not YAML/);
  });
});

describe('GitLab values', () => {
  test.each([
    ['$CI_COMMIT_BRANCH == "main"', { branch: ['main'] }],
    ['"main" == $CI_COMMIT_REF_NAME', { branch: ['main'] }],
    ['$CI_PIPELINE_SOURCE == "schedule"', { event: ['generic'] }],
    ['$CI_COMMIT_TAG', { event: ['tag'] }],
    ['$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH', undefined],
    ['$CI_COMMIT_BRANCH =~ /^release/', undefined],
    ['$A || $B', undefined],
  ])('if: %s', (expression, when) => {
    expect(ifCondition(expression)).toEqual(when);
  });

  test.each([
    ['1h 30m', 5400],
    ['3 hours', 10_800],
    ['90 minutes', 5400],
    ['1 hour and 10 minutes', 4200],
    ['3600', 3600],
    ['soon', undefined],
  ])('duration %s', (text, seconds) => {
    expect(gitlabSeconds(text)).toBe(seconds);
  });

  test.each([
    ['30 days', '30d'],
    ['1 week', '7d'],
    ['2 hrs', '1d'],
    ['10 years', '365d'],
    ['never', undefined],
  ])('expire_in %s', (text, days) => {
    expect(gitlabExpireIn(text)).toBe(days);
  });

  test.each([
    ['$CI_PROJECT_DIR/.cache/', '.cache'],
    ['${CI_PROJECT_DIR}/vendor', 'vendor'],
    ['./node_modules/', 'node_modules'],
  ])('path %s', (path, relative) => {
    expect(workspaceRelative(path)).toBe(relative);
  });

  it('expands variables through each other, and leaves unknown ones', () => {
    expect(expandVariables('${IMAGE}:$TAG-$UNKNOWN', { IMAGE: 'registry/$NAME', NAME: 'app', TAG: '1' })).toBe('registry/app:1-$UNKNOWN');
  });

  it('rules and only/except verdicts', () => {
    expect(rulesVerdict([{ if: '$CI_COMMIT_TAG', when: 'manual' }])).toEqual({ ok: false, why: 'a rule with `when: manual`' });
    expect(rulesVerdict([{ if: '$X' }, {}])).toEqual({ ok: true });
    expect(onlyExceptVerdict({ refs: ['main'], changes: ['a/**'] }, undefined)).toEqual({ ok: true, when: { branch: ['main'], paths: ['a/**'] } });
    expect(onlyExceptVerdict(['/^feature/'], undefined)).toEqual({ ok: false, why: 'only: a /regular expression/' });
  });
});
