/**
 * When the presigned URLs of a step's Secret (its cache's and its artifacts') must be signed again.
 * Pure; step-urls.ts does the signing and the Secret's update.
 *
 * A presigned URL works until the earlier of its own end (X-Amz-Date + X-Amz-Expires) and the end
 * of the credentials that signed it: "If you created a presigned URL by using a temporary token,
 * then the URL expires when the token expires, even if the URL was created with a later expiration
 * time" (S3 user guide, "Sharing objects with presigned URLs"; AWS Knowledge Center, "Why is my
 * presigned URL for an Amazon S3 bucket expiring before the expiration time that I specified?",
 * which adds that services assuming a role, "such as the AWS Lambda execution role, don't
 * necessarily comply with the role's session duration settings"). S3 checks a URL when a request
 * starts, not while it runs ("Amazon S3 checks the expiration date and time of a signed URL at the
 * time of the HTTP request"), so a URL need only be good when the sidecar starts its upload.
 *
 * A Lambda gets its role's session as AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
 * AWS_SESSION_TOKEN (Lambda developer guide, "Defined runtime environment variables"); it is told no
 * expiration (the SDK's fromEnv would read one from AWS_CREDENTIAL_EXPIRATION, which Lambda does not
 * set). Such a session is taken to last UNKNOWN_SESSION_SECONDS from the signature: the shortest
 * an STS session may be asked for (DurationSeconds, minimum 900), so the URLs are signed again
 * before any session could have ended. Credentials that name their expiration are taken at it;
 * long-term keys (no session token) end never.
 */

/** How long a session of unknown expiration is trusted after a signature: STS's shortest session. */
export const UNKNOWN_SESSION_SECONDS = 15 * 60;

/**
 * How long before the URLs' end they are signed again, beyond the time to the next chance to do it
 * (the next poll's wait and its watch): the kubelet's delay in bringing the Secret's new content into
 * the pod's volume ("the kubelet sync period + cache propagation delay", Kubernetes docs, "Mounted
 * Secrets are updated automatically"; syncFrequency defaults to 1 minute, and the watch-based
 * cache propagates in about a second), the Lambda's own time, and the upload's start.
 */
export const RENEW_MARGIN_SECONDS = 5 * 60;

/** What signed the URLs, as the store tells it (CacheStore.signingCredentials). */
export interface SigningCredentials {
  /** A session's (a role's) credentials, which end; false: long-term keys. */
  temporary: boolean;
  /** When they end, when the SDK knows it. */
  expiration?: Date | undefined;
}

/**
 * When a set of URLs signed at `signedAt` stops working: the earliest of each one's own end
 * (`seconds` each) and the signing credentials' end. Milliseconds since the epoch.
 */
export function urlsValidUntil(signedAt: number, seconds: readonly number[], credentials: SigningCredentials): number {
  // Math.min of no seconds is Infinity: no URL of its own to end.
  const own = signedAt + Math.min(...seconds) * 1000;
  const session = credentials.expiration
    ? credentials.expiration.getTime()
    : credentials.temporary
      ? signedAt + UNKNOWN_SESSION_SECONDS * 1000
      : Infinity;
  return Math.min(own, session);
}

/**
 * Whether the URLs must be signed now: they would stop working before the next chance to sign them
 * (`untilNextSeconds` from `now`) and the kubelet's delay in handing the new ones over have passed.
 */
export function renewDue(validUntil: number, now: number, untilNextSeconds: number): boolean {
  return validUntil - now <= (Math.max(0, untilNextSeconds) + RENEW_MARGIN_SECONDS) * 1000;
}
