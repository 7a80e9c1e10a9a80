import { query, queryVariants } from '../../../../shared/db/named-sql';
import { COUNTERS, DIM } from '../../../../shared/statistics/rollup.queries';

/*
 * The insights' reads of the roll-ups (docs/architecture.md "Statistics", docs/insights.md): a range is
 * whole local days from stats_day plus the hours at either end from stats_hour, each along the primary
 * key (client, scope, scope id, dimension, bucket).
 */

export type Counter = (typeof COUNTERS)[number];
export type Counts = Record<Counter, number>;

/**
 * An instant of a question, :<p>At, or a local day of the scope's zone :tz, :<p>Day (its midnight, or
 * with :<p>Plus 1 the next one: a `to` that ends with that day). Exactly one of the two is given.
 */
const instant = (p: 'a' | 'b') => `coalesce(:${p}At::timestamptz, ((:${p}Day::date + :${p}Plus::int)::timestamp at time zone :tz::text))`;

/** The values of the two ends of a range. */
export interface RangeEnds {
  tz: string;
  aAt: string | null;
  aDay: string | null;
  aPlus: number;
  bAt: string | null;
  bDay: string | null;
  bPlus: number;
}

/**
 * The whole local hours around the range: `from` rounded down to its hour, `to` up (exclusive), the
 * first and (exclusive) last whole local day inside, and where the leading hours end and the trailing
 * ones start.
 */
export const localHourRange = query<RangeEnds, { f: Date; t: Date; d1: string; d2: string; h1: Date; h2: Date }>('insights-hour-range', `
select f, t, d1::text, greatest(d1, d2)::text as d2,
       case when d1 < d2 then (d1::timestamp at time zone z) else t end as h1,
       case when d1 < d2 then (d2::timestamp at time zone z) else t end as h2
  from (select f, t, z,
               (f at time zone z)::date + case when (f at time zone z)::time = time '00:00' then 0 else 1 end as d1,
               (t at time zone z)::date as d2
          from (select date_trunc('hour', a, z) as f,
                       case when date_trunc('hour', b, z) = b then b else date_trunc('hour', b, z) + interval '1 hour' end as t, z
                  from (select ${instant('a')} as a, ${instant('b')} as b, :tz::text as z) p) q) r`);

/** The whole local days from the day holding `from` to the day holding `to` (a `to` at midnight ends it). */
export const localDayRange = query<RangeEnds, { d1: string; d2: string; f: Date; t: Date }>('insights-day-range', `
select d1::text, d2::text, (d1::timestamp at time zone z) as f, (d2::timestamp at time zone z) as t
  from (select z, (a at time zone z)::date as d1,
               (b at time zone z)::date + case when (b at time zone z)::time = time '00:00' and b > a then 0 else 1 end as d2
          from (select ${instant('a')} as a, ${instant('b')} as b, :tz::text as z) p) q`);

/** One scope's rows over a range of whole hours (:from, :to), whole days [:day1, :day2) and hours [:from, :h1) and [:h2, :to). */
export interface RangeParams {
  clientId: number;
  scope: number;
  scopeId: number;
  day1: string;
  day2: string;
  from: string;
  h1: string;
  h2: string;
  to: string;
}

const sumCols = COUNTERS.map((c) => `sum(${c})::float8 as ${c}`).join(', ');
const plainCols = COUNTERS.join(', ');

/** The rows of a range, of the dimensions `dims` (an SQL condition on dim). */
const rangeRows = (cols: string, dims: string) => `
  select ${cols} from stats_day
   where client_id = :clientId::int and scope = :scope::int and scope_id = :scopeId::int and ${dims} and bucket >= :day1::date and bucket < :day2::date
  union all
  select ${cols} from stats_hour
   where client_id = :clientId::int and scope = :scope::int and scope_id = :scopeId::int and ${dims} and bucket >= :from::timestamptz and bucket < :h1::timestamptz
  union all
  select ${cols} from stats_hour
   where client_id = :clientId::int and scope = :scope::int and scope_id = :scopeId::int and ${dims} and bucket >= :h2::timestamptz and bucket < :to::timestamptz`;

/** The counters of one dimension over a range, by dimension key (the total's key is ''). */
export const rangeCountsOfDim = query<RangeParams & { dim: number }, { dim_key: string; position: number | null } & Counts>('insights-range-counts', `
select dim_key, ${sumCols}, max(position) as position from (${rangeRows(`dim_key, ${plainCols}, position`, 'dim = :dim::int')}
) u group by dim_key`);

