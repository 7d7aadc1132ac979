import type { AwsCredentials } from '../contract/aws-credentials.js';
import { clusterRoleCredentials } from './cluster-credentials.js';

const ROLE = 'arn:aws:iam::123456789012:role/serverless-step-runner-dev-EksClusterRole-AbC';

/** An STS stand-in: each AssumeRole a session of an hour from `now`, numbered. */
function sts(now: () => Date) {
  let sessions = 0;
  const assume = async (): Promise<AwsCredentials> => {
    sessions += 1;
    return { accessKeyId: `ASIA${sessions}`, secretAccessKey: 's', sessionToken: 't', expiration: new Date(now().getTime() + 3_600_000) };
  };
  return { assume, sessions: () => sessions };
}

describe('clusterRoleCredentials', () => {
  it('assumes the role once per session, not once per token, and again before the session runs short', async () => {
    let at = new Date('2026-12-06T00:00:00Z');
    const now = () => at;
    const stub = sts(now);
    const credentials = clusterRoleCredentials({ roleArn: ROLE, region: 'eu-west-1', assume: stub.assume, now });
    // A token every 10 minutes (EKS_TOKEN_RENEW_AFTER_MS) for half an hour: the same session.
    for (let minute = 0; minute <= 30; minute += 10) {
      at = new Date(Date.parse('2026-12-06T00:00:00Z') + minute * 60_000);
      expect((await credentials()).accessKeyId).toBe('ASIA1');
    }
    // 20 minutes left of the hour: too little for a token's 15 and its use.
    at = new Date(Date.parse('2026-12-06T00:40:00Z'));
    expect((await credentials()).accessKeyId).toBe('ASIA2');
    expect(stub.sessions()).toBe(2);
  });

  it('asks again after a refusal, rather than keeping it', async () => {
    let calls = 0;
    const assume = async (): Promise<AwsCredentials> => {
      calls += 1;
      if (calls === 1) throw Object.assign(new Error('not authorized to perform: sts:AssumeRole'), { name: 'AccessDenied' });
      return { accessKeyId: 'ASIA', secretAccessKey: 's', expiration: new Date(Date.now() + 3_600_000) };
    };
    const credentials = clusterRoleCredentials({ roleArn: ROLE, region: 'eu-west-1', assume });
    await expect(credentials()).rejects.toThrow(/sts:AssumeRole/);
    await expect(credentials()).resolves.toMatchObject({ accessKeyId: 'ASIA' });
  });
});
