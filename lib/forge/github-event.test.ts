import { branchDeletion, branchPush, branchUpdate, ping, pullRequest, tagPush } from '../../test/fixtures/webhooks/examples.js';
import { InvalidPayload } from './errors.js';
import { decideGitHubDelivery } from './github-event.js';

describe('decideGitHubDelivery on GitHub example payloads', () => {
  it('answers a ping with its zen', () => {
    expect(decideGitHubDelivery('ping', ping())).toEqual({ kind: 'ping', zen: 'Anything added dilutes everything else.' });
  });

  it('builds the pushed commit of a branch', () => {
    expect(decideGitHubDelivery('push', branchPush())).toEqual({
      kind: 'build',
      // GitHub's example creates the branch: there is nothing to compare it with.
      changes: { kind: 'known', changes: { known: false, why: expect.stringMatching(/created the branch/) } },
      checkHeadCommitMessage: false,
      request: {
        trigger: 'github push',
        event: 'push',
        repository: 'Codertocat/Hello-World',
        commit: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
        ref: 'refs/heads/master',
        defaultBranch: 'master',
        // The commit is fetched from where GitHub says the repository is.
        cloneUrl: 'https://github.com/Codertocat/Hello-World.git',
        // GitHub's example is a delivery of an App.
        installationId: 1,
        // repository.pushed_at, seconds since the epoch in a push payload: it orders a group's builds.
        pushedAt: '2019-05-15T15:20:57.000Z',
        // The sender: who pushed, whom an approval's self-approval: false refuses.
        pushedBy: 'Codertocat',
      },
    });
  });

  it("carries the GitHub App installation a delivery came through, and none for a repository's own webhook", () => {
    const payload = branchPush() as { installation?: unknown };
    payload.installation = { id: 48213977, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDgyMTM5Nzc=' };
    expect(decideGitHubDelivery('push', payload)).toMatchObject({ request: { installationId: 48213977 } });
    delete payload.installation;
    expect(decideGitHubDelivery('push', payload)).toMatchObject({ kind: 'build', request: expect.not.objectContaining({ installationId: expect.anything() }) });
    payload.installation = null;
    expect(decideGitHubDelivery('push', payload)).toMatchObject({ kind: 'build', request: expect.not.objectContaining({ installationId: expect.anything() }) });
    const pr = pullRequest('opened') as { installation?: unknown };
    pr.installation = { id: 7 };
    expect(decideGitHubDelivery('pull_request', pr)).toMatchObject({ request: { installationId: 7 } });
    payload.installation = { id: '48213977' };
    expect(() => decideGitHubDelivery('push', payload)).toThrow(/push payload .*installation\.id/);
  });

  it('takes the clone URL from the payload, as GitHub Enterprise servers send their own', () => {
    const payload = branchPush() as unknown as { repository: { clone_url: string } };
    payload.repository.clone_url = 'https://git.corp.example/team/app.git';
    expect(decideGitHubDelivery('push', payload)).toMatchObject({ request: { cloneUrl: 'https://git.corp.example/team/app.git' } });
    payload.repository.clone_url = 'https://user:token@git.corp.example/team/app.git';
    expect(() => decideGitHubDelivery('push', payload)).toThrow(/repository\.clone_url: an http\(s\) URL without credentials/);
  });

  it('ignores tag pushes and branch deletions, saying why', () => {
    expect(decideGitHubDelivery('push', tagPush())).toEqual({ kind: 'ignored', reason: 'tag pushes (refs/tags/simple-tag) do not start builds' });
    expect(decideGitHubDelivery('push', branchDeletion())).toEqual({ kind: 'ignored', reason: 'refs/heads/feature-x was deleted; there is nothing to build' });
  });

  it.each(['opened', 'synchronize', 'reopened'])('builds the head commit of a pull request %s', (action) => {
    const payload = pullRequest(action);
    delete payload.installation;
    expect(decideGitHubDelivery('pull_request', payload)).toEqual({
      kind: 'build',
      // The payload has neither the files nor the head commit's message: the API has them.
      changes: { kind: 'pullRequest', number: payload.number, changedFiles: 1 },
      checkHeadCommitMessage: true,
      request: {
        trigger: 'github pull_request',
        event: 'pull_request',
        repository: 'Codertocat/Hello-World',
        commit: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
        ref: `refs/pull/${payload.number}/head`,
        baseRef: `refs/heads/${(payload.pull_request as { base: { ref: string } }).base.ref}`,
        defaultBranch: 'master',
        pullRequest: { number: payload.number, fork: false },
        // pull_request.updated_at: it orders two pushes to the pull request.
        pushedAt: new Date((payload.pull_request as { updated_at: string }).updated_at).toISOString(),
        cloneUrl: 'https://github.com/Codertocat/Hello-World.git',
        // Who opened it or pushed its head.
        pushedBy: (payload.sender as { login: string }).login,
      },
    });
  });

  it("carries a push's changed files from its commits", () => {
    expect(decideGitHubDelivery('push', branchUpdate())).toMatchObject({
      kind: 'build',
      changes: { kind: 'known', changes: { known: true, files: ['README.md', 'docs/guide.md', 'src/app.ts', 'src/old.ts'] } },
    });
  });

  it('skips a push whose head commit asks for no build, saying why', () => {
    const payload = branchUpdate();
    payload.head_commit = { ...payload.head_commit, message: 'Fix the docs [skip ci]' };
    expect(decideGitHubDelivery('push', payload)).toEqual({
      kind: 'skipped',
      reason: 'the head commit 6113728 asks for no build ("[skip ci]" in its message)',
    });
    // Only the head commit counts, as GitHub Actions has it.
    payload.head_commit = { ...payload.head_commit, message: 'Fix the code' };
    payload.commits[0] = { ...payload.commits[0], message: 'wip [skip ci]' };
    expect(decideGitHubDelivery('push', payload)).toMatchObject({ kind: 'build' });
  });

  it('ignores a pull request from a fork unless the deployment builds forks, saying why', () => {
    const payload = pullRequest('opened') as { pull_request: { head: { repo: { full_name: string } | null } } };
    payload.pull_request.head.repo = { full_name: 'mallory/Hello-World' };
    expect(decideGitHubDelivery('pull_request', payload)).toEqual({
      kind: 'ignored',
      reason: expect.stringMatching(/^pull request #\d+ comes from a fork \(mallory\/Hello-World\): .*secrets.*BUILD_FORK_PULL_REQUESTS=true/),
    });
    expect(decideGitHubDelivery('pull_request', payload, { buildForkPullRequests: true })).toMatchObject({ kind: 'build' });
    payload.pull_request.head.repo = null;
    expect(decideGitHubDelivery('pull_request', payload)).toMatchObject({ kind: 'ignored', reason: expect.stringContaining('(deleted)') });
  });

  it("says which pull request started a build, whether it comes from a fork, and the repository's default branch (the cache's scopes)", () => {
    const own = decideGitHubDelivery('pull_request', pullRequest('opened'));
    expect(own).toMatchObject({ kind: 'build', request: { pullRequest: { number: expect.any(Number), fork: false }, defaultBranch: expect.any(String) } });
    const payload = pullRequest('opened') as { pull_request: { head: { repo: { full_name: string } | null } } };
    payload.pull_request.head.repo = { full_name: 'mallory/Hello-World' };
    expect(decideGitHubDelivery('pull_request', payload, { buildForkPullRequests: true })).toMatchObject({ request: { pullRequest: { fork: true } } });
    payload.pull_request.head.repo = null;
    expect(decideGitHubDelivery('pull_request', payload, { buildForkPullRequests: true })).toMatchObject({ request: { pullRequest: { fork: true } } });
    expect(decideGitHubDelivery('push', branchPush())).toMatchObject({ request: { defaultBranch: expect.any(String) } });
    expect(decideGitHubDelivery('push', branchPush())).toMatchObject({ request: expect.not.objectContaining({ pullRequest: expect.anything() }) });
  });

  it.each(['closed', 'labeled', 'assigned'])('ignores pull_request %s', (action) => {
    expect(decideGitHubDelivery('pull_request', pullRequest(action))).toEqual({
      kind: 'ignored',
      reason: `pull_request "${action}" does not start a build`,
    });
  });

  it('ignores other events', () => {
    expect(decideGitHubDelivery('issues', {})).toEqual({ kind: 'ignored', reason: '"issues" events do not start builds' });
  });

  it('refuses a push payload that lacks what GitHub always sends, naming the field', () => {
    const payload = branchPush();
    delete payload.repository;
    expect(() => decideGitHubDelivery('push', payload)).toThrow(InvalidPayload);
    expect(() => decideGitHubDelivery('push', payload)).toThrow(/push payload .*repository/);
    expect(() => decideGitHubDelivery(undefined, branchPush())).toThrow(/X-GitHub-Event/);
  });
});
