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
  // A worker that holds more than this after a test file is replaced before the next one. Each file
  // loads the service's modules afresh and jest keeps part of every registry, so a worker grew past
  // 1.5 GB over a full run, and the teardown of so large a heap when jest ends it took longer than
  // jest's 500 ms grace on a small VM: jest killed it and printed "A worker process has failed to exit
  // gracefully".
  workerIdleMemoryLimit: '1GB',
};
