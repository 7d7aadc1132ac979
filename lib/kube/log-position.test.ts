import { LogLines, linesAfter, rotationGapNote, sinceTimeOf, type LogPosition } from './log-position.js';

const T1 = '2026-12-01T13:31:22.1Z';
const T2 = '2026-12-01T13:31:22.12Z'; // later than T1, though it sorts before it as text
const T3 = '2026-12-01T13:31:23.000000001Z';
const log = (...lines: [string, string][]) => lines.map(([time, text]) => `${time} ${text}\n`).join('');

describe('linesAfter: one read, after what a copy has', () => {
  it.each<[string, string, LogPosition | undefined, string, LogPosition | undefined]>([
    ['everything from the start', log([T1, 'a'], [T2, 'b']), undefined, 'a\nb\n', { lastTime: T2, sameTime: 1 }],
    ['nothing new', log([T1, 'a']), { lastTime: T1, sameTime: 1 }, '', { lastTime: T1, sameTime: 1 }],
    ['what follows the last kept line, by time not by text', log([T1, 'a'], [T2, 'b'], [T3, 'c']), { lastTime: T1, sameTime: 1 }, 'b\nc\n', { lastTime: T3, sameTime: 1 }],
    ['lines sharing the last instant: only those not kept yet', log([T1, 'a'], [T1, 'b'], [T1, 'c']), { lastTime: T1, sameTime: 2 }, 'c\n', { lastTime: T1, sameTime: 3 }],
    ['several lines of one new instant count up', log([T1, 'a'], [T3, 'x'], [T3, 'y']), { lastTime: T1, sameTime: 1 }, 'x\ny\n', { lastTime: T3, sameTime: 2 }],
    ['an unterminated last line of an ended log is whole', `${log([T1, 'a'])}${T2} end`, undefined, 'a\nend\n', { lastTime: T2, sameTime: 1 }],
    ['a line without a timestamp is kept as it is', 'plain\n', { lastTime: T1, sameTime: 1 }, 'plain\n', { lastTime: T1, sameTime: 1 }],
  ])('%s', (_, text, from, expected, position) => {
    expect(linesAfter(text, from)).toEqual({ text: expected, position });
  });

  it('keeps every line once however the reads are cut', () => {
    const whole = log([T1, 'one'], [T1, 'two'], [T2, 'three'], [T3, 'four'], [T3, 'five']);
    for (let cut = 0; cut <= whole.length; cut++) {
      // The first read (a follow) stops anywhere; the second starts again at the second of what was kept.
      const first = new LogLines(undefined);
      const kept = first.push(whole.slice(0, cut));
      expect(kept + linesAfter(whole, first.position).text).toBe('one\ntwo\nthree\nfour\nfive\n');
    }
  });
});

describe('after the kubelet rotated the log (a read sees only its current file)', () => {
  it('a read that no longer holds the last line kept says where lines are missing, then goes on', () => {
    // Rotated since: the current file begins at T3, and what came between T1 and T3 is gone.
    expect(linesAfter(log([T3, 'c'], [T3, 'd']), { lastTime: T1, sameTime: 1 })).toEqual({ text: `${rotationGapNote(T1, T3)}c\nd\n`, position: { lastTime: T3, sameTime: 2 } });
  });

  it('lines of the last instant kept, fewer than were kept: the rotation fell among them', () => {
    expect(linesAfter(log([T1, 'b'], [T2, 'c']), { lastTime: T1, sameTime: 2 }).text).toBe(`${rotationGapNote(T1, T2)}c\n`);
  });

  it('a read that holds the last line kept, at the very start of a new file, is whole: no note', () => {
    expect(linesAfter(log([T1, 'a'], [T2, 'b']), { lastTime: T1, sameTime: 1 }).text).toBe('b\n');
  });

  it('an empty current file says nothing yet; the first read with a line in it does', () => {
    const from = { lastTime: T1, sameTime: 1 };
    expect(linesAfter('', from)).toEqual({ text: '', position: from });
    const reader = new LogLines(from);
    expect(reader.push(`${T2} fi`)).toBe('');
    expect(reader.push('rst\n')).toBe(`${rotationGapNote(T1, T2)}first\n`);
    expect(reader.push(`${T3} second\n`)).toBe('second\n');
  });

  it('a copy from the start has nothing to miss: no note', () => {
    expect(linesAfter(log([T2, 'b']), undefined).text).toBe('b\n');
  });

  it('names both times as the kubelet printed them', () => {
    expect(rotationGapNote('2026-12-01T13:31:22.1Z', '2026-12-01T13:31:40.000000001Z')).toBe(
      '[step-runner: the kubelet rotated this log between two reads; whatever the step printed after 2026-12-01T13:31:22.1Z and before 2026-12-01T13:31:40.000000001Z is not in this copy]\n',
    );
  });
});

describe('LogLines: a followed read, as it arrives', () => {
  it('passes on every new line of one instant, whatever chunks they come in', () => {
    // Many lines share a timestamp (a chatty step); only the re-read start of a follow is skipped.
    const reader = new LogLines({ lastTime: T1, sameTime: 1 });
    const data = log([T1, 'kept before'], [T1, 'new 1'], [T1, 'new 2'], [T1, 'new 3'], [T2, 'later']);
    let out = '';
    for (const chunk of data.match(/[\s\S]{1,7}/g)!) out += reader.push(chunk);
    expect(out).toBe('new 1\nnew 2\nnew 3\nlater\n');
    expect(reader.position).toEqual({ lastTime: T2, sameTime: 1 });
  });

  it('holds back an unterminated line until its end comes', () => {
    const reader = new LogLines(undefined);
    expect(reader.push(`${T1} hal`)).toBe('');
    expect(reader.push('f\n')).toBe('half\n');
  });
});

describe('sinceTimeOf', () => {
  it('starts a read at the whole second of the last line kept', () => {
    expect(sinceTimeOf({ lastTime: '2026-12-01T13:31:22.999999999Z', sameTime: 1 })).toBe('2026-12-01T13:31:22Z');
    expect(sinceTimeOf(undefined)).toBeUndefined();
  });
});
