import type { CommandRefusedData } from '../events/command-refused';

/**
 * The one definition of what an event counts for (docs/architecture.md "Statistics"), as SQL over any
 * relation `src(event_id, client_id, wall_id, type, occurred_at, data)`: the worker runs it over the
 * batch it was handed, the rebuild over stored outbox events. Both therefore count alike.
 */

/** Scope of a roll-up row: the whole client (UTC), one warehouse, one wall (their warehouse's zone). */
export const SCOPE = { client: 0, warehouse: 1, wall: 2 } as const;
/** Dimension of a roll-up row: the scope's total, or one user, sku, input method, slot (crc) or refusal code (reason). */
export const DIM = { total: 0, user: 1, sku: 2, method: 3, slot: 4, reason: 5 } as const;

/** Every counter column of stats_hour and stats_day. */
export const COUNTERS = ['scans', 'failed_scans', 'confirmed_items', 'confirmed_units', 'cancelled_items', 'sorted_orders', 'confirm_ms', 'refusals'] as const;

/** Event types that change a counter; anything else is ignored (and not recorded as counted). */
export const COUNTED_TYPES = ['sort-box-item.created', 'sort-box-item.confirmed', 'sort-box-item.cancelled', 'sort-box.completed', 'command.refused'] as const;

/** The command whose refusals count as failed scans (every refusal counts in `refusals`, by its code). */
const SCAN_COMMAND = 'item.scan' satisfies CommandRefusedData['command'];

/** A `where` condition on `e` choosing the events that count: every refusal counts, by its code. */
export const COUNTED_EVENT_SQL = `e.type in (${COUNTED_TYPES.map((t) => `'${t}'`).join(', ')})`;

/** A condition on `e`: the event is a refused scan. */
const REFUSED_SCAN = `(e.type = 'command.refused' and coalesce(e.data->>'command', '') = '${SCAN_COMMAND}')`;

/**
 * CTEs `facts` (one row per counted event: its wall's warehouse, user, sku, method, slot, counter
 * values and its buckets), `grouped` (the facts summed per wall, user, sku, method, slot, refusal code
 * and local and UTC hour: the events a batch has in common, added up once) and `expanded` (one row per
 * group, scope and dimension, with the scope's hour and day bucket), reading `src`.
 * - a scan counts at its item's creation, a confirmation its item's confirmedUnits (units, or 1, on an
 *   older event) at the confirmation, with confirmedAt − createdAt in milliseconds;
 * - a refused scan counts as a failed scan of its user and input method (no sku, no slot);
 * - every refused command (a scan, a confirm, a release, ...) counts as a refusal of its code, in the
 *   reason dimension (code = dim key) and the totals; a refusal of another command than a scan has no
 *   user or method (the per-user and per-method figures are of scans);
 * - a slot's completion is its order sorted (no user, sku or method).
 * Input methods are kept per wall; slots per wall and per client (the billing figure, in UTC, by day).
 * Each event's buckets are computed once, in UTC and in its wall's zone (a local hour lies within one
 * local date, so the hour decides the day), and the expansion into scopes and dimensions follows the
 * grouping: a batch multiplies its groups, not its events, by the 3 scopes and 6 dimensions.
 */
