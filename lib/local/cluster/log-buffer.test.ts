import { LogBuffer } from './log-buffer.js';

const clock = () => new Date('2026-03-04T05:06:07.890Z');

test('stdout and stderr interleave by line, tail and limitBytes cut as the API does', () => {
  const log = new LogBuffer(clock);
  log.write('stdout', 'one\ntw');
  log.write('stderr', 'warn\n');
  log.write('stdout', 'o\nthree');
  expect(log.read()).toBe('one\nwarn\ntwo\n');
  log.end();
  expect(log.read()).toBe('one\nwarn\ntwo\nthree');
  expect(log.read({ tailLines: 2 })).toBe('two\nthree');
  expect(log.read({ tailLines: 0 })).toBe('');
  expect(log.read({ limitBytes: 6 })).toBe('one\nwa');
  expect(log.read({ tailLines: 1, timestamps: true })).toBe('2026-03-04T05:06:07.890000000Z three');
});

test('memory is bounded: the oldest lines go first', () => {
  const log = new LogBuffer(clock, 20);
  for (let i = 0; i < 10; i += 1) log.write('stdout', `line ${i}\n`);
  expect(log.read()).toBe('line 8\nline 9\n');
});

test('followers get new lines until the container ends', () => {
  const log = new LogBuffer(clock);
  const seen: string[] = [];
  let ended = false;
  log.follow((text) => seen.push(text), () => (ended = true));
  log.write('stdout', 'a\nb\n');
  expect(ended).toBe(false);
  log.end();
  expect(seen).toEqual(['a\n', 'b\n']);
  expect(ended).toBe(true);
});
