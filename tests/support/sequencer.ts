// The order test files start in. Three run at a time, so a long file that starts last sets
// the run's length: the longest suites start first, whichever project they belong to, and
// the many short ones fill the gaps. Vitest's own order puts one project after the other
// and, on a fresh clone with no timings cached, the largest files first.
import { relative } from 'node:path';

import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The longest suites, longest first (measured on an idle 2-core machine). */
const LONGEST_FIRST = [
  'tests/integration/sync-offline-long.test.ts',
  'tests/integration/sync-convergence.test.ts',
  'tests/integration/sync-faults.test.ts',
  'tests/integration/devstack-fuzz.test.ts',
  'tests/integration/devstack-functions.test.ts',
  'tests/integration/sync-pull.test.ts',
  'tests/integration/devstack-strict.test.ts',
  'tests/integration/sync-engine.test.ts',
  'tests/integration/sync-schedule.test.ts',
  'src/features/tasks/components/tasks-screen.test.tsx',
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const byVitest = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FIRST.indexOf(relative(process.cwd(), file.moduleId));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    // Stable: files not named keep Vitest's order among themselves.
    return byVitest
      .map((file, position) => ({ file, position, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.position - b.position)
      .map(({ file }) => file);
  }
}
