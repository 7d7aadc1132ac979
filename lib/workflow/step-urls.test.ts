import type { UrlSigning } from '../kube/index.js';
import { signingClock } from './step-urls.js';
import type { SigningCredentials } from './url-renewal.js';

const now = new Date('2026-01-01T10:00:00Z');
const save: Record<string, UrlSigning> = { SAVE_0: { how: 'put-new', object: 'cache/k', seconds: 7200 } };
const store = (credentials: SigningCredentials) => ({ signingCredentials: async () => credentials });

describe('when the URLs LaunchStep signs stop working', () => {
  it.each<[string, SigningCredentials, Record<string, UrlSigning>, string | undefined]>([
    ["a Lambda's session", { temporary: true }, save, '2026-01-01T10:15:00.000Z'],
    ['long-term keys', { temporary: false }, save, '2026-01-01T12:00:00.000Z'],
    ['no URL at all (nothing to restore, nothing to save): nothing to sign again', { temporary: true }, {}, undefined],
    ['no URL, long-term keys', { temporary: false }, {}, undefined],
  ])('%s', async (_what, credentials, signing, expected) => {
    expect((await signingClock(store(credentials), now))(signing)).toBe(expected);
  });
});
