import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { readDeployedFunctions, UnreadableFunctionSetting } from './deployed-functions.js';
import { localLambdaContext } from './lambda-context.js';

const serverless = parse(readFileSync(new URL('../../../serverless.yml', import.meta.url), 'utf8')) as {
  provider: { memorySize: number; timeout: number };
  functions: Record<string, { memorySize?: number; timeout?: number }>;
};
const deployed = Object.entries(serverless.functions).map(([name, fn]) => ({
  name,
  memory: fn.memorySize ?? serverless.provider.memorySize,
  timeout: fn.timeout ?? serverless.provider.timeout,
}));

afterEach(() => {
  jest.useRealTimers();
});

describe('the local Lambda context', () => {
  it('reports the memory serverless.yml deploys each function with', () => {
    const reported = deployed.map(({ name }) => ({ name, memory: localLambdaContext(name).memoryLimitInMB }));
    expect(reported).toEqual(deployed.map(({ name, memory }) => ({ name, memory: String(memory) })));
    // The ones set apart from the provider's 256 MB, which a copy of the default would get wrong.
    expect(localLambdaContext('pollStep').memoryLimitInMB).toBe('192');
    expect(localLambdaContext('waitForNeeds').memoryLimitInMB).toBe('128');
  });

  it("counts its remaining time down from each function's deployed timeout", () => {
    jest.useFakeTimers({ now: new Date('2126-01-01T00:00:00Z') });
    const contexts = deployed.map(({ name }) => ({ name, context: localLambdaContext(name) }));
    expect(contexts.map(({ name, context }) => ({ name, ms: context.getRemainingTimeInMillis() }))).toEqual(deployed.map(({ name, timeout }) => ({ name, ms: timeout * 1000 })));
    jest.advanceTimersByTime(10_000);
    expect(contexts.map(({ name, context }) => ({ name, ms: context.getRemainingTimeInMillis() }))).toEqual(
      deployed.map(({ name, timeout }) => ({ name, ms: Math.max(0, timeout - 10) * 1000 })),
    );
  });

  it('refuses a setting serverless.yml leaves to a variable, rather than guess it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'deployed-functions-'));
    try {
      const file = path.join(dir, 'serverless.yml');
      await writeFile(file, 'provider:\n  memorySize: 256\n  timeout: 30\nfunctions:\n  plain: {}\n  poll:\n    timeout: ${param:pollTimeout}\n');
      expect(() => readDeployedFunctions(file)).toThrow(UnreadableFunctionSetting);
      expect(() => readDeployedFunctions(file)).toThrow('functions.poll.timeout');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
