import { dnsLabelProblem, dnsSubdomainProblem, envNameProblem, secretKeyProblem } from './names.js';

describe('Kubernetes naming rules', () => {
  test.each(['build', 'a', 'step-2', '0day', 'x'.repeat(63)])('step name %s is a DNS-1123 label', (name) => {
    expect(dnsLabelProblem(name)).toBeUndefined();
  });

  test.each([
    ['', /must not be empty/],
    ['x'.repeat(64), /64 characters long; at most 63/],
    ['-build', /start and end with a letter or digit \(e\.g\. "build"\)/],
    ['my.step', /only lowercase letters, digits and "-".*\(e\.g\. "my-step"\)/],
    ['!!!', /only lowercase letters, digits and "-", and start and end with a letter or digit$/],
  ])('step name %j is rejected', (name, reason) => {
    expect(dnsLabelProblem(name)).toMatch(reason);
  });

  test('Secret names may have dots, step names may not', () => {
    expect(dnsSubdomainProblem('tokens.ci')).toBeUndefined();
    expect(dnsSubdomainProblem('Tokens')).toMatch(/not a valid Kubernetes Secret name/);
    expect(dnsSubdomainProblem('a..b')).toMatch(/not a valid Kubernetes Secret name/);
  });

  test('env names and Secret keys', () => {
    expect(envNameProblem('_PRIVATE_1')).toBeUndefined();
    expect(envNameProblem('MY-VAR')).toMatch(/not a valid environment variable name/);
    expect(secretKeyProblem('tls.crt')).toBeUndefined();
    expect(secretKeyProblem('a/b')).toMatch(/not a valid Secret key/);
  });
});

describe('names in messages', () => {
  it('shows control characters escaped, so a hostile name cannot drive the terminal', () => {
    const problem = dnsLabelProblem('a\u001b[31mred');
    expect(problem).toContain('"a\\u001b[31mred"');
    expect(problem).not.toContain('\u001b');
  });
});
