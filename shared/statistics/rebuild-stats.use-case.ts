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
  /** Outbox events of the range the roll-ups count now (the consumer adds the ones after its position). */
  events: number;
}

/*
 * One chunk of whole UTC days: delete its hour buckets (first instant within those days) and its day
 * buckets (those dates, in each scope's zone), and fill them again from the stored outbox events around it.
 * An event counts when the statistics consumer has counted it: its relay_seq is at or before the
 * consumer's position ($5, read under the lock the consumer takes per batch). An event after it is left
 * to the consumer, which adds it to every bucket when it gets there. Events stored before relay_seq
 * existed (relayed, without one) count when an older consumer recorded them in stats_counted_event, or
 * when every bucket they fall into lies inside the rebuilt range (all replaced in this transaction).
 */
function chunkSql(clientFilter: string): string[] {
  // Per event, once: counted already, or (an older event) every bucket it falls into (UTC and its
  // wall's zone; hours and days) inside the rebuilt range. Only those are expanded into rows.
  const src = `src0 as (
  select e.event_id, e.client_id, e.wall_id, e.type, e.occurred_at, e.data, e.relay_seq, e.published_at
    from outbox_event e
   where e.occurred_at >= $1::timestamptz - ${ZONE_MARGIN} and e.occurred_at < $2::timestamptz + ${ZONE_MARGIN}
     and ${COUNTED_EVENT_SQL} ${clientFilter.replace(/o\./g, 'e.')}
), eligible as (
  select s.*
    from src0 s
    left join wall w on w.id = s.wall_id and w.client_id = s.client_id
    left join warehouse wh on wh.client_id = w.client_id and wh.id = w.warehouse_id
    cross join lateral (select coalesce(wh.time_zone, 'UTC') as tz) z
   where s.relay_seq <= $5::bigint
      or (s.relay_seq is null and s.published_at is not null
          and (exists (select 1 from stats_counted_event c where c.event_id = s.event_id)
               or (s.occurred_at >= $3::timestamptz and s.occurred_at < $4::timestamptz
                   and date_trunc('hour', s.occurred_at, z.tz) >= $3::timestamptz and date_trunc('hour', s.occurred_at, z.tz) < $4::timestamptz
                   and (s.occurred_at at time zone z.tz)::date >= $3::date and (s.occurred_at at time zone z.tz)::date < $4::date)))
), src as (
  select e.event_id, e.client_id, e.wall_id, e.type, e.occurred_at, e.data from eligible e
)`;
  return [
    `delete from stats_hour where bucket >= $1::timestamptz and bucket < $2::timestamptz ${clientFilter.replace(/o\./g, '')}`,
    `delete from stats_day where bucket >= $1::date and bucket < $2::date ${clientFilter.replace(/o\./g, '')}`,
    `with ${src}, ${EXPAND_CTES.trim()},
hours as (${insertBucketsSql('stats_hour', HOUR_BUCKET_SQL, 'expanded', `${HOUR_ROWS_SQL} and ${HOUR_BUCKET_SQL} >= $1::timestamptz and ${HOUR_BUCKET_SQL} < $2::timestamptz`)} returning 1),
days as (${insertBucketsSql('stats_day', DAY_BUCKET_SQL, 'expanded', `${DAY_BUCKET_SQL} >= $1::date and ${DAY_BUCKET_SQL} < $2::date`)} returning 1)
select (select count(*) from hours)::int as hour_rows, (select count(*) from days)::int as day_rows,
       (select count(*) from src where occurred_at >= $1::timestamptz and occurred_at < $2::timestamptz)::int as events`,
  ];
}

/**
 * The first UTC day a rebuild can restore: every event that falls into its buckets (in any time zone)
 * is still stored. Null when the outbox retention has not deleted anything yet.
 */
export async function firstRebuildableDay(pg: Pick<PgClient, 'query'>): Promise<string | null> {
  const { rows } = await pg.query<{ day: string | null }>(
    `select to_char(date_trunc('day', (deleted_before at time zone 'UTC') + ${ZONE_MARGIN}) + interval '1 day', 'YYYY-MM-DD') as day
       from retention_horizon where kind = 'outbox'`,
  );
  return rows[0]?.day ?? null;
}

const parseDay = (day: string) => new Date(`${day}T00:00:00Z`);

/**
 * `npm run cli -- stats rebuild`: recomputes the roll-ups of whole UTC days from the stored outbox
 * events (the one complete record: refused scans and completed slots exist nowhere else), as far back
 * as the outbox retention keeps them (firstRebuildableDay; an earlier range is refused). Runs in one
 * REPEATABLE READ transaction (one snapshot of the events for every day) while holding the advisory
 * lock the consumer takes per batch: the consumer waits, then adds the events after its position.
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
      const first = await firstRebuildableDay(pg);
      if (first !== null && range.from < first) {
        throw new Error(
          `The outbox keeps the events of ${first} and later (OUTBOX_RETENTION_DAYS): a rebuild can start on ${first} at the earliest, not ${range.from}; the roll-ups of earlier days are kept as they are.`,
        );
      }
      // Everything the statistics consumer has counted (it waits on the lock held here meanwhile).
      const { rows: consumer } = await pg.query<{ position: string }>(`select position::text from outbox_consumer where name = 'stats'`);
      const position = consumer[0]?.position ?? '0';
      const [delHours, delDays, fill] = chunkSql(clientFilter);
      onProgress(0, days);
      for (let i = 0; i < days; i += CHUNK_DAYS) {
        const n = Math.min(CHUNK_DAYS, days - i);
        const chunkStart = new Date(start.getTime() + i * DAY_MS).toISOString();
        const chunkEnd = new Date(start.getTime() + (i + n) * DAY_MS).toISOString();
        await pg.query(delHours, [chunkStart, chunkEnd]);
        await pg.query(delDays, [chunkStart, chunkEnd]);
        const { rows } = await pg.query<{ hour_rows: number; day_rows: number; events: number }>(fill, [
          chunkStart,
          chunkEnd,
          start.toISOString(),
          end.toISOString(),
          position,
        ]);
        result.hourRows += rows[0].hour_rows;
        result.dayRows += rows[0].day_rows;
        result.events += rows[0].events;
        onProgress(i + n, days);
      }
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
