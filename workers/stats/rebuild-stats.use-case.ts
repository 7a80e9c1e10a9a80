import { Client as PgClient } from 'pg';
import { COUNTED_EVENT_SQL, DAY_BUCKET_SQL, EXPAND_CTES, HOUR_BUCKET_SQL, HOUR_ROWS_SQL, STATS_LOCK_KEY, insertBucketsSql } from './rollup-sql';

const DAY_MS = 86_400_000;
// The widest distance between a local day and the UTC day of the same date (UTC−12 … UTC+14), and a margin.
const ZONE_MARGIN = "interval '15 hours'";
// Days per statement: each reads its events plus the margins, so longer chunks read less twice.
const CHUNK_DAYS = 7;

export interface RebuildRange {
  /** First UTC day to rebuild, YYYY-MM-DD. */
  from: string;
  /** The UTC day after the last one, YYYY-MM-DD (exclusive). */
  to: string;
  /** One client only; all clients when absent. */
  clientId?: number;
}

export interface RebuildResult {
  from: string;
  to: string;
  days: number;
  hourRows: number;
  dayRows: number;
  /** Outbox events of the range the roll-ups now count. */
  events: number;
}

/*
 * One chunk of whole UTC days: delete its hour buckets (first instant within those days) and its day
 * buckets (those dates, in each scope's zone), and fill them again from the stored outbox events around it.
 * An event counts when the worker has counted it already, or when every bucket it falls into lies
 * inside the rebuilt range (all replaced in this transaction): an event the worker has not seen yet
 * near the range's edge is left to the worker, which adds it to every bucket when it is delivered.
 */
function chunkSql(clientFilter: string): string[] {
  // Per event, once: counted already, or every bucket it falls into (UTC and its wall's zone; hours
  // and days) inside the rebuilt range. Only those are expanded into rows.
  const src = `src0 as (
  select e.event_id, e.client_id, e.wall_id, e.type, e.occurred_at, e.data
    from outbox_event e
   where e.occurred_at >= $1::timestamptz - ${ZONE_MARGIN} and e.occurred_at < $2::timestamptz + ${ZONE_MARGIN}
     and ${COUNTED_EVENT_SQL} ${clientFilter.replace(/o\./g, 'e.')}
), eligible as (
  select s.*
    from src0 s
    left join wall w on w.id = s.wall_id and w.client_id = s.client_id
    left join warehouse wh on wh.client_id = w.client_id and wh.id = w.warehouse_id
    cross join lateral (select coalesce(wh.time_zone, 'UTC') as tz) z
   where exists (select 1 from stats_counted_event c where c.event_id = s.event_id)
      or (s.occurred_at >= $3::timestamptz and s.occurred_at < $4::timestamptz
          and date_trunc('hour', s.occurred_at, z.tz) >= $3::timestamptz and date_trunc('hour', s.occurred_at, z.tz) < $4::timestamptz
          and (s.occurred_at at time zone z.tz)::date >= $3::date and (s.occurred_at at time zone z.tz)::date < $4::date)
), src as (
  select e.event_id, e.client_id, e.wall_id, e.type, e.occurred_at, e.data from eligible e
)`;
  return [
    `delete from stats_hour where bucket >= $1::timestamptz and bucket < $2::timestamptz ${clientFilter.replace(/o\./g, '')}`,
    `delete from stats_day where bucket >= $1::date and bucket < $2::date ${clientFilter.replace(/o\./g, '')}`,
    `with ${src}, ${EXPAND_CTES.trim()},
hours as (${insertBucketsSql('stats_hour', HOUR_BUCKET_SQL, 'expanded', `${HOUR_ROWS_SQL} and ${HOUR_BUCKET_SQL} >= $1::timestamptz and ${HOUR_BUCKET_SQL} < $2::timestamptz`)} returning 1),
days as (${insertBucketsSql('stats_day', DAY_BUCKET_SQL, 'expanded', `${DAY_BUCKET_SQL} >= $1::date and ${DAY_BUCKET_SQL} < $2::date`)} returning 1),
marked as (insert into stats_counted_event (event_id) select event_id from src on conflict (event_id) do nothing returning 1)
select (select count(*) from hours)::int as hour_rows, (select count(*) from days)::int as day_rows`,
  ];
}

const parseDay = (day: string) => new Date(`${day}T00:00:00Z`);

/**
 * `npm run cli -- stats rebuild`: recomputes the roll-ups of whole UTC days from the stored outbox
 * events (the one complete record: refused scans and completed slots exist nowhere else). Runs in one
 * REPEATABLE READ transaction (one snapshot of the events for every day) while holding the advisory
 * lock the worker takes per batch: the worker waits, then adds only events the rebuild did not count.
 */
export async function rebuildStats(
  databaseUrl: string,
  range: RebuildRange,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<RebuildResult> {
  const start = parseDay(range.from);
  const end = parseDay(range.to);
  const days = Math.round((end.getTime() - start.getTime()) / DAY_MS);
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  const result: RebuildResult = { from: range.from, to: range.to, days, hourRows: 0, dayRows: 0, events: 0 };
  try {
    await pg.query('select pg_advisory_lock($1)', [STATS_LOCK_KEY]);
    try {
      await pg.query('begin isolation level repeatable read');
      // Day boundaries below are UTC dates of UTC instants, whatever the server's default zone.
      await pg.query(`set local work_mem = '256MB'`);
      await pg.query(`set local timezone = 'UTC'`);
      const clientFilter = range.clientId === undefined ? '' : `and o.client_id = ${Number(range.clientId)}`;
      const [delHours, delDays, fill] = chunkSql(clientFilter);
      onProgress(0, days);
      for (let i = 0; i < days; i += CHUNK_DAYS) {
        const n = Math.min(CHUNK_DAYS, days - i);
        const chunkStart = new Date(start.getTime() + i * DAY_MS).toISOString();
        const chunkEnd = new Date(start.getTime() + (i + n) * DAY_MS).toISOString();
        await pg.query(delHours, [chunkStart, chunkEnd]);
        await pg.query(delDays, [chunkStart, chunkEnd]);
        const { rows } = await pg.query<{ hour_rows: number; day_rows: number }>(fill, [chunkStart, chunkEnd, start.toISOString(), end.toISOString()]);
        result.hourRows += rows[0].hour_rows;
        result.dayRows += rows[0].day_rows;
        onProgress(i + n, days);
      }
      const { rows } = await pg.query<{ n: number }>(
        `select count(*)::int as n from outbox_event o
          where o.occurred_at >= $1 and o.occurred_at < $2 ${clientFilter} and exists (select 1 from stats_counted_event c where c.event_id = o.event_id)`,
        [start.toISOString(), end.toISOString()],
      );
      result.events = rows[0].n;
      await pg.query('commit');
    } catch (err) {
      await pg.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      await pg.query('select pg_advisory_unlock($1)', [STATS_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await pg.end();
  }
  return result;
}
