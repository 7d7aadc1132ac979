import { listPage, listParameters } from './list-objects.js';
import type { ObjectInfo } from './object-store.js';
import { compareKeys } from './object-store.js';

const objects: ObjectInfo[] = ['a/1', 'a/2', 'b/x/1', 'b/x/2', 'b/y', 'c', '\u{1F600}', '\uFFFD']
  .sort(compareKeys)
  .map((key) => ({ key, size: 1, etag: '"e"', lastModified: 0, contentType: 'binary/octet-stream' }));

const keysOf = (query: string) => {
  const page = listPage(objects, listParameters(new URLSearchParams(query)));
  return { keys: page.contents.map((o) => o.key), prefixes: page.commonPrefixes, truncated: page.isTruncated };
};

describe('ListObjectsV2 pages', () => {
  it('orders keys by their UTF-8 bytes, as S3 does (U+FFFD before an emoji)', () => {
    expect(objects.slice(-2).map((o) => o.key)).toEqual(['\uFFFD', '\u{1F600}']);
  });

  it.each([
    ['prefix=a/', { keys: ['a/1', 'a/2'], prefixes: [], truncated: false }],
    ['prefix=b/&delimiter=/', { keys: ['b/y'], prefixes: ['b/x/'], truncated: false }],
    ['delimiter=/&max-keys=2', { keys: [], prefixes: ['a/', 'b/'], truncated: true }],
    ['start-after=b/x/2&max-keys=1', { keys: ['b/y'], prefixes: [], truncated: true }],
    ['prefix=zzz', { keys: [], prefixes: [], truncated: false }],
  ])('%s', (query, expected) => {
    expect(keysOf(query)).toEqual(expected);
  });

  it('walks every key once, page by page, also across rolled-up prefixes', () => {
    for (const delimiter of ['', '/']) {
      const seen: string[] = [];
      let token: string | undefined;
      do {
        const query = new URLSearchParams({ 'max-keys': '1', ...(delimiter ? { delimiter } : {}), ...(token ? { 'continuation-token': token } : {}) });
        const page = listPage(objects, listParameters(query));
        seen.push(...page.contents.map((o) => o.key), ...page.commonPrefixes);
        token = page.nextContinuationToken;
      } while (token);
      expect(seen).toEqual(delimiter ? ['a/', 'b/', 'c', '\uFFFD', '\u{1F600}'] : objects.map((o) => o.key));
    }
  });

  it('refuses a max-keys that is not a number and a token it did not make', () => {
    expect(() => listParameters(new URLSearchParams('max-keys=ten'))).toThrow(/max-keys/);
    expect(() => listPage(objects, listParameters(new URLSearchParams('continuation-token=not*base64')))).toThrow(/continuation token/);
  });
});
