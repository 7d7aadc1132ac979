/**
 * The identity a function talks to the cluster as, against moto's STS (an implementation apart
 * from ours): the function's own credentials assume EksClusterRole, the session is named after
 * the function, and the EKS token is signed with that session's key, so the authenticator's
 * GetCallerIdentity answers the role the cluster's access entry maps.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentials } from '../contract/aws-credentials.js';
import { MOTO_CREDENTIALS, MOTO_REGION, motoServerInstalled, startMotoServer, type MotoServer } from '../../test/fixtures/moto-server.js';
import { describeRequiring } from '../../test/fixtures/requirements.js';
import { EKS_TOKEN_PREFIX, eksToken } from '../kube/eks-token.js';
import { clusterRoleCredentials } from './cluster-credentials.js';

/** STS GetCallerIdentity, signed with `credentials` as any SDK would sign it, asked of `endpoint`. */
async function callerArn(endpoint: string, credentials: AwsCredentials): Promise<string | undefined> {
  const url = new URL(endpoint);
  const body = 'Action=GetCallerIdentity&Version=2011-06-15';
  const signer = new SignatureV4({ credentials, region: MOTO_REGION, service: 'sts', sha256: Sha256 });
  const signed = await signer.sign(
    new HttpRequest({ method: 'POST', protocol: url.protocol, hostname: url.hostname, port: Number(url.port), path: '/', headers: { host: url.host, 'content-type': 'application/x-www-form-urlencoded' }, body }),
  );
  const answer = await (await fetch(`${endpoint}/`, { method: 'POST', headers: signed.headers, body })).text();
  return /<Arn>([^<]*)<\/Arn>/.exec(answer)?.[1];
}

const ROLE = 'arn:aws:iam::123456789012:role/serverless-step-runner-dev-EksClusterRole-AbC';

describeRequiring('the cluster identity, against moto STS', motoServerInstalled, () => {
  let moto: MotoServer;
  beforeAll(async () => {
    moto = await startMotoServer();
  }, 60_000);
  afterAll(() => moto?.stop());

  it("signs the EKS token with EksClusterRole's session, named after the function", async () => {
    const credentials = clusterRoleCredentials({
      roleArn: ROLE,
      region: MOTO_REGION,
      // Lambda's AWS_LAMBDA_FUNCTION_NAME; a character a session name may not hold becomes '-'.
      sessionName: 'serverless-step-runner-dev-prepareBuild',
      sts: { endpoint: moto.endpoint, credentials: MOTO_CREDENTIALS },
    });
    const assumed = await credentials();
    expect(assumed.accessKeyId).not.toBe(MOTO_CREDENTIALS.accessKeyId);
    // STS says who these credentials are: the role's session, as EKS's authenticator will hear it.
    expect(await callerArn(moto.endpoint, assumed)).toBe('arn:aws:sts::123456789012:assumed-role/serverless-step-runner-dev-EksClusterRole-AbC/serverless-step-runner-dev-prepareBuild');
    // The token's presigned GetCallerIdentity is signed with that session's key.
    const { token } = await eksToken({ clusterName: 'ci', region: MOTO_REGION, credentials });
    const presigned = new URL(Buffer.from(token.slice(EKS_TOKEN_PREFIX.length), 'base64url').toString('utf8'));
    expect(presigned.searchParams.get('X-Amz-Credential')).toMatch(new RegExp(`^${assumed.accessKeyId}/`));
    expect(presigned.searchParams.get('X-Amz-Security-Token')).toBe(assumed.sessionToken);
  });
});
