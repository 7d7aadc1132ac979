import { hostOnly } from './pod-identity-agent.js';

describe("the agent's reading of the address it was called at (validateRequestTargetHost)", () => {
  it.each([
    ['169.254.170.23', '169.254.170.23'],
    ['169.254.170.23:80', '169.254.170.23'],
    ['[fd00:ec2::23]', 'fd00:ec2::23'],
    ['[fd00:ec2::23]:80', 'fd00:ec2::23'],
    ['127.0.0.1:41234', '127.0.0.1'],
    ['localhost', 'localhost'],
  ])('%s is %s', (header, host) => {
    expect(hostOnly(header)).toBe(host);
  });
});
