// The engine's manual clock lives in the sync kit (sync/kit/clock.ts); here, what only this
// project's suites need beside it: clocks run out after a failed test (vitest hooks).
import { afterEach } from 'vitest';

import { ManualClock } from '../../sync/kit/clock';

export { ManualClock, TimerQueue, type UntilOptions } from '../../sync/kit/clock';

/**
 * Manual clocks for the tests of a file, made with the returned function. Should a test fail
 * with a request still hung on one, its device could never close (closing waits for the
 * request in flight): time runs out on them first, ten minutes of every timer, before the
 * devices close. Call at the file's top level, before the suite's own afterEach.
 */
export function manualClocksForTests(): () => ManualClock {
  const clocks = new Set<ManualClock>();
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') {
      for (const clock of clocks) await clock.runTo(clock.now() + 10 * 60_000);
    }
    clocks.clear();
  });
  return () => {
    const clock = new ManualClock();
    clocks.add(clock);
    return clock;
  };
}
