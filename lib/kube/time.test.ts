import { describe, expect, it } from '@jest/globals';
import { V1MicroTime } from '@kubernetes/client-node';
import { secondsSince, toMillis } from './time.js';

const T = Date.parse('2025-03-14T10:00:00Z');

describe('toMillis', () => {
  it.each([
    ['a Date (client-node deserialised)', new Date(T), T],
    ['a MicroTime (event times)', new V1MicroTime(T + 250), T + 250],
    ['an RFC 3339 string (watch objects, raw JSON)', '2025-03-14T10:00:00Z', T],
    ['a MicroTime string', '2025-03-14T10:00:00.250000Z', T + 250],
    ['an HTTP date (Retry-After)', 'Fri, 14 Mar 2025 10:00:00 GMT', T],
    ['garbage', 'soon', undefined],
    ['an invalid Date', new Date('soon'), undefined],
    ['null', null, undefined],
    ['undefined', undefined, undefined],
  ])('%s', (_name, value, millis) => {
    expect(toMillis(value)).toBe(millis);
  });
});

describe('secondsSince', () => {
  const now = new Date(T + 90_500);

  it('counts from a Date or a string alike', () => {
    expect(secondsSince(now, new Date(T))).toBe(90.5);
    expect(secondsSince(now, '2025-03-14T10:00:00.000Z')).toBe(90.5);
  });

  it('is 0 for something that has not happened (no time) rather than NaN', () => {
    expect(secondsSince(now, null)).toBe(0);
    expect(secondsSince(now, undefined)).toBe(0);
    expect(secondsSince(now, 'not a time')).toBe(0);
  });
});
