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
  // loads the service's modules afresh and V8 collects the old ones late, so a worker grew past 1.5 GB
  // over a full run.
  workerIdleMemoryLimit: '1GB',
  // jest ends a worker by letting its event loop drain, and Node then tears its heap down: for a worker
  // near the limit above that took 0.45-0.55 s on a loaded 2-core VM, past jest's default grace of 0.5 s,
  // and jest killed it and printed "A worker process has failed to exit gracefully" with nothing open.
  // A worker that really holds a handle open is still killed and reported, 5 s later.
  workerGracefulExitTimeout: 5000,
};
