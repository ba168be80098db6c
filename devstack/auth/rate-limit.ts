// GoTrue's per-IP rate limits: a token bucket per (limit, IP) that holds at most 30 requests
// (GoTrue's burst) and refills at the configured rate (`[auth.rate_limit]`, e.g. 30 per 5
// minutes). A bucket never holds more than the configured number either, so a limit below 30
// is kept exactly (hosted lets a burst of 30 through; stricter is allowed, laxer is not).
// Time comes from the injected clock, so tests move it instead of sleeping.

/** GoTrue's token-bucket capacity (tollbooth `SetBurst(30)`). */
export const GOTRUE_BURST = 30;
/** Buckets kept before full (idle) ones are dropped. */
const MAX_TRACKED_KEYS = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly capacity: number;
  private readonly perMs: number;

  /** `limit` requests per `windowMs`, refilled continuously. */
  constructor(
    limit: number,
    windowMs: number,
    private readonly now: () => number,
  ) {
    this.capacity = Math.min(GOTRUE_BURST, limit);
    this.perMs = limit / windowMs;
  }

  /** Takes one request from `key`'s bucket; false when it is empty (answer 429). */
  take(key: string): boolean {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.capacity, at: now };
    const elapsed = Math.max(0, now - bucket.at);
    bucket.tokens = Math.min(this.capacity, bucket.tokens + elapsed * this.perMs);
    bucket.at = now;
    if (bucket.tokens < 1) {
      this.buckets.set(key, bucket);
      return false;
    }
    bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    if (this.buckets.size > MAX_TRACKED_KEYS) this.prune(now);
    return true;
  }

  /** Drops buckets that have refilled completely (they behave as new ones). */
  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * this.perMs >= this.capacity) this.buckets.delete(key);
    }
  }
}

const FIVE_MINUTES_MS = 5 * 60 * 1000;
const ONE_HOUR_MS = 60 * 60 * 1000;

export interface AuthLimiters {
  signInSignUps: RateLimiter;
  tokenRefresh: RateLimiter;
  anonymousUsers: RateLimiter;
}

export function authLimiters(
  limits: { signInSignUps: number; tokenRefresh: number; anonymousUsers: number },
  now: () => number,
): AuthLimiters {
  return {
    signInSignUps: new RateLimiter(limits.signInSignUps, FIVE_MINUTES_MS, now),
    tokenRefresh: new RateLimiter(limits.tokenRefresh, FIVE_MINUTES_MS, now),
    anonymousUsers: new RateLimiter(limits.anonymousUsers, ONE_HOUR_MS, now),
  };
}
