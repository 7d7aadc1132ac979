import { keepEndUtf8, truncateUtf8, utf8Length } from './utf8-text.js';
/** No lone surrogate: in `u` mode a pair is one code point, so only half of a character matches. */
const wellFormed = (text: string) => !/[\uD800-\uDFFF]/u.test(text);

// é: 2 bytes of UTF-8, 错: 3, 🔥: 4 (two UTF-16 code units).
describe('text cut in UTF-8 bytes', () => {
  it.each([
    ['ascii', 'abc', 3],
    ['é', 'é', 2],
    ['CJK', '错误', 6],
    ['emoji', '🔥', 4],
    ['mixed', 'aé错🔥', 10],
  ])('measures %s in bytes', (_what, text, expected) => {
    expect(utf8Length(text)).toBe(expected);
  });

  it.each([
    ['é', 'é'],
    ['CJK', '错'],
    ['emoji', '🔥'],
  ])('keeps a text of %s that fits to the byte, and cuts one a byte over between characters, … included', (_what, char) => {
    const text = char.repeat(100);
    const max = utf8Length(text);
    expect(truncateUtf8(text, max)).toBe(text);
    for (const limit of [max - 1, max - 2, max - 3, 50]) {
      const cut = truncateUtf8(text, limit);
      expect(utf8Length(cut)).toBeLessThanOrEqual(limit);
      // Whole characters, then the ellipsis: as many as fit beside its 3 bytes.
      expect(cut).toBe(`${char.repeat(Math.floor((limit - 3) / utf8Length(char)))}…`);
      expect(wellFormed(cut)).toBe(true);
    }
  });

  it.each([
    ['é', 'é'],
    ['CJK', '错'],
    ['emoji', '🔥'],
  ])('keeps the end of a log of %s within the bytes, at a line start, never half a character', (_what, char) => {
    const log = Array.from({ length: 200 }, (_, i) => `${i}${char.repeat(10)}`).join('\n');
    expect(keepEndUtf8(log, utf8Length(log))).toBe(log);
    const end = keepEndUtf8(log, 1_000);
    expect(utf8Length(end)).toBeLessThanOrEqual(1_000);
    expect(end.startsWith('…\n')).toBe(true);
    expect(end.endsWith(`199${char.repeat(10)}`)).toBe(true);
    // Whole lines after the mark.
    expect(end.split('\n').slice(1).every((line) => new RegExp(`^\\d+(${char}){10}$`, 'u').test(line))).toBe(true);
    // One line longer than the room: its last whole characters.
    const long = keepEndUtf8(char.repeat(1_000), 101);
    expect(utf8Length(long)).toBeLessThanOrEqual(101);
    expect(long).toBe(`…\n${char.repeat(Math.floor((101 - 4) / utf8Length(char)))}`);
    expect(wellFormed(long)).toBe(true);
  });
});
