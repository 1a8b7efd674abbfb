import { defineConfig } from 'vitest/config'

/**
 * Two projects: every test on embedded PGlite, and the database-backed tests again on PostgreSQL
 * when DATABASE_URL is set (CI points it at the local server; each test file gets its own database).
 */
const dbTests = ['test/**/*.test.ts']
const notOnPostgres = ['test/analysis/**', 'test/widget/**', 'test/e2e/**', 'test/unit/**']

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // CI also writes a JSON report, from which .ci/run prints the plain "N passed, N failed" line
    ...(process.env.CI ? { reporters: ['default', 'json'], outputFile: { json: 'test-results/vitest.json' } } : {}),
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'pglite', include: [...dbTests, 'src/**/*.test.ts'], env: { TEST_DB: 'pglite' } } },
      ...(process.env.DATABASE_URL
        ? [{ extends: true as const, test: { name: 'postgres', include: dbTests, exclude: notOnPostgres, env: { TEST_DB: 'postgres' } } }]
        : []),
    ],
  },
})
