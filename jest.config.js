/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // isolatedModules: type-checking is `npm run typecheck`'s job; ts-jest only transpiles here.
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['<rootDir>/test/support/worker-env.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
};