export const EXPAND_CTES = `
facts as (
  select e.client_id, w.id as wall_id, w.warehouse_id,
         case when ${REFUSED_SCAN} then (e.data->>'userId')::int
              when e.type = 'command.refused' then null else (e.data->'item'->>'userId')::int end as user_id,
         case when e.type = 'command.refused' then null else e.data->'item'->>'sku' end as sku,
         case when ${REFUSED_SCAN} then coalesce(e.data->>'barcodeInputMethod', 'Scanned')
              when e.type in ('command.refused', 'sort-box.completed') then null
              else e.data->'item'->>'barcodeInputMethod' end as method,
         case when e.type = 'command.refused' then null else coalesce(e.data->'item'->>'crc', e.data->'sortBox'->>'crc') end as crc,
         case when e.type = 'command.refused' then null else coalesce((e.data->'item'->>'position')::int, (e.data->'sortBox'->>'position')::int) end as position,
         (e.type = 'sort-box-item.created')::int as scans,
         ${REFUSED_SCAN}::int as failed_scans,
         (e.type = 'sort-box-item.confirmed')::int as confirmed_items,
         case when e.type = 'sort-box-item.confirmed'
              then coalesce((e.data->'item'->>'confirmedUnits')::int, (e.data->'item'->>'units')::int, 1) else 0 end as confirmed_units,
         (e.type = 'sort-box-item.cancelled')::int as cancelled_items,
         (e.type = 'sort-box.completed')::int as sorted_orders,
         case when e.type = 'sort-box-item.confirmed'
              then round(extract(epoch from (coalesce((e.data->'item'->>'confirmedAt')::timestamptz, e.occurred_at)
                                             - (e.data->'item'->>'createdAt')::timestamptz)) * 1000)::bigint
              else 0 end as confirm_ms,
         (e.type = 'command.refused')::int as refusals,
         case when e.type = 'command.refused' then e.data->>'code' end as reason,
         date_trunc('hour', e.occurred_at, 'UTC') as utc_hour, (e.occurred_at at time zone 'UTC')::date as utc_day,
         date_trunc('hour', e.occurred_at, z.tz) as local_hour, (e.occurred_at at time zone z.tz)::date as local_day
    from src e
    left join wall w on w.id = e.wall_id and w.client_id = e.client_id
    left join warehouse wh on wh.client_id = w.client_id and wh.id = w.warehouse_id
   cross join lateral (select coalesce(wh.time_zone, 'UTC') as tz) z
   where ${COUNTED_EVENT_SQL}
),
grouped as (
  select client_id, wall_id, warehouse_id, user_id, sku, method, crc, reason, utc_hour, utc_day, local_hour, local_day,
         max(position) as position, ${COUNTERS.map((c) => `sum(${c})::${c === 'confirm_ms' ? 'bigint' : 'int'} as ${c}`).join(', ')}
    from facts
   group by client_id, wall_id, warehouse_id, user_id, sku, method, crc, reason, utc_hour, utc_day, local_hour, local_day
),
expanded as (
  select g.client_id, s.scope, s.scope_id, d.dim, d.dim_key, s.bucket_hour, s.bucket_day,
         case when d.dim = ${DIM.slot} then g.position end as position,
         ${COUNTERS.map((c) => `g.${c}`).join(', ')}
    from grouped g
   cross join lateral (values (${SCOPE.client}::smallint, 0, g.utc_hour, g.utc_day),
                              (${SCOPE.warehouse}::smallint, g.warehouse_id, g.local_hour, g.local_day),
                              (${SCOPE.wall}::smallint, g.wall_id, g.local_hour, g.local_day)) s(scope, scope_id, bucket_hour, bucket_day)
   cross join lateral (values (${DIM.total}::smallint, ''::text), (${DIM.user}::smallint, g.user_id::text), (${DIM.sku}::smallint, g.sku),
                              (${DIM.method}::smallint, g.method), (${DIM.slot}::smallint, g.crc), (${DIM.reason}::smallint, g.reason)) d(dim, dim_key)
   where s.scope_id is not null and d.dim_key is not null
     and (d.dim <> ${DIM.method} or s.scope = ${SCOPE.wall})
     and (d.dim <> ${DIM.slot} or s.scope <> ${SCOPE.warehouse})
)`;

/** The client's slots are kept by day only: they answer the billing figure, a count per month. */
export const HOUR_ROWS_SQL = `not (dim = ${DIM.slot} and scope = ${SCOPE.client})`;

/** A row of `expanded`'s buckets: the local hour's first instant and the local date, in the scope's zone. */
export const HOUR_BUCKET_SQL = `bucket_hour`;
export const DAY_BUCKET_SQL = `bucket_day`;

const sums = COUNTERS.map((c) => `sum(${c})`).join(', ');
const cols = COUNTERS.join(', ');

/**
 * An `insert ... select` of the rows of `from` (a relation with the `expanded` columns) into `table`,
 * grouped into `bucketSql` buckets, adding to a bucket that exists (the rebuild deletes its buckets first).
 */
export function insertBucketsSql(table: 'stats_hour' | 'stats_day', bucketSql: string, from: string, where = 'true'): string {
  const add = COUNTERS.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', ');
  return `insert into ${table} (client_id, scope, scope_id, dim, dim_key, bucket, ${cols}, position)
  select client_id, scope, scope_id, dim, dim_key, ${bucketSql}, ${sums}, max(position)
    from ${from} where ${where}
   group by client_id, scope, scope_id, dim, dim_key, ${bucketSql}
  on conflict (client_id, scope, scope_id, dim, bucket, dim_key) do update
     set ${add}, position = greatest(${table}.position, excluded.position)`;
}

/**
 * The worker and the rebuild serialize on this advisory lock: a rebuild replaces buckets from one
 * snapshot of the events while no batch is being added to them.
 */
export const STATS_LOCK_KEY = 0x57a75;
