// Retry delays of product.md §9: 1 s doubling to 60 s, with full jitter (a uniformly random delay
// between 0 and the cap), so that many devices coming back at once do not retry in step.

/** First retry cap (ms). */
export const BACKOFF_BASE_MS = 1_000;
/** Largest retry cap (ms). */
export const BACKOFF_MAX_MS = 60_000;

/** The delay before retry number `attempt` (0-based), given a random number in [0, 1). */
export function backoffDelayMs(attempt: number, random: () => number): number {
  const cap = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.min(attempt, 16));
  return Math.floor(random() * cap);
}
