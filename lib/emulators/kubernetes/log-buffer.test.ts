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
  // Four lines in one millisecond: successive nanoseconds, as containerd's stamps never coincide.
  expect(log.read({ tailLines: 1, timestamps: true })).toBe('2026-03-04T05:06:07.890000003Z three');
});

test('rotated at the size as the kubelet rotates: a read sees only the current file, a follower every line', () => {
  // "2026-03-04T05:06:07.890000000Z stdout F line 0\n" is 47 bytes in the node's file: two fill 94.
  const log = new LogBuffer(clock, 94);
  const followed: string[] = [];
  log.follow((text) => followed.push(text), () => {});
  for (let i = 0; i < 10; i += 1) log.write('stdout', `line ${i}\n`);
  expect(log.read()).toBe('line 8\nline 9\n');
  expect(log.rotations).toBe(4);
  expect(log.read({ since: new Date('2026-03-04T05:06:07Z'), timestamps: true })).toBe('2026-03-04T05:06:07.890000008Z line 8\n2026-03-04T05:06:07.890000009Z line 9\n');
  expect(followed.join('')).toBe(Array.from({ length: 10 }, (_, i) => `line ${i}\n`).join(''));
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
