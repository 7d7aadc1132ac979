/**
 * One seed for every property test (fast-check) of a run, so that a red run can be replayed and
 * a defect does not block only sometimes. CI uses the fixed seed below; `npm run test:fuzz` sets
 * STEP_RUNNER_TEST_SEED=random, which draws a new one per test file and prints it for replay:
 * STEP_RUNNER_TEST_SEED=<seed> npm run jest -- <file>.
 */
import { randomInt } from 'node:crypto';
import fc from 'fast-check';

/** Fixed, so that CI runs meet the same cases every time. */
export const FIXED_SEED = 20261201;

export function testSeed(given: string | undefined = process.env.STEP_RUNNER_TEST_SEED): number {
  if (given === undefined || given === '') return FIXED_SEED;
  if (given === 'random') return randomInt(1, 2 ** 31);
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`STEP_RUNNER_TEST_SEED must be an integer or "random", not "${given}"`);
  return seed;
}

const seed = testSeed();
fc.configureGlobal({ seed });
if (process.env.STEP_RUNNER_TEST_SEED === 'random') {
  process.stderr.write(`fast-check seed ${seed} for ${expect.getState().testPath ?? 'this file'} (replay: STEP_RUNNER_TEST_SEED=${seed})\n`);
}
