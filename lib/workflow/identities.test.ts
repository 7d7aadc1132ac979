import { branchPush, pullRequest } from '../../test/fixtures/webhooks/examples.js';
import { decideGitHubDelivery } from '../forge/github-event.js';
import { parsePipeline } from '../pipeline/index.js';
import { checkIdentities, checkStepIdentities, identityVerdict, IdentityNotAllowed, type Identity, type IdentityBuild } from './identities.js';

/** The build a real GitHub delivery starts (the webhook's own mapping), as PrepareBuild sees it. */
function deliveredBuild(event: string, payload: unknown): IdentityBuild {
  const decision = decideGitHubDelivery(event, payload, { buildForkPullRequests: true });
  if (decision.kind !== 'build') throw new Error(`the delivery starts no build: ${JSON.stringify(decision)}`);
  const { repository, ref, event: kind, baseRef, pullRequest: pr } = decision.request;
  return { repository, ref, event: kind, ...(baseRef ? { baseRef } : {}), ...(pr ? { pullRequest: pr } : {}) };
}

const push = () => deliveredBuild('push', branchPush());
/** GitHub tag pushes start no build today; a tag build (a generic delivery's, say) reads as a push of a tag ref. */
const tag = (): IdentityBuild => ({ ...push(), ref: 'refs/tags/v1.2.0' });
const pr = () => deliveredBuild('pull_request', pullRequest('opened'));
/** The same pull request opened from a fork: GitHub names the head's own repository. */
function forkPr(): IdentityBuild {
  const payload = pullRequest('opened') as { pull_request: { head: { repo: Record<string, unknown> } } };
  payload.pull_request.head.repo = { ...payload.pull_request.head.repo, id: 99, full_name: 'mallory/Hello-World', fork: true };
  return deliveredBuild('pull_request', payload);
}

const deploy = (rules: Partial<NonNullable<Identity['rules']>> = {}): Identity => ({
  name: 'deploy',
  roleArn: 'arn:aws:iam::123456789012:role/deploy',
  rules: { repositories: ['Codertocat/*'], refs: ['refs/heads/master', 'refs/tags/v*'], events: ['push', 'tag', 'pull_request'], forks: false, ...rules },
});

describe('which builds an identity allows', () => {
  it.each([
    ['a push to a named branch', push, deploy(), undefined],
    ['a tag the refs name', tag, deploy(), undefined],
    ['a pull request into a named branch, from the repository itself', pr, deploy(), undefined],
    ['a fork\'s pull request, however the rest matches', forkPr, deploy(), 'forks'],
    ['a fork\'s pull request when the identity says forks: true', forkPr, deploy({ forks: true }), undefined],
    ['another repository', push, deploy({ repositories: ['acme/site'] }), 'repositories [acme/site]'],
    ['a push to a branch the refs do not name', push, deploy({ refs: ['refs/heads/main'] }), 'refs [refs/heads/main]'],
    ['a pull request into a branch the refs do not name', pr, deploy({ refs: ['refs/tags/*'] }), 'refs [refs/tags/*]'],
    ['a tag when only pushes are allowed', tag, deploy({ events: ['push'] }), 'events [push]'],
    ['a pull request when only pushes are allowed', pr, deploy({ events: ['push'] }), 'events [push]'],
    ['a pull request matched by its head ref, never', pr, deploy({ refs: ['refs/pull/**'] }), 'refs [refs/pull/**]'],
  ])('%s', (_what, build, identity, refusedBy) => {
    const verdict = identityVerdict(identity, build());
    if (refusedBy === undefined) expect(verdict).toEqual({ allowed: true });
    else expect(verdict).toEqual({ allowed: false, rule: expect.stringContaining(refusedBy) });
  });

  it('allows every build an identity declared for a local run (no rules)', () => {
    expect(identityVerdict({ name: 'deploy', roleArn: 'arn:aws:iam::123456789012:role/deploy' }, { event: 'local' })).toEqual({ allowed: true });
  });
});

