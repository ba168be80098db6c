// The order test files start in. Three run at a time, so a long file that starts last sets
// the run's length: the longest suites start first, whichever project they belong to, and
// the many short ones fill the gaps. Vitest's own order puts one project after the other
// and, on a fresh clone with no timings cached, the largest files first.
import { relative } from 'node:path';

import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each long suite took in a whole `npm test` (three files at a time on two cores),
 * for a fresh clone, where Vitest has no timings of its own yet. Once a run has recorded a
 * file's time (node_modules/.vite/vitest), that time is used instead.
 */
const SECONDS: Readonly<Record<string, number>> = {
  'tests/integration/sync-offline-long.test.ts': 78,
  'tests/integration/sync-convergence.test.ts': 32,
  'tests/integration/sync-pull.test.ts': 26,
  'tests/integration/sync-faults.test.ts': 25,
  'tests/integration/devstack-rate-limits.test.ts': 22,
  'tests/integration/presence.test.ts': 22,
  'tests/integration/realtime-deltas.test.ts': 20,
  'tests/integration/devstack-strict.test.ts': 19,
  'tests/integration/sync-realtime.test.ts': 18,
  'tests/integration/sync-engine.test.ts': 18,
  'tests/integration/devstack-auth-email.test.ts': 18,
  'tests/integration/devstack-fuzz.test.ts': 16,
  'src/features/tasks/components/tasks-screen.test.tsx': 15,
  'tests/integration/sync-schedule.test.ts': 14,
  'tests/integration/attachment-cleanup.test.ts': 14,
  'tests/integration/devstack-realtime-private.test.ts': 12,
  'sync/kit/kit.test.ts': 12,
  'tests/integration/devstack-functions.test.ts': 12,
  'src/features/members/components/presence-avatars.test.tsx': 12,
  'tests/integration/functions-auth.test.ts': 12,
  'scripts/gen-types.test.ts': 12,
  'tests/integration/devstack-keys.test.ts': 12,
  'tests/integration/devstack-realtime.test.ts': 11,
  'tests/integration/sync-tabs.test.ts': 10,
  'tests/integration/devstack-auth.test.ts': 10,
  'sync/kit/backend.test.ts': 10,
  'tests/support/fake-indexeddb.test.ts': 10,
};

/**
 * A suite with no time known yet that starts a devstack on both engines (every conformance
 * suite, a new integration suite): guessed as long, so it starts among the long ones rather
 * than last, where a ten-second file would stretch the run by ten seconds.
 */
const UNKNOWN_SUITE_SECONDS = 10;

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const byVitest = await super.sort(files);
    const seconds = (file: TestSpecification): number => {
      const path = relative(process.cwd(), file.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${file.project.name}:${path}`);
      if (cached?.duration) return cached.duration / 1000;
      const known = SECONDS[path];
      if (known !== undefined) return known;
      return /^tests\/(integration|conformance)\//.test(path) ? UNKNOWN_SUITE_SECONDS : 0;
    };
    // Stable: files of equal (or no) known time keep Vitest's order among themselves.
    return byVitest
      .map((file, position) => ({ file, position, seconds: seconds(file) }))
      .sort((a, b) => b.seconds - a.seconds || a.position - b.position)
      .map(({ file }) => file);
  }
}
