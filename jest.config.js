// ESM mode: the Kubernetes client is ESM-only, so tests load the code the way Node does.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
  testMatch: ['<rootDir>/lib/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
  testTimeout: 30000,
};
