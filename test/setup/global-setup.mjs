/**
 * Jest's global setup, before any worker starts:
 * - a directory for the run's shared test-image registry, named to the workers in
 *   STEP_RUNNER_TEST_IMAGES (test/fixtures/docker/shared-registry.ts). No image is built here: the
 *   first Docker test file does that, so a run without one pays nothing;
 * - client-node and zod as one module each (package-bundles.mjs), which jest.config.js maps the
 *   packages to.
 * Plain ESM, since jest loads this file outside the TypeScript transform.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensurePackageBundles } from './package-bundles.mjs';

export default async function globalSetup() {
  process.env.STEP_RUNNER_TEST_IMAGES = await mkdtemp(path.join(tmpdir(), 'step-runner-shared-images-'));
  await ensurePackageBundles();
}
