import type { EntityManager } from '@mikro-orm/postgresql';
import { COUNTERS } from '../../../../shared/statistics/rollup-sql';
import type { InsightScope } from './insights-scope';

export type Counter = (typeof COUNTERS)[number];

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

/** SQL and parameters of an instant: a LocalDay becomes a local midnight of `tz`. */
function instantSql(v: Date, tz: string): [string, unknown[]] {
  if (!(v instanceof LocalDay)) return ['?::timestamptz', [v.toISOString()]];
  return [`((?::date + ${v.endOfDay ? 1 : 0})::timestamp at time zone ?)`, [v.day, tz]];
}
export type Counts = Record<Counter, number>;

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
  const [a, aParams] = instantSql(from, timeZone);
  const [b, bParams] = instantSql(to, timeZone);
  const [r] = await em.execute<{ f: Date; t: Date; d1: string; d2: string; h1: Date; h2: Date }[]>(
    `select f, t, d1::text, greatest(d1, d2)::text as d2,
            case when d1 < d2 then (d1::timestamp at time zone z) else t end as h1,
            case when d1 < d2 then (d2::timestamp at time zone z) else t end as h2
       from (select f, t, z,
                    (f at time zone z)::date + case when (f at time zone z)::time = time '00:00' then 0 else 1 end as d1,
                    (t at time zone z)::date as d2
               from (select date_trunc('hour', a, z) as f,
                            case when date_trunc('hour', b, z) = b then b else date_trunc('hour', b, z) + interval '1 hour' end as t, z
                       from (select ${a} as a, ${b} as b, ?::text as z) p) q) r`,
    [...aParams, ...bParams, timeZone],
  );
  return { from: new Date(r.f), to: new Date(r.t), day1: r.d1, day2: r.d2, h1: new Date(r.h1), h2: new Date(r.h2) };
}

const sumCols = COUNTERS.map((c) => `sum(${c})::float8 as ${c}`).join(', ');
const plainCols = COUNTERS.join(', ');

/** The counters of one scope and dimension over a range, by dimension key (the total's key is ''). */
export async function rangeCounts(em: EntityManager, s: InsightScope, dim: number, r: HourRange): Promise<Map<string, Counts & { position: number | null }>> {
  const rows = await em.execute<({ dim_key: string; position: number | null } & Counts)[]>(
    `select dim_key, ${sumCols}, max(position) as position from (
       select dim_key, ${plainCols}, position from stats_day
        where client_id = ? and scope = ? and scope_id = ? and dim = ? and bucket >= ?::date and bucket < ?::date
       union all
       select dim_key, ${plainCols}, position from stats_hour
        where client_id = ? and scope = ? and scope_id = ? and dim = ? and bucket >= ? and bucket < ?
       union all
       select dim_key, ${plainCols}, position from stats_hour
        where client_id = ? and scope = ? and scope_id = ? and dim = ? and bucket >= ? and bucket < ?
     ) u group by dim_key`,
    [
      s.clientId, s.scope, s.scopeId, dim, r.day1, r.day2,
      s.clientId, s.scope, s.scopeId, dim, r.from.toISOString(), r.h1.toISOString(),
      s.clientId, s.scope, s.scopeId, dim, r.h2.toISOString(), r.to.toISOString(),
    ],
  );
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
  const dimList = dims.map((d) => Math.trunc(d)).join(', ');
  const rows = await em.execute<({ dim: number; dim_key: string } & Counts)[]>(
    `with g as (
       select dim, dim_key, ${sumCols} from (
         select dim, dim_key, ${plainCols} from stats_day
          where client_id = ? and scope = ? and scope_id = ? and dim in (${dimList}) and bucket >= ?::date and bucket < ?::date
         union all
         select dim, dim_key, ${plainCols} from stats_hour
          where client_id = ? and scope = ? and scope_id = ? and dim in (${dimList}) and bucket >= ? and bucket < ?
         union all
         select dim, dim_key, ${plainCols} from stats_hour
          where client_id = ? and scope = ? and scope_id = ? and dim in (${dimList}) and bucket >= ? and bucket < ?
       ) u group by dim, dim_key
     ), ranked as (
       select g.*, row_number() over (partition by dim order by ${top.counter} desc, dim_key) as rank from g
     )
     select * from ranked where dim <> ? or (rank <= ? and ${top.counter} > 0) order by dim, rank`,
    [
      s.clientId, s.scope, s.scopeId, r.day1, r.day2,
      s.clientId, s.scope, s.scopeId, r.from.toISOString(), r.h1.toISOString(),
      s.clientId, s.scope, s.scopeId, r.h2.toISOString(), r.to.toISOString(),
      top.dim, Math.trunc(top.limit),
    ],
  );
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
  const [a, aParams] = instantSql(from, timeZone);
  const [b, bParams] = instantSql(to, timeZone);
  const [r] = await em.execute<{ d1: string; d2: string; f: Date; t: Date }[]>(
    `select d1::text, d2::text, (d1::timestamp at time zone z) as f, (d2::timestamp at time zone z) as t
       from (select z, (a at time zone z)::date as d1,
                    (b at time zone z)::date + case when (b at time zone z)::time = time '00:00' and b > a then 0 else 1 end as d2
               from (select ${a} as a, ${b} as b, ?::text as z) p) q`,
    [...aParams, ...bParams, timeZone],
  );
  return { from: new Date(r.f), to: new Date(r.t), day1: r.d1, day2: r.d2 };
}
