import { ansiHtml, stripAnsi } from './ansi.js';

const ESC = '\u001b';

describe('terminal colours in build text', () => {
  it('become spans with classes for foreground, background, bright colours and bold', () => {
    const text = `${ESC}[31mred${ESC}[0m ${ESC}[1;32mok${ESC}[0m ${ESC}[41mbg${ESC}[49m ${ESC}[93mhi${ESC}[39m plain`;
    expect(ansiHtml(text).text).toBe(
      '<span class="ansi-red-fg">red</span> <span class="ansi-green-fg ansi-bold">ok</span> <span class="ansi-red-bg">bg</span> <span class="ansi-bright-yellow-fg">hi</span> plain',
    );
  });

  it('drop cursor and erase sequences, and an escape cut off from its sequence', () => {
    const text = `${ESC}[2K${ESC}[1Gnpm ${ESC}[?25lwarn${ESC}[?25h ${ESC}]8;;http://x${ESC}\\link${ESC}]8;;${ESC}\\ done${ESC}`;
    expect(ansiHtml(text).text).toBe('npm warn link done');
    expect(stripAnsi(text)).toBe('npm warn link done');
  });

  it('keep a hostile line inside colour codes as text', () => {
    const hostile = `${ESC}[31m<script>alert(1)</script>${ESC}[0m ${ESC}[1m<img src=x onerror=alert(2)>${ESC}[22m & "q"`;
    const out = ansiHtml(hostile).text;
    expect(out).not.toMatch(/<(script|img)/);
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(out).toContain('&amp; &quot;q&quot;');
    // No attribute but a class from Anser's fixed set.
    expect(out.match(/<span [^>]*>/g)).toEqual(['<span class="ansi-red-fg">', '<span class="ansi-bold">']);
  });

  it('strip colours entirely where the page has one line of plain text', () => {
    expect(stripAnsi(`${ESC}[1;31mError:${ESC}[0m failed <b>`)).toBe('Error: failed <b>');
  });
});
