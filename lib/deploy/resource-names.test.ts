import { createRequire } from 'node:module';

// CommonJS, for the Framework's ${file(...)} (see the file); no types.
const names = createRequire(import.meta.url)('./resource-names.cjs') as {
  RULE_NAME_MAX: number;
  endedExecutionRuleName(service: string, stage: string): string;
  endedExecutionRule(resolver: { resolveVariable(name: string): Promise<string> }): Promise<string>;
};

const SERVICE = 'serverless-step-runner';
/** What PutRule accepts as a Name. */
const RULE_NAME = /^[.\-_A-Za-z0-9]{1,64}$/;

describe('the ended-execution rule name', () => {
  it('is the service, the stage and what it is for when that fits', () => {
    expect(names.endedExecutionRuleName(SERVICE, 'dev')).toBe('serverless-step-runner-dev-execution-ended');
  });

  it.each([
    ['a 40-character stage', 'feature-very-long-branch-name-0123456789'],
    ['the longest stage that still fits whole, plus one', 'x'.repeat(64 - `${SERVICE}--execution-ended`.length + 1)],
    ['a 100-character stage', 's'.repeat(100)],
  ])('fits EventBridge\'s 64 characters for %s, still saying what it is for', (_what, stage) => {
    const name = names.endedExecutionRuleName(SERVICE, stage);
    expect(name).toMatch(RULE_NAME);
    expect(name.length).toBeLessThanOrEqual(names.RULE_NAME_MAX);
    expect(name.startsWith(`${SERVICE}-`)).toBe(true);
    expect(name.endsWith('-execution-ended')).toBe(true);
  });

  it('keeps the whole name up to the limit', () => {
    const stage = 'x'.repeat(64 - `${SERVICE}--execution-ended`.length);
    expect(names.endedExecutionRuleName(SERVICE, stage)).toBe(`${SERVICE}-${stage}-execution-ended`);
  });

  it('differs for long stages that begin alike (rule names are unique in an account and region)', () => {
    const a = names.endedExecutionRuleName(SERVICE, 'feature-very-long-branch-name-0123456789');
    const b = names.endedExecutionRuleName(SERVICE, 'feature-very-long-branch-name-0123456788');
    expect(a).not.toBe(b);
  });

  it('reads the service and the stage through the Framework\'s resolver', async () => {
    const values: Record<string, string> = { 'self:service': SERVICE, 'sls:stage': 'prod' };
    await expect(names.endedExecutionRule({ resolveVariable: async (name) => values[name]! })).resolves.toBe(
      'serverless-step-runner-prod-execution-ended',
    );
  });
});