/**
 * The hours worked in a range of whole hours [:from, :to): the scope's local hours in which anything was
 * done at a wall: a scan (also a refused one), a confirmation or a cancel (docs/insights.md).
 */
export const hoursWorked = query<{ clientId: number; scope: number; scopeId: number; from: string; to: string }, { hours: number }>('insights-hours-worked', `
select count(*)::int as hours from stats_hour
 where client_id = :clientId::int and scope = :scope::int and scope_id = :scopeId::int and dim = ${DIM.total} and dim_key = ''
   and bucket >= :from::timestamptz and bucket < :to::timestamptz
   and (scans > 0 or failed_scans > 0 or confirmed_items > 0 or cancelled_items > 0)`);

/** Which dimensions, and the counter that ranks the keys of the limited one: the shape of the statement. */
export interface ByDimShape {
  dims: readonly number[];
  counter: Counter;
}

/**
 * Several dimensions over a range, grouped by dimension and key; of dimension :topDim only the :topLimit
 * keys with the most of the shape's counter (ties by key). The dimensions are literals, as the planner
 * reads them best; the counter names a column.
 */
export const rangeCountsOfDims = queryVariants<ByDimShape, RangeParams & { topDim: number; topLimit: number }, { dim: number; dim_key: string } & Counts>(
  'insights-range-counts-by-dim',
  (s) => `${s.counter}:${s.dims.join(',')}`,
  (s) => `
with g as (
  select dim, dim_key, ${sumCols} from (${rangeRows(`dim, dim_key, ${plainCols}`, `dim in (${s.dims.map((d) => Math.trunc(d)).join(', ')})`)}
  ) u group by dim, dim_key
), ranked as (
  select g.*, row_number() over (partition by dim order by ${s.counter} desc, dim_key) as rank from g
)
select * from ranked where dim <> :topDim::int or (rank <= :topLimit::int and ${s.counter} > 0) order by dim, rank`,
);

/** One local day's figure per local hour of the counter (the shape), of one dimension key. */
export const hourlyCounts = queryVariants<Counter, { tz: string; from: string; to: string; clientId: number; scope: number; scopeId: number; dim: number; key: string }, { hour: number; count: string }>(
  'insights-hourly',
  (counter) => counter,
  (counter) => `
select extract(hour from g at time zone :tz::text)::int as hour, coalesce(sum(h.${counter}), 0)::bigint as count
  from generate_series(:from::timestamptz, :to::timestamptz - interval '1 hour', interval '1 hour') g
  left join stats_hour h on h.client_id = :clientId::int and h.scope = :scope::int and h.scope_id = :scopeId::int and h.dim = :dim::int and h.dim_key = :key::text and h.bucket = g
 group by g order by g`,
);

/** The counter (the shape) per local day of [:day1, :day2), of one dimension key. */
export const dailyCounts = queryVariants<Counter, { day1: string; day2: string; clientId: number; scope: number; scopeId: number; dim: number; key: string }, { date: string; count: string }>(
  'insights-daily',
  (counter) => counter,
  (counter) => `
select g::date::text as date, coalesce(sum(d.${counter}), 0)::bigint as count
  from generate_series(:day1::date, :day2::date - 1, interval '1 day') g
  left join stats_day d on d.client_id = :clientId::int and d.scope = :scope::int and d.scope_id = :scopeId::int and d.dim = :dim::int and d.dim_key = :key::text and d.bucket = g::date
 group by g order by g`,
);

/** The slots attached to the wall now. */
export const wallSlots = query<{ clientId: number; wallId: number }, { crc: string; position: number }>('insights-wall-slots', `
select crc, position from sort_box where client_id = :clientId::int and wall_id = :wallId::int`);

/** A wall with its warehouse's time zone. */
export const wallWithZone = query<{ clientId: number; wallId: number }, { id: number; warehouse_id: number | null; time_zone: string | null }>('insights-wall-zone', `
select w.id, w.warehouse_id, wh.time_zone from wall w
  left join warehouse wh on wh.client_id = w.client_id and wh.id = w.warehouse_id
 where w.client_id = :clientId::int and w.id = :wallId::int`);

/** A warehouse's time zone. */
export const warehouseZone = query<{ clientId: number; warehouseId: number }, { time_zone: string | null }>('insights-warehouse-zone', `
select time_zone from warehouse where client_id = :clientId::int and id = :warehouseId::int`);
