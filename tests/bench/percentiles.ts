// Percentiles for every benchmark, one rule for all figures.

/** p50 and p95 of a set of samples, and how many there were. */
export interface Percentiles {
  p50: number;
  p95: number;
  n: number;
}

/**
 * Nearest-rank percentile: the smallest sample with at least p (0–1) of the samples at or
 * below it, index ceil(p·n) − 1 (floor(p·n) made the p95 of 20 samples their maximum).
 */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? NaN;
}

/** p50 and p95 of `samples` (nearest rank). */
export function percentiles(samples: readonly number[]): Percentiles {
  return { p50: percentile(samples, 0.5), p95: percentile(samples, 0.95), n: samples.length };
}
