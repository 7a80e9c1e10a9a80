import type { EntityManager } from '@mikro-orm/postgresql';
import { COUNTERS } from '../../../../shared/statistics/rollup.queries';
import { emSql } from '../../../../shared/db/orm-sql';
import { localDayRange, localHourRange, rangeCountsOfDim, rangeCountsOfDims, type Counter, type Counts, type RangeEnds, type RangeParams } from './insights.queries';
import type { InsightScope } from './insights-scope';

export type { Counter, Counts };

/**
 * A date without a time (`YYYY-MM-DD`) given as from, to or date: that day's local midnight in the
 * scope's zone, not UTC's; as a `to`, the end of that day (the day is included). As a Date it is the
 * UTC equivalent (for validation only).
 */
export class LocalDay extends Date {
  constructor(
    readonly day: string,
    readonly endOfDay = false,
  ) {
    super(Date.parse(`${day}T00:00:00Z`) + (endOfDay ? 86_400_000 : 0));
  }
}

/** The two ends of a range as the statements take them: a LocalDay is a local midnight of `tz`. */
function rangeEnds(tz: string, from: Date, to: Date): RangeEnds {
  const end = (v: Date) =>
    v instanceof LocalDay ? { at: null, day: v.day, plus: v.endOfDay ? 1 : 0 } : { at: v.toISOString(), day: null, plus: 0 };
  const a = end(from);
  const b = end(to);
  return { tz, aAt: a.at, aDay: a.day, aPlus: a.plus, bAt: b.at, bDay: b.day, bPlus: b.plus };
}

/**
 * A range of whole local hours: `from` rounded down to its hour, `to` up (exclusive), in the scope's
 * zone. Whole local days inside it are read from stats_day, the hours at either end from stats_hour:
 * at most 2 × 23 hour rows per key whatever the range's length.
 */
export interface HourRange {
  from: Date;
  to: Date;
  /** First and (exclusive) last whole local day, YYYY-MM-DD; equal when the range holds none. */
  day1: string;
  day2: string;
  /** The leading hours end, the trailing hours start here. */
  h1: Date;
  h2: Date;
}

export async function hourRange(em: EntityManager, timeZone: string, from: Date, to: Date): Promise<HourRange> {
  const [r] = await localHourRange(emSql(em), rangeEnds(timeZone, from, to));
  return { from: new Date(r.f), to: new Date(r.t), day1: r.d1, day2: r.d2, h1: new Date(r.h1), h2: new Date(r.h2) };
}

/** The values of a scope's rows over a range. */
function rangeParams(s: InsightScope, r: HourRange): RangeParams {
  return {
    clientId: s.clientId,
    scope: s.scope,
    scopeId: s.scopeId,
    day1: r.day1,
    day2: r.day2,
    from: r.from.toISOString(),
    h1: r.h1.toISOString(),
    h2: r.h2.toISOString(),
    to: r.to.toISOString(),
  };
}

/** The counters of one scope and dimension over a range, by dimension key (the total's key is ''). */
export async function rangeCounts(em: EntityManager, s: InsightScope, dim: number, r: HourRange): Promise<Map<string, Counts & { position: number | null }>> {
  const rows = await rangeCountsOfDim(emSql(em), { ...rangeParams(s, r), dim });
  const out = new Map<string, Counts & { position: number | null }>();
  for (const row of rows) {
    const counts = { position: row.position } as Counts & { position: number | null };
    for (const c of COUNTERS) counts[c] = Number(row[c]);
    out.set(row.dim_key, counts);
  }
  return out;
}

/**
 * Several dimensions of one scope over a range in one statement (one round trip), grouped by dimension
 * and key; of dimension `top.dim` only the `top.limit` keys with the most `top.counter` (ties by key).
 */
export async function rangeCountsByDim(
  em: EntityManager,
  s: InsightScope,
  dims: number[],
  r: HourRange,
  top: { dim: number; counter: Counter; limit: number },
): Promise<Map<number, Map<string, Counts>>> {
  const rows = await rangeCountsOfDims(emSql(em), { dims, counter: top.counter }, { ...rangeParams(s, r), topDim: top.dim, topLimit: Math.trunc(top.limit) });
  const out = new Map<number, Map<string, Counts>>(dims.map((d) => [d, new Map()]));
  for (const row of rows) {
    const counts = {} as Counts;
    for (const c of COUNTERS) counts[c] = Number(row[c]);
    out.get(Number(row.dim))?.set(row.dim_key, counts);
  }
  return out;
}

export function zeroCounts(): Counts {
  const counts = {} as Counts;
  for (const c of COUNTERS) counts[c] = 0;
  return counts;
}

/** A range of whole local days: the day holding `from` to the day holding `to` (a `to` at midnight ends it). */
export interface DayRange {
  from: Date;
  to: Date;
  /** First and (exclusive) last day, YYYY-MM-DD. */
  day1: string;
  day2: string;
}

export async function dayRange(em: EntityManager, timeZone: string, from: Date, to: Date): Promise<DayRange> {
  const [r] = await localDayRange(emSql(em), rangeEnds(timeZone, from, to));
  return { from: new Date(r.f), to: new Date(r.t), day1: r.d1, day2: r.d2 };
}
