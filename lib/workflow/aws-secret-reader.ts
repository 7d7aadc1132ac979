/**
 * The AWS SDK's reader of a step's AWS secrets (aws-secrets.ts): Secrets Manager's GetSecretValue
 * and SSM's GetParameter WithDecryption, signed with the step identity's credentials. Endpoints are
 * the SDK's own: AWS_ENDPOINT_URL_SECRETS_MANAGER, AWS_ENDPOINT_URL_SSM, else AWS_ENDPOINT_URL,
 * else AWS's ("Service-specific endpoints", AWS SDKs and Tools Reference Guide,
 * docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html; @smithy/core's
 * getEndpointUrlConfig reads them from the service id), so a local stand-in (moto) works unchanged.
 * A secret named by ARN is read in the ARN's region; any other in the runner's (AWS_REGION).
 * Each SDK client is loaded at its first read: most builds read no AWS secret, and LaunchStep (and
 * every local build) would otherwise load both clients' few hundred modules for nothing.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { AwsCredentialsProvider } from '../contract/aws-credentials.js';
import { SecretBinaryOnly, type AwsSecretReader } from './aws-secrets.js';

/** The region of an ARN (arn:PARTITION:SERVICE:REGION:...), or undefined for a name. */
export function arnRegion(id: string): string | undefined {
  if (!id.startsWith('arn:')) return undefined;
  return id.split(':')[3] || undefined;
}

export function sdkAwsSecretReader(credentials: AwsCredentialsProvider): AwsSecretReader {
  const secretsManager = new Map<string, SecretsManagerClient>();
  const ssm = new Map<string, SSMClient>();
  const client = <C>(clients: Map<string, C>, region: string | undefined, make: (config: { credentials: AwsCredentialsProvider; region?: string }) => C): C => {
    const key = region ?? '';
    let made = clients.get(key);
    if (!made) clients.set(key, (made = make({ credentials, ...(region ? { region } : {}) })));
    return made;
  };
  return {
    async secretString(secretId) {
      const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
      const answer = await client(secretsManager, arnRegion(secretId), (config) => new SecretsManagerClient(config)).send(new GetSecretValueCommand({ SecretId: secretId }));
      if (answer.SecretString === undefined) throw new SecretBinaryOnly('the secret holds binary data (SecretBinary) and no string: an environment variable cannot carry it');
      return answer.SecretString;
    },
    async parameter(name) {
      const { GetParameterCommand, SSMClient } = await import('@aws-sdk/client-ssm');
      const answer = await client(ssm, arnRegion(name), (config) => new SSMClient(config)).send(new GetParameterCommand({ Name: name, WithDecryption: true }));
      return answer.Parameter?.Value ?? '';
    },
    close() {
      for (const made of [...secretsManager.values(), ...ssm.values()]) made.destroy();
    },
  };
}
