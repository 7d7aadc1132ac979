import { genericWebhookUrl, parseTriggerArgs, triggerPayload } from './trigger-args.js';
import { UsageError } from './usage.js';

const env = { STEP_RUNNER_URL: 'https://abc.execute-api.eu-west-1.amazonaws.com', STEP_RUNNER_WEBHOOK_SECRET: 's3cret' };

describe('step-runner trigger: its command line', () => {
  test.each([
    [
      ['--repository', 'acme/site', '--ref', 'main', '--input', 'target=staging', '--input', 'note=a=b'],
      { repository: 'acme/site', ref: 'refs/heads/main', inputs: { target: 'staging', note: 'a=b' }, url: 'https://abc.execute-api.eu-west-1.amazonaws.com/webhook/generic', secret: 's3cret', json: false },
    ],
    [
      ['--repository', 'acme/site', '--ref', 'refs/tags/v1', '--url', 'http://127.0.0.1:3000/', '--commit', 'a'.repeat(40), '--json'],
      { repository: 'acme/site', ref: 'refs/tags/v1', inputs: {}, commit: 'a'.repeat(40), url: 'http://127.0.0.1:3000/webhook/generic', secret: 's3cret', json: true },
    ],
  ])('%j', (argv, options) => {
    expect(parseTriggerArgs(argv, env)).toEqual({ help: false, ...options });
  });

  test.each([
    [['--ref', 'main'], env, '--repository is required (owner/name)'],
    [['--repository', 'site', '--ref', 'main'], env, '--repository must be owner/name, got "site"'],
    [['--repository', 'acme/site'], env, '--ref is required'],
    [['--repository', 'acme/site', '--ref', 'refs/pull/1/head'], env, '--ref must be a branch or a tag'],
    [['--repository', 'acme/site', '--ref', 'main', '--input', 'target'], env, '--input "target" is not NAME=VALUE'],
    [['--repository', 'acme/site', '--ref', 'main', '--input', 'a=1', '--input', 'a=2'], env, '--input a is given twice'],
    [['--repository', 'acme/site', '--ref', 'main', '--commit', 'abc'], env, '--commit must be a full 40-character commit sha'],
    [['--repository', 'acme/site', '--ref', 'main'], { STEP_RUNNER_WEBHOOK_SECRET: 's' }, '--url (or $STEP_RUNNER_URL) is required'],
    [['--repository', 'acme/site', '--ref', 'main'], { STEP_RUNNER_URL: 'http://x' }, '$STEP_RUNNER_WEBHOOK_SECRET is required'],
    [['--repository', 'acme/site', '--ref', 'main', '--url', 'ftp://x'], env, '--url must be an http:// or https:// URL, got "ftp://x"'],
  ])('refuses %j', (argv, given, message) => {
    expect(() => parseTriggerArgs(argv, given)).toThrow(UsageError);
    expect(() => parseTriggerArgs(argv, given)).toThrow(message);
  });

  test.each([
    ['http://127.0.0.1:3000', 'http://127.0.0.1:3000/webhook/generic'],
    ['https://ci.example.com/prod/', 'https://ci.example.com/prod/webhook/generic'],
    ['https://ci.example.com/webhook/generic', 'https://ci.example.com/webhook/generic'],
  ])('sends to %s as %s', (given, url) => {
    expect(genericWebhookUrl(given)).toBe(url);
  });

  it('sends the generic webhook a manual run with no pipeline, so the repository\'s own is read', () => {
    expect(triggerPayload({ repository: 'acme/site', ref: 'refs/heads/main', inputs: { target: 'staging' } })).toEqual({ repository: 'acme/site', ref: 'refs/heads/main', event: 'manual', inputs: { target: 'staging' } });
  });
});
