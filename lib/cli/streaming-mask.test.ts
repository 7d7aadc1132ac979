import { secretNeedles } from '../kube/index.js';
import { StreamingMask } from './streaming-mask.js';

/** What is shown of `pieces`, each pushed in turn, then what was held let go. */
function shown(values: string[], pieces: string[]): { shown: string[]; end: string } {
  const mask = new StreamingMask(secretNeedles(values));
  return { shown: pieces.map((piece) => mask.push(piece)), end: mask.flush() };
}

describe('masking output that arrives in pieces', () => {
  test.each([
    ['a secret in one piece', ['hunter2'], ['token=hunter2\r\n'], { shown: ['token=***\r\n'], end: '' }],
    ['a secret cut across pieces: the start held until the rest comes', ['hunter2'], ['token=hun', 'ter2\r\n'], { shown: ['token=', '***\r\n'], end: '' }],
    ['a start of a secret that no rest follows: shown once let go', ['hunter2'], ['say hun'], { shown: ['say '], end: 'hun' }],
    ['the start held, then something else', ['hunter2'], ['hun', 'gry\r\n'], { shown: ['', 'hungry\r\n'], end: '' }],
    ['no secrets: everything at once', [], ['a', 'b'], { shown: ['a', 'b'], end: '' }],
    ['two secrets, the longer first', ['abc', 'abcdef'], ['x abcdef y abc'], { shown: ['x *** y ***'], end: '' }],
  ])('%s', (_, values, pieces, expected) => {
    expect(shown(values, pieces)).toEqual(expected);
  });
});
