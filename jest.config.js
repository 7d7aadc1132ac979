// ESM mode: the Kubernetes client is ESM-only, so tests load the code the way Node does.
import { availableParallelism } from 'node:os';

const base = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // One module instead of ~970, and of 95, for each test file (test/setup/package-bundles.mjs;
    // the global setup builds them).
    '^@kubernetes/client-node$': '<rootDir>/node_modules/.cache/step-runner-test/client-node.mjs',
    '^zod$': '<rootDir>/node_modules/.cache/step-runner-test/zod.mjs',
  },
  // swc strips the types (tsconfig's isolatedModules makes that the whole transform; npm test's tsc
  // does the checking): a clean clone's run transpiles every module, in each worker that asks for
  // it first, and TypeScript's own transpiler took 30-75 ms a file where swc takes 1-3.
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' }, transform: { useDefineForClassFields: true } } }] },
  setupFilesAfterEnv: ['<rootDir>/test/setup/cpu-profile.ts', '<rootDir>/test/setup/seeds.ts', '<rootDir>/test/setup/state-dir.ts', '<rootDir>/test/setup/runtime.ts', '<rootDir>/test/setup/quiet-handlers.ts'],
};
const everywhere = (suffix) => [`<rootDir>/lib/**/*${suffix}`, `<rootDir>/test/**/*${suffix}`];

export default {
  // Three projects, named by what a test may touch (docs/testing.md): `unit` pure modules only (the
  // guard fails a test that starts a server or a process), `integration` the embedded cluster,
  // local servers and programs, `e2e` packaging, a browser and spawned CLIs.
  projects: [
    { ...base, displayName: 'unit', testMatch: everywhere('.test.ts'), testPathIgnorePatterns: ['\\.integration\\.test\\.ts$', '\\.e2e\\.test\\.ts$'], setupFilesAfterEnv: [...base.setupFilesAfterEnv, '<rootDir>/test/setup/unit-guard.ts'] },
    { ...base, displayName: 'integration', testMatch: everywhere('.integration.test.ts') },
    { ...base, displayName: 'e2e', testMatch: everywhere('.e2e.test.ts') },
  ],
  // Most integration and e2e files wait (on pods, polls, processes) far more than they compute:
  // with twice as many workers as cores, a clean clone's run on 2 cores kept them 68% busy (jest
  // 363 s); three times as many, 82% (271 s; four times, 260 s). Capped for machines with many cores.
  maxWorkers: Math.min(8, Math.max(2, 3 * availableParallelism())),
  testTimeout: 30000,
  testSequencer: '<rootDir>/test/setup/sequencer.mjs',
  // One registry with the Docker test images for the whole run, filled by the first file that
  // needs it (test/fixtures/docker/shared-registry.ts); the teardown stops it.
  globalSetup: '<rootDir>/test/setup/global-setup.mjs',
  globalTeardown: '<rootDir>/test/setup/test-images-global-teardown.mjs',
};
