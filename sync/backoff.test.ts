import { describe, expect, it } from 'vitest';

import { BACKOFF_MAX_MS, backoffDelayMs } from './backoff';

describe('backoff with full jitter', () => {
  it('caps at 1 s doubling to 60 s', () => {
    const top = () => 0.999_999;
    expect([0, 1, 2, 3, 4, 5, 6, 7, 20].map((n) => backoffDelayMs(n, top))).toEqual([
      999, 1999, 3999, 7999, 15999, 31999, 59999, 59999, 59999,
    ]);
  });

  it('spreads delays uniformly between 0 and the cap', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const delays = Array.from({ length: 2_000 }, () => backoffDelayMs(10, random));
    const mean = delays.reduce((a, b) => a + b, 0) / delays.length;
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...delays)).toBeLessThan(BACKOFF_MAX_MS);
    expect(mean).toBeGreaterThan(BACKOFF_MAX_MS * 0.45);
    expect(mean).toBeLessThan(BACKOFF_MAX_MS * 0.55);
  });
});