describe('a pipeline that asks for an identity', () => {
  const file = '.step-runner.yml';
  const pipeline = parsePipeline(['version: 1', 'identity: deploy', 'steps:', '  - name: test', '    image: alpine:3.20', '    commands: ["true"]', '  - name: ship', '    image: alpine:3.20', '    identity: publish', '    commands: ["true"]'].join('\n'), file);

  it('gives each step its own identity, or the pipeline\'s', () => {
    expect(pipeline.steps.map((s) => [s.name, s.identity, s.identityLine])).toEqual([['test', 'deploy', 2], ['ship', 'publish', 9]]);
  });

  it('is refused at the line when the deployment does not declare it', () => {
    expect(() => checkStepIdentities(pipeline.steps, [deploy()], push(), file)).toThrow(
      '.step-runner.yml line 9: step "ship": identity: "publish" is not an identity this deployment declares (it declares "deploy"; a local run declares one with --identity publish=ROLE_ARN)',
    );
  });

  it('fails IdentityNotAllowed naming the identity, the rule and the build', () => {
    const error = (() => {
      try {
        checkStepIdentities(pipeline.steps.slice(0, 1), [deploy()], forkPr(), file);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(IdentityNotAllowed);
    expect((error as Error).name).toBe('IdentityNotAllowed');
    expect((error as Error).message).toBe(
      'Step "test" asks for the identity "deploy", whose rule forks (a pull request from a fork, and the identity does not say forks: true) does not allow this build: ' +
        'repository Codertocat/Hello-World, ref refs/pull/2/head (into refs/heads/master), event pull_request, from a fork. ' +
        'The deployment\'s rules decide who may use an identity; the pipeline file cannot.',
    );
  });

  it.each([
    ['identity: Deploy', 'must use only lowercase letters'],
    ['identity: [a, b]', 'must be text, not a list'],
    [`identity: ${'a'.repeat(49)}`, 'at most 48'],
  ])('refuses %s with its line', (line, words) => {
    expect(() => parsePipeline(['version: 1', line, 'steps:', '  - name: a', '    image: alpine', '    commands: ["true"]'].join('\n'), file)).toThrow(
      expect.objectContaining({ name: 'InvalidPipeline', message: expect.stringMatching(new RegExp(`line 2: identity: .*${words.replace(/[[\]]/g, '\\$&')}`)) }),
    );
  });
});

describe('the deployment\'s identities setting', () => {
  it('reads a map of identities, forks false unless said', () => {
    expect(checkIdentities({ deploy: { role: 'arn:aws:iam::123456789012:role/ci/deploy', repositories: 'acme/*', refs: ['refs/heads/main'], events: ['push'] } })).toEqual({
      ok: true,
      value: [{ name: 'deploy', roleArn: 'arn:aws:iam::123456789012:role/ci/deploy', rules: { repositories: ['acme/*'], refs: ['refs/heads/main'], events: ['push'], forks: false } }],
    });
  });

  it.each([
    ['a list', [], 'must be a map of identity name'],
    ['a bad name', { Deploy: { role: 'arn:aws:iam::123456789012:role/d', repositories: ['**'], refs: ['**'], events: ['push'] } }, 'identity "Deploy": "Deploy" must use only lowercase'],
    ['no role', { deploy: { repositories: ['**'], refs: ['**'], events: ['push'] } }, 'identity "deploy", role: must be an IAM role\'s ARN'],
    ['a user, not a role', { deploy: { role: 'arn:aws:iam::123456789012:user/d', repositories: ['**'], refs: ['**'], events: ['push'] } }, 'identity "deploy", role'],
    ['no refs', { deploy: { role: 'arn:aws:iam::123456789012:role/d', repositories: ['**'], events: ['push'] } }, 'identity "deploy", refs: must list at least one ref glob'],
    ['an unknown event', { deploy: { role: 'arn:aws:iam::123456789012:role/d', repositories: ['**'], refs: ['**'], events: ['deploy'] } }, 'identity "deploy", events: "deploy" is not one of push'],
    ['forks as text', { deploy: { role: 'arn:aws:iam::123456789012:role/d', repositories: ['**'], refs: ['**'], events: ['push'], forks: 'yes' } }, 'identity "deploy", forks: must be true or false'],
    ['a misspelt field', { deploy: { role: 'arn:aws:iam::123456789012:role/d', repositories: ['**'], refs: ['**'], events: ['push'], branches: ['main'] } }, 'identity "deploy": unknown field "branches"'],
  ])('refuses %s, naming the identity and the field', (_what, value, words) => {
    const result = checkIdentities(value);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems).toEqual(expect.arrayContaining([expect.stringContaining(words)]));
  });
});
