/** ECR's registry hosts, `<account>.dkr.ecr[-fips].<region>.amazonaws.com[.cn]`: pure, for the check and for Causes alike. */
const ECR_HOST = /^(\d{12})\.dkr\.ecr(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/;

export function ecrRegistry(registry: string): { accountId: string; region: string } | undefined {
  const match = ECR_HOST.exec(registry);
  return match ? { accountId: match[1]!, region: match[2]! } : undefined;
}
