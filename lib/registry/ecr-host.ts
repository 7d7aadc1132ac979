/** ECR's registry hosts, `<account>.dkr.ecr[-fips].<region>.amazonaws.com[.cn]`: pure, for the check and for Causes alike. */
const ECR_HOST_PATTERN = String.raw`(\d{12})\.dkr\.ecr(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?`;
const ECR_HOST = new RegExp(`^${ECR_HOST_PATTERN}$`);
const ECR_HOST_IN_TEXT = new RegExp(`(?<![\\w.-])${ECR_HOST_PATTERN}(?![\\w-]|\\.\\w)`);

export function ecrRegistry(registry: string): { accountId: string; region: string } | undefined {
  const match = ECR_HOST.exec(registry);
  return match ? { accountId: match[1]!, region: match[2]! } : undefined;
}

/** Whether a message or reference names an ECR registry anywhere (a URL, an image): for judging a runtime's words. */
export function mentionsEcrRegistry(text: string): boolean {
  return ECR_HOST_IN_TEXT.test(text);
}
