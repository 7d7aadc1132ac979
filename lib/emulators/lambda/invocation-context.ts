/**
 * Each local Lambda invocation in a context of its own, as Lambda's runtime gives one to each
 * invocation where several run at once in one environment (AWS_LAMBDA_MAX_CONCURRENCY): the
 * executor runs the steps' invocations side by side in this one process, and Powertools' Logger
 * keeps an invocation's keys (function name, request id, build, step) in that context rather than
 * on the one shared logger, where the last invocation to start would stamp every line.
 */
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import { MAX_PARALLEL_LIMIT } from '../../pipeline/index.js';

let store: Promise<InvokeStoreBase | undefined> | undefined;

export async function inInvocationContext<T>(requestId: string, run: () => Promise<T>): Promise<T> {
  store ??= multiConcurrentStore();
  const contexts = await store;
  return contexts ? contexts.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: requestId }, run) : run();
}

async function multiConcurrentStore(): Promise<InvokeStoreBase | undefined> {
  const created = await InvokeStore.getInstanceAsync(true);
  // The process has one store; one made earlier for a single context at a time (an AWS SDK client
  // asks for one) cannot keep invocations apart: logging then stays as it was.
  created.run({}, () => undefined);
  if (created.hasContext()) return undefined;
  // Only now: Powertools reads this variable on every log line and then expects the store.
  process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= String(MAX_PARALLEL_LIMIT);
  return created;
}
