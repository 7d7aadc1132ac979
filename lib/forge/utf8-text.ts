/**
 * Text measured and cut in UTF-8 bytes, for the fields GitHub limits by their bytesize though its
 * documentation says characters: a check run's `output.summary` and `output.text` ("summary
 * exceeds a maximum bytesize of 65535", github/docs#35252). A cut never splits a character: the
 * text is cut between code points, so the bytes sent are always valid UTF-8.
 */

const ELLIPSIS = '…';

/** How many bytes the text takes in UTF-8 (a lone surrogate as U+FFFD's 3, as encoding writes it). */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function codePointBytes(codePoint: number): number {
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

/** The longest start of `text` (whole code points) that fits in `max` bytes. */
function fittingStart(text: string, max: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += codePointBytes(char.codePointAt(0)!);
    if (bytes > max) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/**
 * At most `max` bytes of UTF-8: the text itself when it fits, else its start and `…`, at a word's
 * end when one is near (as commit-status.ts `truncate` cuts by characters).
 */
export function truncateUtf8(text: string, max: number): string {
  if (utf8Length(text) <= max) return text;
  const cut = fittingStart(text, max - utf8Length(ELLIPSIS));
  const space = cut.lastIndexOf(' ');
  const kept = space >= cut.length - 20 && space > 0 ? cut.slice(0, space) : cut;
  return `${kept.replace(/[\s,;:.-]+$/, '')}${ELLIPSIS}`;
}

/**
 * At most `max` bytes of UTF-8 from the end of `text`: the text itself when it fits, else `…`, a
 * line break and its last whole lines (or, when no line starts near the cut, its last whole code
 * points): the end of a log says the most.
 */
export function keepEndUtf8(text: string, max: number): string {
  if (utf8Length(text) <= max) return text;
  const room = max - utf8Length(`${ELLIPSIS}\n`);
  // The end, reversed by code point, is a start: cut as above, and turned back.
  const reversed = Array.from(text).reverse().join('');
  const end = Array.from(fittingStart(reversed, room)).reverse().join('');
  const newline = end.indexOf('\n');
  return `${ELLIPSIS}\n${newline >= 0 && newline < 200 ? end.slice(newline + 1) : end}`;
}
