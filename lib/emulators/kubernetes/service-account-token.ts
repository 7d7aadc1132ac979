/**
 * Bound service account tokens, as kube-apiserver's TokenRequest issues them for a projected
 * `serviceAccountToken` volume: a JWT naming the account and the pod it is bound to, for one
 * audience, until an expiry (kubernetes/kubernetes pkg/serviceaccount/claims.go: `aud`, `exp`,
 * `iat`, `iss`, `jti`, `nbf`, `sub` = `system:serviceaccount:NS:NAME`, and `kubernetes.io` with the
 * namespace, node, pod and service account, each by name and uid). Signed with a key of this
 * cluster's (HS256 where the apiserver uses its RSA service-account key: only this cluster checks
 * the signature, as only the apiserver's TokenReview checks a real one). Pure but for the key.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

export interface BoundTokenRequest {
  /** One audience, or a TokenRequest's several. */
  audience: string | string[];
  expirationSeconds: number;
  namespace: string;
  serviceAccount: { name: string; uid: string };
  /** The pod it is bound to; none for a TokenRequest bound to nothing (token-request.ts). */
  pod?: { name: string; uid: string };
  /** The pod's node, once it has one (a gated pod has none). */
  node?: { name: string; uid: string };
}

export interface BoundTokenClaims {
  aud: string[];
  exp: number;
  iat: number;
  iss: string;
  jti: string;
  nbf: number;
  sub: string;
  'kubernetes.io': {
    namespace: string;
    node?: { name: string; uid: string };
    pod?: { name: string; uid: string };
    serviceaccount: { name: string; uid: string };
  };
}

export type TokenCheck = { ok: true; claims: BoundTokenClaims } | { ok: false; problem: string };

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

export class TokenIssuer {
  private readonly key: Buffer;

  constructor(
    readonly issuer: string,
    key: Buffer = randomBytes(32),
  ) {
    this.key = key;
  }

  mint(request: BoundTokenRequest, now: Date): string {
    const iat = Math.floor(now.getTime() / 1000);
    const claims: BoundTokenClaims = {
      aud: Array.isArray(request.audience) ? request.audience : [request.audience],
      exp: iat + request.expirationSeconds,
      iat,
      iss: this.issuer,
      jti: randomUUID(),
      nbf: iat,
      sub: `system:serviceaccount:${request.namespace}:${request.serviceAccount.name}`,
      'kubernetes.io': { namespace: request.namespace, ...(request.node ? { node: request.node } : {}), ...(request.pod ? { pod: request.pod } : {}), serviceaccount: request.serviceAccount },
    };
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${HEADER}.${payload}.${this.sign(`${HEADER}.${payload}`)}`;
  }

  /** The claims of a token this cluster issued for `audience`, still valid at `now`; or why not. */
  verify(token: string, audience: string, now: Date): TokenCheck {
    const parts = token.split('.');
    if (parts.length !== 3) return { ok: false, problem: 'the token is not a JWT' };
    const [header, payload, signature] = parts as [string, string, string];
    const expected = Buffer.from(this.sign(`${header}.${payload}`));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, problem: 'the token was not issued by this cluster (its signature does not verify)' };
    let claims: BoundTokenClaims;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as BoundTokenClaims;
    } catch {
      return { ok: false, problem: 'the token has no readable claims' };
    }
    const seconds = now.getTime() / 1000;
    if (!Array.isArray(claims.aud) || !claims.aud.includes(audience)) return { ok: false, problem: `the token is not for the audience ${audience}` };
    if (claims.exp <= seconds) return { ok: false, problem: 'the token has expired' };
    if (claims.nbf > seconds + 60) return { ok: false, problem: 'the token is not valid yet' };
    return { ok: true, claims };
  }

  private sign(input: string): string {
    return createHmac('sha256', this.key).update(input).digest('base64url');
  }
}
