import { formatDuration, MAX_DURATION_SECONDS, parseDuration } from './duration.js';

describe('parseDuration', () => {
  test.each([
    ['90s', 90],
    ['10m', 600],
    ['2h', 7200],
    ['1h30m', 5400],
    ['1h0m5s', 3605],
    ['90m', 5400],
    ['45', 45],
    [' 10m ', 600],
    [120, 120],
    ['24h', MAX_DURATION_SECONDS],
    [MAX_DURATION_SECONDS, MAX_DURATION_SECONDS],
  ])('%j is %d seconds', (input, seconds) => {
    expect(parseDuration(input)).toEqual({ ok: true, seconds });
  });

  test.each([
    ['0', /is zero/],
    [0, /is zero/],
    ['0s', /is zero/],
    ['0h0m', /is zero/],
    ['-5m', /is negative/],
    [-30, /is negative/],
    ['10 minutes', /"10 minutes" is not a duration; write it like 90s, 10m, 1h30m or 2h/],
    ['10minutes', /uses the unit "minutes"; only h, m and s/],
    ['1d', /uses the unit "d"/],
    ['1.5h', /has a fraction; use whole units \(e\.g\. 1h30m instead of 1\.5h/],
    [1.5, /has a fraction; a plain number means whole seconds/],
    ['30m1h', /largest first/],
    ['1h1h', /at most once/],
    ['25h', /longer than the 24h limit/],
    ['24h1s', /longer than the 24h limit/],
    [MAX_DURATION_SECONDS + 1, /longer than the 24h limit/],
    ['', /is empty/],
    ['m', /is not a duration/],
    ['h10', /is not a duration/],
    [null, /must be text/],
    [[10], /must be text/],
    [Infinity, /is not a duration/],
  ])('%j is rejected', (input, reason) => {
    const result = parseDuration(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});

describe('formatDuration', () => {
  test.each([
    [5400, '1h30m'],
    [90, '1m30s'],
    [3600, '1h'],
    [3605, '1h5s'],
    [45, '45s'],
  ])('%d -> %s and back', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
    expect(parseDuration(text)).toEqual({ ok: true, seconds });
  });
});
