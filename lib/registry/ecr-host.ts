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

/**
 * The ECR registry and repository an image reference (`HOST/REPOSITORY[:TAG][@DIGEST]`) names, or
 * undefined when its host is no ECR registry's: for a login (ecr-login.ts) and for a Cause alike.
 */
export function ecrRepositoryOf(reference: string): { host: string; accountId: string; region: string; repository: string } | undefined {
  const slash = reference.indexOf('/');
  if (slash < 0) return undefined;
  const host = reference.slice(0, slash).toLowerCase();
  const ecr = ecrRegistry(host);
  if (!ecr) return undefined;
  // A tag follows the last ':' after the last '/'; a digest follows '@'.
  return { host, ...ecr, repository: reference.slice(slash + 1).replace(/@.*$/, '').replace(/:[^:/]*$/, '') };
}
