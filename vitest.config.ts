import { defineConfig } from 'vitest/config';

// Tests run against the TypeScript sources of the workspace packages (the "source" export
// condition); end-to-end tests in test/ start the built CLI (npm test builds first).
export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
