import type { BuildRef } from '../contract/index.js';
import { concurrencyGroupOf, expandGroup, type ConcurrencySetting } from './concurrency.js';
import { InvalidPipeline } from './errors.js';
import { checkPipeline, parsePipeline } from './parse.js';

const pullRequest: BuildRef = {
  id: 'b1',
  event: 'pull_request',
  repository: 'octo/app',
  ref: 'refs/pull/7/head',
  baseRef: 'refs/heads/main',
  pullRequest: { number: 7, fork: false },
  defaultBranch: 'main',
};
const pushToMain: BuildRef = { id: 'b2', event: 'push', repository: 'octo/app', ref: 'refs/heads/main', defaultBranch: 'main' };
const pushToFeature: BuildRef = { id: 'b3', event: 'push', repository: 'octo/app', ref: 'refs/heads/feature/x', defaultBranch: 'main' };
const localRun: BuildRef = { id: 'b4', event: 'local' };

const written = (group: string, cancel = true): ConcurrencySetting => ({ group, cancelInProgress: cancel });

describe("a build's concurrency group", () => {
  test.each([
    ['a pull request, by default', undefined, pullRequest, 'octo/app-pull/7'],
    ['the default branch, by default', undefined, pushToMain, undefined],
    ['another push, by default', undefined, pushToFeature, undefined],
    ['a local run, by default', undefined, localRun, undefined],
    ['a pull request, with concurrency: false', false as const, pullRequest, undefined],
    ['the default branch, when the file asks', written('${CI_REPOSITORY}-${CI_PR_OR_BRANCH}'), pushToMain, 'octo/app-main'],
    ['another push, when the file asks', written('${CI_REPOSITORY}-${CI_PR_OR_BRANCH}'), pushToFeature, 'octo/app-feature/x'],
    ['a pull request, by its base branch', written('${CI_REPOSITORY}/${CI_BRANCH}'), pullRequest, 'octo/app/main'],
    ['a push, with no PR number', written('${CI_EVENT}:${CI_PR_NUMBER}:${CI_REF}'), pushToFeature, 'push::refs/heads/feature/x'],
    ['a pull request, with cancel-in-progress: false', written('${CI_REPOSITORY}', false), pullRequest, undefined],
  ])('%s: %j', (_what, setting, build, group) => {
    expect(concurrencyGroupOf(setting, build)?.group).toBe(group);
  });

  it('keeps text that is not a reference as it is', () => {
    expect(expandGroup('deploy-$HOME-{x}', pushToMain)).toBe('deploy-$HOME-{x}');
  });
});

describe('concurrency in the pipeline file', () => {
  const file = (concurrency: string) => `version: 1\n${concurrency}\nsteps:\n  - name: test\n    image: alpine:3.20\n    commands: ['true']\n`;

  test.each([
    ['concurrency:\n  group: "${CI_REPOSITORY}-${CI_PR_OR_BRANCH}"\n  cancel-in-progress: true', { group: '${CI_REPOSITORY}-${CI_PR_OR_BRANCH}', cancelInProgress: true }],
    ['concurrency:\n  group: deploy', { group: 'deploy', cancelInProgress: true }],
    ['concurrency:\n  group: deploy\n  cancel-in-progress: false', { group: 'deploy', cancelInProgress: false }],
    ['concurrency: false', false],
  ])('%j reads as %j', (text, setting) => {
    expect(parsePipeline(file(text), 'ci.yml').concurrency).toEqual(setting);
  });

  it('is absent when the file says nothing (the default applies)', () => {
    expect(parsePipeline(file(''), 'ci.yml').concurrency).toBeUndefined();
  });

  test.each([
    ['concurrency:\n  group: "${CI_REPOSITORY}-${CI_HEAD_BRANCH}"', 3, /ci\.yml line 3: concurrency\.group: \$\{CI_HEAD_BRANCH\} is not a variable a group can use; the variables are CI_REPOSITORY, CI_REF, CI_BRANCH, CI_EVENT, CI_PR_NUMBER, CI_PR_OR_BRANCH/],
    ['concurrency:\n  group: "${CI_COMMIT_SHA}"', 3, /\$\{CI_COMMIT_SHA\} is not a variable a group can use/],
    ['concurrency:\n  group: "${CI_REPOSITORY"', 3, /has a "\$\{" without its closing "\}"/],
    ['concurrency:\n  group: ""', 3, /must not be empty/],
    ['concurrency:\n  cancel-in-progress: true', 2, /concurrency\.group: missing/],
    ['concurrency:\n  group: x\n  cancel-in-progress: yes please', 4, /cancel-in-progress: must be true or false/],
    ['concurrency:\n  group: x\n  cancel-in-progres: true', 4, /unknown field "cancel-in-progres" \(did you mean "cancel-in-progress"\?\)/],
    ['concurrency: true', 2, /concurrency: must be false, or a map with group and cancel-in-progress/],
  ])('%j is refused at line %i', (text, line, message) => {
    const checked = checkPipeline(file(text), 'ci.yml');
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.problems[0]?.location.line).toBe(line);
    expect(checked.problems[0]?.message).toMatch(message);
    expect(() => parsePipeline(file(text), 'ci.yml')).toThrow(InvalidPipeline);
  });
});
