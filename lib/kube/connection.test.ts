import { DescribeClusterCommand, EKSClient, ResourceNotFoundException } from '@aws-sdk/client-eks';
import { mockClient } from 'aws-sdk-client-mock';
import { KubernetesUnavailable } from './errors.js';
import { EksConnectionCache, kubeConfigForEks } from './connection.js';
import { EKS_TOKEN_PREFIX } from './eks-token.js';

describe('kubeConfigForEks', () => {
  const eksMock = mockClient(EKSClient);
  const credentials = async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' });
  const activeCluster = {
    cluster: {
      name: 'ci',
      status: 'ACTIVE' as const,
      endpoint: 'https://ABCDEF.gr7.eu-west-1.eks.amazonaws.com',
      certificateAuthority: { data: Buffer.from('-----BEGIN CERTIFICATE-----\n').toString('base64') },
    },
  };

  beforeEach(() => eksMock.reset());
  afterAll(() => eksMock.restore());

  function setup(start = new Date('2026-03-14T10:00:00Z')) {
    let now = start;
    return {
      advance: (ms: number) => (now = new Date(now.getTime() + ms)),
      options: {
        clusterName: 'ci',
        region: 'eu-west-1',
        credentials,
        eksClient: new EKSClient({ region: 'eu-west-1', credentials }),
        now: () => now,
        cache: new EksConnectionCache(),
      },
    };
  }

  function token(kubeConfig: { getCurrentUser(): { token?: string } | null }) {
    return kubeConfig.getCurrentUser()?.token ?? '';
  }

  it('connects to the endpoint with the cluster CA and an IAM token', async () => {
    eksMock.on(DescribeClusterCommand, { name: 'ci' }).resolves(activeCluster);
    const kubeConfig = await kubeConfigForEks(setup().options);
    const cluster = kubeConfig.getCurrentCluster();
    expect(cluster?.server).toBe(activeCluster.cluster.endpoint);
    expect(cluster?.caData).toBe(activeCluster.cluster.certificateAuthority.data);
    expect(cluster?.skipTLSVerify).toBe(false);
    expect(token(kubeConfig).startsWith(EKS_TOKEN_PREFIX)).toBe(true);
  });

  it('reuses endpoint and token within the token life, and renews both after', async () => {
    eksMock.on(DescribeClusterCommand).resolves(activeCluster);
    const { options, advance } = setup();
    const first = token(await kubeConfigForEks(options));
    advance(5 * 60_000);
    expect(token(await kubeConfigForEks(options))).toBe(first);
    expect(eksMock.commandCalls(DescribeClusterCommand)).toHaveLength(1);

    advance(6 * 60_000);
    const renewed = token(await kubeConfigForEks(options));
    expect(renewed).not.toBe(first);
    expect(renewed.startsWith(EKS_TOKEN_PREFIX)).toBe(true);
    expect(eksMock.commandCalls(DescribeClusterCommand)).toHaveLength(2);
  });

  it('shares one DescribeCluster between concurrent callers', async () => {
    eksMock.on(DescribeClusterCommand).resolves(activeCluster);
    const { options } = setup();
    const tokens = (await Promise.all([1, 2, 3].map(() => kubeConfigForEks(options)))).map(token);
    expect(new Set(tokens).size).toBe(1);
    expect(eksMock.commandCalls(DescribeClusterCommand)).toHaveLength(1);
  });

  it('refuses a cluster that is not ACTIVE, and tries again next time', async () => {
    eksMock
      .on(DescribeClusterCommand)
      .resolvesOnce({ cluster: { ...activeCluster.cluster, status: 'UPDATING' } })
      .resolves(activeCluster);
    const { options } = setup();
    const error = await kubeConfigForEks(options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesUnavailable);
    expect((error as Error).message).toBe('EKS cluster "ci" is UPDATING, not ACTIVE: its API cannot run steps now');
    await expect(kubeConfigForEks(options)).resolves.toBeDefined();
  });

  it('refuses a cluster without an endpoint', async () => {
    eksMock.on(DescribeClusterCommand).resolves({ cluster: { ...activeCluster.cluster, endpoint: undefined } });
    await expect(kubeConfigForEks(setup().options)).rejects.toThrow('EKS cluster "ci" has no API endpoint yet');
  });

  it('names a cluster that does not exist', async () => {
    eksMock
      .on(DescribeClusterCommand)
      .rejects(new ResourceNotFoundException({ message: 'No cluster found for name: ci.', $metadata: {} }));
    await expect(kubeConfigForEks(setup().options)).rejects.toThrow(
      'Cannot reach EKS cluster "ci": no such cluster in this account and region',
    );
  });
});
