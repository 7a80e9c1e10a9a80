import { LRUCache } from 'lru-cache';

export interface TtlCacheOptions {
  /** How many entries at most; the least recently used goes first. */
  max: number;
  /** How long an entry lives unless `set` says otherwise; none: until it is pushed out. */
  ttlMs?: number;
}

/**
 * The one kind of process-wide cache: bounded, each entry with an optional lifetime. Everything a
 * process remembers between requests (walls of tokens and items, verified tokens, employees' access,
 * the sorting subscription) goes through it, so no cache grows without end.
 */
export class TtlCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>> {
  private readonly lru: LRUCache<K, V>;
  private readonly keeps: boolean;

  constructor({ max, ttlMs }: TtlCacheOptions) {
    // ttlResolution 0: an entry's age is read from the clock at each look-up (a few nanoseconds), not
    // cached for a millisecond behind a timer made anew every millisecond a busy process looks one up.
    this.lru = new LRUCache<K, V>(ttlMs === undefined ? { max, ttlResolution: 0 } : { max, ttl: Math.max(ttlMs, 1), ttlResolution: 0 });
    // A lifetime of zero keeps nothing (lru-cache would read 0 as "never expires").
    this.keeps = ttlMs === undefined || ttlMs > 0;
  }

  get(key: K): V | undefined {
    return this.lru.get(key);
  }

  /** `ttlMs` overrides the cache's lifetime for this entry; one that has none left is not stored. */
  set(key: K, value: V, ttlMs?: number): void {
    if (!this.keeps) return;
    if (ttlMs === undefined) this.lru.set(key, value);
    else if (ttlMs > 0) this.lru.set(key, value, { ttl: ttlMs });
  }

  delete(key: K): void {
    this.lru.delete(key);
  }

  clear(): void {
    this.lru.clear();
  }
}
