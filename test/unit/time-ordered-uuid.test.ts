import { z } from 'zod';
import { uuidv7, uuidv7Time } from '../../shared/db/time-ordered-uuid';

describe('uuidv7', () => {
  it('is an RFC 9562 version 7 UUID with the millisecond it was made in', () => {
    const at = Date.UTC(2026, 11, 3, 17, 30, 0, 123);
    const id = uuidv7(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidv7Time(id)).toBe(at);
    expect(z.uuid().safeParse(id).success).toBe(true);
  });

  it('sorts in the order the ids were made, within a millisecond and across them, as PostgreSQL compares uuids (bytewise)', () => {
    const t = Date.UTC(2026, 11, 3, 17, 31);
    // 5,000 ids in one millisecond run the 12-bit counter out: the later ones take the next milliseconds.
    const ids = [...Array.from({ length: 5000 }, () => uuidv7(t)), uuidv7(t + 1), uuidv7(t - 5), uuidv7(t + 10_000)];
    const sorted = [...ids].sort();
    expect(sorted).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // The clock stepping back does not take the ids back.
    expect(uuidv7Time(ids.at(-2)!)).toBeGreaterThanOrEqual(t);
  });

  it('keeps 74 random bits: ids of one millisecond differ in their random part, and the bits look random', () => {
    const t = Date.UTC(2026, 11, 3, 17, 32);
    const tails = Array.from({ length: 2000 }, () => uuidv7(t + 20_000).slice(19));
    expect(new Set(tails).size).toBe(tails.length);
    // Each hex digit of the last 12 (48 random bits) takes each of its 16 values about equally often.
    const counts = new Array<number>(16).fill(0);
    for (const tail of tails) for (const c of tail.slice(5)) counts[parseInt(c, 16)]!++;
    const expected = (tails.length * 12) / 16;
    for (const n of counts) expect(Math.abs(n - expected)).toBeLessThan(expected * 0.15);
  });
});
