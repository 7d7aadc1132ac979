/**
 * Who may stop and re-run builds on the local server. On loopback, whoever can reach it already
 * runs code on this machine; beyond it (`serve --host 0.0.0.0`), a request must carry the webhook
 * secret, as `Authorization: Bearer <secret>`. Either way a browser request from another site's
 * page is refused by its Origin, so a page elsewhere cannot press the buttons for its reader.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

export interface Refusal {
  status: number;
  error: string;
  message: string;
}

export type ControlGuard = (request: IncomingMessage) => Refusal | undefined;

/** Whether a listen address only this machine can reach. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1' || bare.startsWith('::ffff:127.');
}

export function controlGuard(options: { host: string; secrets: readonly (string | undefined)[] }): ControlGuard {
  const secrets = options.secrets.filter((s): s is string => typeof s === 'string' && s !== '');
  const needsSecret = !isLoopback(options.host);
  return (request) => {
    const origin = request.headers.origin;
    // An opaque origin ("null") has no host, so it is refused too.
    if (origin !== undefined && hostOf(origin) !== request.headers.host) {
      return { status: 403, error: 'CrossOriginRefused', message: 'Stop and re-run are only accepted from this server\'s own page or from scripts (no Origin).' };
    }
    if (!needsSecret) return undefined;
    if (secrets.length === 0) {
      return {
        status: 403,
        error: 'ControlNotConfigured',
        message: 'This server listens beyond loopback and has no webhook secret, so nobody may stop or re-run builds: start it with --secret (or GITHUB_WEBHOOK_SECRET).',
      };
    }
    const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (given === undefined) return { status: 401, error: 'MissingSecret', message: 'Send the webhook secret as "Authorization: Bearer <secret>".' };
    if (!secrets.some((secret) => sameSecret(secret, given))) return { status: 401, error: 'InvalidSecret', message: 'That is not the webhook secret.' };
    return undefined;
  };
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/** Compared as digests, so neither the length nor the content leaks through timing. */
function sameSecret(expected: string, given: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(expected), digest(given));
}
