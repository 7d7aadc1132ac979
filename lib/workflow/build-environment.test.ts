import { buildEnvironment } from './build-environment.js';

describe('the build variables every step sees', () => {
  it('describe a push: its repository, commit, ref, branch, event and the workspace', () => {
    expect(
      buildEnvironment({ id: 'gh-app-1', trigger: 'github push', event: 'push', repository: 'team/app', commit: 'a'.repeat(40), ref: 'refs/heads/release/1.2' }),
    ).toEqual({
      CI: 'true',
      CI_BUILD_ID: 'gh-app-1',
      CI_REPOSITORY: 'team/app',
      CI_COMMIT_SHA: 'a'.repeat(40),
      CI_REF: 'refs/heads/release/1.2',
      CI_BRANCH: 'release/1.2',
      CI_EVENT: 'push',
      CI_WORKSPACE: '/workspace',
    });
  });

  it('leave out what the build does not know: no branch for a pull request ref, nothing for a bare local run', () => {
    expect(buildEnvironment({ id: 'p', event: 'pull_request', ref: 'refs/pull/7/head' })).not.toHaveProperty('CI_BRANCH');
    expect(buildEnvironment({ id: 'local-1' })).toEqual({ CI: 'true', CI_BUILD_ID: 'local-1', CI_WORKSPACE: '/workspace' });
  });

  it("give a manual run's inputs as CI_INPUT_<NAME>, over a --env variable of the same name", () => {
    expect(buildEnvironment({ id: 'm', event: 'manual', inputs: { target: 'staging', 'dry-run': 'true' }, variables: { CI_INPUT_TARGET: 'from --env' } })).toEqual({
      CI: 'true',
      CI_BUILD_ID: 'm',
      CI_EVENT: 'manual',
      CI_WORKSPACE: '/workspace',
      CI_INPUT_TARGET: 'staging',
      CI_INPUT_DRY_RUN: 'true',
    });
  });
});
