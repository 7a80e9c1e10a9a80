import type { Redis } from '../redis/redis';

/**
 * Counts failures per key in a fixed window, in Redis so that every API process shares the count.
 * Used for failed sign-ins and PIN attempts (docs/api.md §9: 5 failures in 5 minutes → 429).
 */
export class FailureRateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Milliseconds until the key may try again, or 0 when it is under the limit. */
  async blockedFor(key: string, limit: number): Promise<number> {
    const k = `${this.prefix}:rl:${key}`;
    const [count, ttl] = await Promise.all([this.redis.get(k), this.redis.pttl(k)]);
    return Number(count ?? 0) >= limit ? Math.max(ttl, 1) : 0;
  }

  async recordFailure(key: string, windowMs: number): Promise<number> {
    const k = `${this.prefix}:rl:${key}`;
    const results = await this.redis.multi().incr(k).pexpire(k, windowMs, 'NX').exec();
    return Number(results?.[0]?.[1] ?? 0);
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(`${this.prefix}:rl:${key}`);
  }
}
