import { checkRun, checkSuite } from '../../test/fixtures/webhooks/examples.js';
import { InvalidPayload } from './errors.js';
import { decideGitHubDelivery, type GitHubPolicy } from './github-event.js';

// GitHub's examples: the check_run ones belong to App 2 ("Super Duper", github/hello-world, no pull
// request, external_id ""), the check_suite ones to App 29310 (Codertocat/Hello-World, pull request #2).
const RUN_APP = '2';
const SUITE_APP = '29310';
const ARN = 'arn:aws:states:eu-west-1:123456789012:execution:serverless-step-runner-dev-build:gh-Hello-World-6113728-72d3162e-0a1b2c3d4e';

type Payload = Record<string, unknown> & { check_run?: Record<string, unknown> & { check_suite: Record<string, unknown> }; check_suite?: Record<string, unknown> };

function withRun(change: (run: NonNullable<Payload['check_run']>) => void): Payload {
  const payload = checkRun('rerequested') as Payload;
  change(payload.check_run!);
  return payload;
}

function withSuite(change: (suite: NonNullable<Payload['check_suite']>) => void): Payload {
  const payload = checkSuite('rerequested') as Payload;
  change(payload.check_suite!);
  return payload;
}

describe('re-runs from GitHub on its example payloads', () => {
  it('re-runs the check run\'s commit as its branch\'s push build, its changes compared with the suite\'s push', () => {
    expect(decideGitHubDelivery('check_run', checkRun('rerequested'), { appId: RUN_APP })).toEqual({
      kind: 'build',
      changes: { kind: 'compare', base: '146e867f55c26428e5f9fade55a9bbf5e95a7912', head: 'd6fde92930d4715a2b49857d24b940956b26d2d3', why: 'a check_run delivery lists no files' },
      checkHeadCommitMessage: false,
      // GitHub's example check run has an empty external_id: the earlier execution is not known.
      rerun: {},
      request: {
        trigger: 'github push',
        event: 'push',
        repository: 'github/hello-world',
        commit: 'd6fde92930d4715a2b49857d24b940956b26d2d3',
        ref: 'refs/heads/master',
        defaultBranch: 'master',
        cloneUrl: 'http://github.com/github/hello-world.git',
        installationId: 1,
      },
    });
  });

  it('re-runs a check suite whose head has a pull request open as that pull request\'s build', () => {
    expect(decideGitHubDelivery('check_suite', checkSuite('rerequested'), { appId: SUITE_APP })).toEqual({
      kind: 'build',
      changes: { kind: 'pullRequest', number: 2 },
      checkHeadCommitMessage: false,
      rerun: {},
      request: {
        trigger: 'github pull_request',
        event: 'pull_request',
        repository: 'Codertocat/Hello-World',
        commit: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
        ref: 'refs/pull/2/head',
        baseRef: 'refs/heads/master',
        pullRequest: { number: 2, fork: false },
        defaultBranch: 'master',
        cloneUrl: 'https://github.com/Codertocat/Hello-World.git',
        installationId: 957387,
      },
    });
  });

  const table: [string, string, () => Payload, GitHubPolicy, 'build' | RegExp][] = [
    ['check_run', 'rerequested, ours', () => checkRun('rerequested'), { appId: RUN_APP }, 'build'],
    ['check_run', "rerequested, another App's", () => checkRun('rerequested'), { appId: SUITE_APP }, /belongs to GitHub App 2, not to this deployment's App 29310/],
    ['check_run', 'rerequested, a deployment without an App', () => checkRun('rerequested'), {}, /no GitHub App \(GITHUB_APP_ID\)/],
    ['check_run', 'rerequested, ours by client id', () => withRun((run) => Object.assign(run.app as object, { client_id: 'Iv23liExample01' })), { appId: 'Iv23liExample01' }, 'build'],
    ['check_run', 'rerequested, without an app', () => withRun((run) => (run.app = null)), { appId: RUN_APP }, /belongs to no GitHub App/],
    ['check_run', 'created, ours', () => checkRun('created'), { appId: SUITE_APP }, /check_run "created" does not start a build/],
    ['check_run', 'completed, ours', () => checkRun('completed'), { appId: SUITE_APP }, /check_run "completed" does not start a build/],
    ['check_run', 'requested_action', () => checkRun('requested_action'), { appId: '25811' }, /check_run "requested_action" does not start a build/],
    ['check_suite', 'rerequested, ours', () => checkSuite('rerequested'), { appId: SUITE_APP }, 'build'],
    ['check_suite', "rerequested, another App's", () => checkSuite('rerequested'), { appId: RUN_APP }, /belongs to GitHub App 29310/],
    ['check_suite', 'requested (a push), ours', () => checkSuite('requested'), { appId: SUITE_APP }, /check_suite "requested" does not start a build/],
    ['check_suite', 'completed, ours', () => checkSuite('completed'), { appId: SUITE_APP }, /check_suite "completed" does not start a build/],
    [
      'check_suite',
      "rerequested, a fork's head (GitHub names no branch and lists no pull request)",
      () => withSuite((suite) => Object.assign(suite, { head_branch: null, pull_requests: [] })),
      { appId: SUITE_APP },
      /names no branch of Codertocat\/Hello-World/,
    ],
    [
      'check_suite',
      "rerequested, a fork's pull request",
      () => withSuite((suite) => ((suite.pull_requests as { head: { repo: { id: number } } }[])[0]!.head.repo.id = 1)),
      { appId: SUITE_APP },
      /pull request #2 comes from a fork/,
    ],
    [
      'check_suite',
      "rerequested, a fork's pull request where forks are built",
      () => withSuite((suite) => ((suite.pull_requests as { head: { repo: { id: number } } }[])[0]!.head.repo.id = 1)),
      { appId: SUITE_APP, buildForkPullRequests: true },
      'build',
    ],
  ];

  it.each(table)('%s %s', (event, _what, payload, policy, expected) => {
    const decision = decideGitHubDelivery(event, payload(), policy);
    if (expected === 'build') expect(decision).toMatchObject({ kind: 'build', rerun: {} });
    else expect(decision).toEqual({ kind: 'ignored', reason: expect.stringMatching(expected) });
  });

  it("names the earlier execution from our check run's external_id: an execution ARN, or the build's own name", () => {
    const fromArn = decideGitHubDelivery('check_run', withRun((run) => (run.external_id = ARN)), { appId: RUN_APP });
    expect(fromArn).toMatchObject({ kind: 'build', rerun: { earlier: 'gh-Hello-World-6113728-72d3162e-0a1b2c3d4e' } });
    const fromName = decideGitHubDelivery('check_run', withRun((run) => (run.external_id = 'local-build-7')), { appId: RUN_APP });
    expect(fromName).toMatchObject({ rerun: { earlier: 'local-build-7' } });
    const fromOther = decideGitHubDelivery('check_run', withRun((run) => (run.external_id = 'ci/job 42')), { appId: RUN_APP });
    expect(fromOther).toMatchObject({ kind: 'build', rerun: {} });
  });

  it("keeps a check run's pull request as the build's, from the run's own list", () => {
    const payload = withRun((run) => {
      run.pull_requests = [{ number: 9, head: { ref: 'master', sha: run.head_sha, repo: { id: 5 } }, base: { ref: 'main', sha: run.head_sha, repo: { id: 5 } } }];
    });
    expect(decideGitHubDelivery('check_run', payload, { appId: RUN_APP })).toMatchObject({
      changes: { kind: 'pullRequest', number: 9 },
      request: { trigger: 'github pull_request', ref: 'refs/pull/9/head', baseRef: 'refs/heads/main', pullRequest: { number: 9, fork: false } },
    });
  });

  it('does not know the changed files of a branch re-run whose suite names no earlier commit', () => {
    const payload = withRun((run) => (run.check_suite.before = '0000000000000000000000000000000000000000'));
    expect(decideGitHubDelivery('check_run', payload, { appId: RUN_APP })).toMatchObject({
      changes: { kind: 'known', changes: { known: false, why: 'the check_run delivery names no earlier commit to compare with' } },
    });
  });

  it('refuses a re-run payload that is not what GitHub sends, naming the field', () => {
    const payload = withSuite((suite) => (suite.head_sha = 'main'));
    expect(() => decideGitHubDelivery('check_suite', payload, { appId: SUITE_APP })).toThrow(InvalidPayload);
    expect(() => decideGitHubDelivery('check_suite', payload, { appId: SUITE_APP })).toThrow(/check_suite payload .*check_suite\.head_sha/);
  });
});
