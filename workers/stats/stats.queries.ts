import { query } from '../../shared/db/named-sql';
import { DAY_BUCKET_SQL, EXPAND_CTES, HOUR_BUCKET_SQL, HOUR_ROWS_SQL, insertBucketsSql } from '../../shared/statistics/rollup.queries';

/* The statistics consumer's statements (workers/stats/apply-events.use-case.ts). */

// First in a batch's transaction: wait while a rebuild replaces buckets (docs/architecture.md
// "Statistics"), and give the batch's in-memory grouping of buckets room (the default 4 MB would spill
// a large batch to disk). One round trip.
export const lockStatsForBatch = query<{ lockKey: number }>(
  'stats-lock-for-batch',
  `select pg_advisory_xact_lock(:lockKey::bigint), set_config('work_mem', '64MB', true)`,
);

/** Adds the events of relation `src` (the columns EXPAND_CTES reads) to their hour and day buckets of every scope and dimension. */
const applySql = (src: string) => `
with src as (${src}), ${EXPAND_CTES.trim()},
hours as (${insertBucketsSql('stats_hour', HOUR_BUCKET_SQL, 'expanded', HOUR_ROWS_SQL)} returning 1),
days as (${insertBucketsSql('stats_day', DAY_BUCKET_SQL, 'expanded')} returning 1)
select (select count(*) from facts)::int as counted, (select count(*) from hours)::int as hour_rows, (select count(*) from days)::int as day_rows`;

type Applied = { counted: number; hour_rows: number; day_rows: number };

// The consumer's statement: the relayed events with outbox ids in (:after, :through], read in the database (no event
// travels to the process). Its position moves in the same transaction, so each is counted once.
export const applyStatsRange = query<{ after: string; through: string }, Applied>(
  'stats-apply-range',
  applySql(`select o.event_id, o.client_id, o.wall_id, o.type, o.occurred_at, o.data from outbox_event o
   where o.id > :after::bigint and o.id <= :through::bigint`),
);

// The same for events handed over as one JSON parameter (`events`), each counted as given: the caller
// makes sure it hands each event over once (the bench's consumer-rate measurement).
export const applyStatsBatch = query<{ events: string }, Applied>(
  'stats-apply-batch',
  applySql(`select distinct on (e.event_id) e.*
    from jsonb_to_recordset(:events::jsonb) as e(event_id uuid, client_id int, wall_id int, type text, occurred_at timestamptz, data jsonb)`),
);
