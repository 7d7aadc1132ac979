import { RotatingLogFile } from './log-rotation.js';

const file = (maxBytes: number) => new RotatingLogFile<string>(maxBytes, (line) => line.length);

test('a file that has reached the size is rotated by the next line, which starts the new one', () => {
  const log = file(10);
  log.append('12345');
  log.append('67890');
  expect(log.current).toEqual(['12345', '67890']);
  expect(log.rotations).toBe(0);
  log.append('abc');
  expect(log.current).toEqual(['abc']);
  expect(log.rotations).toBe(1);
});

test('the line that takes a file past the size stays in it, however long', () => {
  const log = file(10);
  log.append('123');
  log.append('a line far longer than the size');
  expect(log.current).toEqual(['123', 'a line far longer than the size']);
  log.append('next');
  expect(log.current).toEqual(['next']);
});

test('a log written past the size many times over keeps only its current file', () => {
  const log = file(10);
  for (let i = 0; i < 100; i += 1) log.append(`line ${i}`);
  // Two lines (6 or 7 bytes each) fill a file, so file n holds lines 2n and 2n+1.
  expect(log.current).toEqual(['line 98', 'line 99']);
  expect(log.rotations).toBe(49);
});

test('nothing is rotated until a line comes after the size is reached', () => {
  const log = file(4);
  log.append('full');
  expect(log.current).toEqual(['full']);
  expect(log.rotations).toBe(0);
});
