import fc from 'fast-check';
import { buildIdFor, consoleUrlFor, executionArnFor, executionName, executionNameIn, MAX_BUILD_ID, MAX_EXECUTION_NAME, rerunExecutionName } from './execution-name.js';

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

describe('rerunExecutionName', () => {
  const delivery = { source: 'gh', delivery: '5b3a7e10-cc78-11e3-81ab-4c9367dc0958', repository: 'Codertocat/Hello-World', commit: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821' };
  const earlier = 'gh-Hello-World-6113728-72d3162e-cc78-11e3-81ab-4c9367dc0958-0a1b2c3d4e';

  // What a push delivery's name reads as once its closing hash is dropped to make room.
  const readable = 'gh-Hello-World-6113728-72d3162e-cc78-11e3-81ab-4c9367dc0958';

  it('is the earlier name with -rerun- and a hash of the delivery: the same for a redelivery, new for a new delivery', () => {
    const name = rerunExecutionName({ ...delivery, earlier });
    expect(name).toMatch(new RegExp(`^${readable}-rerun-[0-9a-f]{10}$`));
    expect(rerunExecutionName({ ...delivery, earlier: 'gh-x-1-0a1b2c3d4e' })).toMatch(/^gh-x-1-0a1b2c3d4e-rerun-[0-9a-f]{10}$/);
    expect(rerunExecutionName({ ...delivery, earlier })).toBe(name);
    expect(rerunExecutionName({ ...delivery, delivery: '5b3a7e10-cc78-11e3-81ab-000000000001', earlier })).not.toBe(name);
  });

  it("names a re-run of a re-run after the original, as the local page's re-runs are", () => {
    const first = rerunExecutionName({ ...delivery, earlier });
    const second = rerunExecutionName({ ...delivery, delivery: 'another-delivery', earlier: first });
    expect(second).toMatch(new RegExp(`^${readable}-rerun-[0-9a-f]{10}$`));
    expect(second).not.toBe(first);
    expect(rerunExecutionName({ ...delivery, earlier: 'gh-x-1-rerun-2' })).toMatch(/^gh-x-1-rerun-[0-9a-f]{10}$/);
  });

  it('says rerun in the usual delivery name when the earlier execution is not known', () => {
    expect(rerunExecutionName(delivery)).toMatch(/^gh-rerun-Hello-World-ec26c3e-5b3a7e10-cc78-11e3-81ab-4c9367dc0958-[0-9a-f]{10}$/);
    expect(rerunExecutionName({ ...delivery, earlier: 'not a name' })).toBe(rerunExecutionName(delivery));
  });

  it('is always a legal Step Functions name of at most 80 characters', () => {
    fc.assert(
      fc.property(identity, fc.stringMatching(/^[A-Za-z0-9_-]{1,80}$/), (id, before) => {
        expect(rerunExecutionName({ ...id, earlier: before })).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
        expect(rerunExecutionName(id)).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
      }),
    );
  });
});

describe('executionNameIn', () => {
  it("takes the name from an execution ARN, keeps a bare name, and finds none in anything else", () => {
    expect(executionNameIn('arn:aws:states:eu-west-1:123456789012:execution:step-runner-dev-build:gh-x-1')).toBe('gh-x-1');
    expect(executionNameIn('gh-hello-world-6113728-0a1b2c3d4e')).toBe('gh-hello-world-6113728-0a1b2c3d4e');
    for (const none of ['', null, undefined, 'ci/job 42', 'arn:aws:states:eu-west-1:1:stateMachine:m', 'x'.repeat(81)]) expect(executionNameIn(none)).toBeUndefined();
  });
});
