// Three projects: the pure unit tests beside the code, the suites in test/ that need the local
// control plane (started by the global setup when it is not already running), and the install on a
// real one-node cluster (test/cluster, started by its suite while it runs).
const tsJest = {
  '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
};
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: tsJest,
  testEnvironment: 'node',
  // The local control plane's state: etcd's own .snap files are not jest snapshots (jest --ci
  // failed on them as "obsolete" once etcd had written its first snapshot).
  modulePathIgnorePatterns: ['<rootDir>/.kruntimes/', '<rootDir>/.kruntimes-cluster/', '<rootDir>/dist/'],
};

export default {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{src,webhook,controller,runtimed,cli,tools}/**/*.test.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      roots: ['<rootDir>/test'],
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/test/harness/global-setup.ts',
      globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/harness/timeout.ts'],
    },
    {
      ...common,
      displayName: 'cluster',
      roots: ['<rootDir>/test'],
      testMatch: ['<rootDir>/test/e2e-cluster/**/*.test.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/harness/timeout.ts'],
    },
  ],
};
