/**
 * Jest's global setup: a directory for the run's shared test-image registry, named to the workers
 * in STEP_RUNNER_TEST_IMAGES (test/fixtures/docker/shared-registry.ts). Nothing is built here: the
 * first Docker test file does that, so a run without one pays nothing. Plain ESM, since jest loads
 * this file outside the TypeScript transform.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export default async function testImagesGlobalSetup() {
  process.env.STEP_RUNNER_TEST_IMAGES = await mkdtemp(path.join(tmpdir(), 'step-runner-shared-images-'));
}
