import { TtlCache } from '../../shared/cache/ttl-cache';
import { waitFor } from '../support/wait-for';

/** Polls (bounded) until the entry is gone; the cache's clock is lru-cache's own. */
function expires(cache: TtlCache<string, number>, key: string, withinMs = 2000): Promise<boolean> {
  return waitFor(() => cache.get(key) === undefined, { timeoutMs: withinMs, intervalMs: 5, what: `${key} to expire` }).then(
    () => true,
    () => false,
  );
}

describe('TtlCache', () => {
  it('keeps at most max entries, the least recently used going first', () => {
    const cache = new TtlCache<string, number>({ max: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c')]).toEqual([1, 3]);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
  });

  it('forgets an entry after the cache lifetime, or its own', async () => {
    const cache = new TtlCache<string, number>({ max: 10, ttlMs: 60_000 });
    cache.set('long', 1);
    cache.set('short', 2, 20);
    expect(cache.get('short')).toBe(2);
    expect(await expires(cache, 'short')).toBe(true);
    expect(cache.get('long')).toBe(1);
    const brief = new TtlCache<string, number>({ max: 10, ttlMs: 20 });
    brief.set('a', 1);
    expect(await expires(brief, 'a')).toBe(true);
  });

  it('does not keep an entry with no lifetime left, nor anything in a cache of lifetime zero', () => {
    const cache = new TtlCache<string, number>({ max: 10 });
    cache.set('due', 1, 0);
    cache.set('past', 2, -5);
    expect([cache.get('due'), cache.get('past')]).toEqual([undefined, undefined]);
    const none = new TtlCache<string, number>({ max: 10, ttlMs: 0 });
    none.set('a', 1);
    expect(none.get('a')).toBeUndefined();
  });
});
