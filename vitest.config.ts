import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Runs the end-to-end files (test/, real processes, seconds to minutes each) before the unit
 * files beside the code (milliseconds each), keeping vitest's own order within each group (its
 * cached durations, else larger files first). On a clean clone vitest has no durations and orders
 * by size alone, which left slow but small end-to-end files (the kubectl conformance suites,
 * 40–50 s each) to start last, after the unit files, and the run waited on them.
 */
class EndToEndFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const endToEnd = (f: TestSpecification) => path.relative(process.cwd(), f.moduleId).split(path.sep)[0] === 'test';
    return [...sorted.filter(endToEnd), ...sorted.filter((f) => !endToEnd(f))];
  }
}

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
    // Three files at once on two cores: the end-to-end files mostly wait on the processes they
    // drive (one alone keeps ~36% of the two cores busy), so two at a time left a quarter of the
    // machine idle (suite 920–947 s, 74% busy; with three, 784 s at 88%).
    maxWorkers: 3,
    sequence: { sequencer: EndToEndFirst },
  },
});
