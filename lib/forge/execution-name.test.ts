import fc from 'fast-check';
import { buildIdFor, consoleUrlFor, executionArnFor, executionName, MAX_BUILD_ID, MAX_EXECUTION_NAME } from './execution-name.js';

const identity = fc.record({
  source: fc.constantFrom('gh', 'generic'),
  delivery: fc.string({ minLength: 1, maxLength: 200 }),
  repository: fc.option(fc.string({ maxLength: 120 }), { nil: undefined }),
  commit: fc.option(fc.string({ maxLength: 64 }), { nil: undefined }),
});

describe('executionName', () => {
  it('is readable for a GitHub delivery: source, repository, short sha, delivery id', () => {
    const name = executionName({
      source: 'gh',
      delivery: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      repository: 'Codertocat/Hello-World',
      commit: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
    });
    expect(name).toMatch(/^gh-Hello-World-6113728-72d3162e-cc78-11e3-81ab-4c9367dc0958-[0-9a-f]{10}$/);
  });

  it('is always a legal Step Functions name of at most 80 characters, and the same for the same delivery', () => {
    fc.assert(
      fc.property(identity, (id) => {
        const name = executionName(id);
        expect(name).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
        expect(name.length).toBeLessThanOrEqual(MAX_EXECUTION_NAME);
        expect(executionName({ ...id })).toBe(name);
      }),
    );
  });

  it('gives different deliveries different names, even when sanitising or cutting makes them look alike', () => {
    const long = 'x'.repeat(100);
    expect(executionName({ source: 'generic', delivery: `${long}a` })).not.toBe(executionName({ source: 'generic', delivery: `${long}b` }));
    expect(executionName({ source: 'generic', delivery: 'a b' })).not.toBe(executionName({ source: 'generic', delivery: 'a/b' }));
    const NUM_RUNS = 100;
    let compared = 0;
    fc.assert(
      fc.property(identity, identity, (a, b) => {
        fc.pre(JSON.stringify(a) !== JSON.stringify(b));
        compared++;
        expect(executionName(a)).not.toBe(executionName(b));
      }),
      { numRuns: NUM_RUNS },
    );
    // Two equal identities are skipped; the comparison still ran for (nearly) every run asked for.
    expect(compared).toBeGreaterThanOrEqual(NUM_RUNS * 0.9);
  });
});

describe('buildIdFor', () => {
  it('is a DNS-1123 label of at most 63 characters for any execution name', () => {
    fc.assert(
      fc.property(identity, (id) => {
        const buildId = buildIdFor(executionName(id));
        expect(buildId.length).toBeLessThanOrEqual(MAX_BUILD_ID);
        expect(buildId).toMatch(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/);
      }),
    );
  });

  it('keeps names that differ only in case apart', () => {
    expect(buildIdFor('gh-Repo-abc')).not.toBe(buildIdFor('gh-repo-abc'));
  });
});

describe('execution ARN and console URL', () => {
  it('builds the execution ARN from the state machine ARN', () => {
    expect(executionArnFor('arn:aws:states:eu-west-1:123456789012:stateMachine:step-runner-dev-build', 'gh-x-1')).toBe(
      'arn:aws:states:eu-west-1:123456789012:execution:step-runner-dev-build:gh-x-1',
    );
    expect(() => executionArnFor('arn:aws:lambda:eu-west-1:1:function:f', 'n')).toThrow(/Not a state machine ARN/);
  });

  it('links the execution in the console of its region', () => {
    const arn = 'arn:aws:states:eu-west-1:123456789012:execution:m:n';
    expect(consoleUrlFor(arn)).toBe(`https://eu-west-1.console.aws.amazon.com/states/home?region=eu-west-1#/v2/executions/details/${arn}`);
  });
});
