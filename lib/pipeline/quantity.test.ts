import { quantityProblem } from './quantity.js';

describe('quantityProblem', () => {
  test.each([
    ['500m', 'cpu'],
    ['1', 'cpu'],
    ['0.5', 'cpu'],
    ['2.', 'cpu'],
    ['.5', 'cpu'],
    ['512Mi', 'memory'],
    ['1Gi', 'memory'],
    ['1G', 'memory'],
    ['129e6', 'memory'],
    ['128974848', 'memory'],
  ] as const)('%s is a valid %s quantity', (value, kind) => {
    expect(quantityProblem(value, kind)).toBeUndefined();
  });

  test.each([
    ['half', 'cpu', /"half" is not a Kubernetes quantity \(e\.g\. 500m, 1 or 0\.5\)/],
    ['-1', 'cpu', /is negative/],
    ['0', 'cpu', /is zero/],
    ['0m', 'cpu', /is zero/],
    ['512MB', 'memory', /without "B"/],
    ['1gb', 'memory', /without "B"/],
    ['512K', 'memory', /Ki, Mi, Gi/],
    ['512m', 'memory', /512 thousandths of a byte; did you mean "512Mi"\?/],
    ['1 Gi', 'memory', /not a Kubernetes quantity \(e\.g\. 512Mi or 1Gi\)/],
  ] as const)('%s is rejected as %s', (value, kind, reason) => {
    expect(quantityProblem(value, kind)).toMatch(reason);
  });
});
