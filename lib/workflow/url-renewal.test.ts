import { renewDue, urlsValidUntil, type SigningCredentials } from './url-renewal.js';

const signedAt = Date.parse('2026-01-01T10:00:00Z');
const at = (iso: string) => Date.parse(iso);
const longTerm: SigningCredentials = { temporary: false };
const lambdaSession: SigningCredentials = { temporary: true };
const namedSession = (iso: string): SigningCredentials => ({ temporary: true, expiration: new Date(iso) });

describe('when presigned URLs stop working', () => {
  it.each([
    ['long-term keys: the shortest URL lifetime', [3600, 7200], longTerm, '2026-01-01T11:00:00Z'],
    ['a session that names its end before the URLs: the session', [3600, 25 * 3600], namedSession('2026-01-01T10:40:00Z'), '2026-01-01T10:40:00Z'],
    ['a session that outlives the URLs: the URLs', [600], namedSession('2026-01-01T16:00:00Z'), '2026-01-01T10:10:00Z'],
    ["a Lambda's session, which names no end: STS's shortest session after the signature", [25 * 3600], lambdaSession, '2026-01-01T10:15:00Z'],
  ])('%s', (_what, seconds, credentials, expected) => {
    expect(urlsValidUntil(signedAt, seconds, credentials)).toBe(at(expected));
  });

  it('a Secret of no URL, signed with long-term keys, never ends', () => {
    expect(urlsValidUntil(signedAt, [], longTerm)).toBe(Infinity);
  });

});

describe('whether to sign them again now', () => {
  const validUntil = at('2026-01-01T11:00:00Z');
  it.each([
    ['well before their end, the next poll a minute away', '2026-01-01T10:00:00Z', 60, false],
    ['the next poll and the margin would end just before the URLs do', '2026-01-01T11:00:00Z', 0, true],
    // The margin is 5 minutes: a 4 minute watch and it reach 11:00 from 10:51.
    ['the next chance (a 4 min watch) and the margin reach their end', '2026-01-01T10:51:00Z', 240, true],
    ['the next chance and the margin end a second before the URLs', '2026-01-01T10:50:59Z', 240, false],
    ['already ended', '2026-01-01T12:00:00Z', 1, true],
    ['never ending', '2026-01-01T12:00:00Z', 60, false, Infinity],
  ])('%s', (_what, now, untilNext, due, until = validUntil) => {
    expect(renewDue(until as number, at(now as string), untilNext as number)).toBe(due);
  });
});
