import { query } from '../../shared/db/named-sql';
import { COUNTED_EVENT_SQL, DAY_BUCKET_SQL, EXPAND_CTES, HOUR_BUCKET_SQL, HOUR_ROWS_SQL, insertBucketsSql } from './rollup-sql';

/* The statistics consumer's statements (workers/stats/apply-events.use-case.ts). */

// First in a batch's transaction: wait while a rebuild replaces buckets (docs/architecture.md
// "Statistics"), and give the batch's in-memory grouping of buckets room (the default 4 MB would spill
// a large batch to disk). One round trip.
export const lockStatsForBatch = query<{ lockKey: number }>(
  'stats-lock-for-batch',
  `select pg_advisory_xact_lock(:lockKey::bigint), set_config('work_mem', '64MB', true)`,
);

// One statement (`events`: the batch's records as JSON): record its counted events (a replay finds its
// id and adds nothing), then add only the newly recorded ones to their hour and day buckets of every
// scope and dimension.
export const applyStatsBatch = query<{ events: string }, { counted: number; hour_rows: number; day_rows: number }>('stats-apply-batch', `
with src0 as (
  select distinct on (e.event_id) e.*
    from jsonb_to_recordset(:events::jsonb) as e(event_id uuid, client_id int, wall_id int, type text, occurred_at timestamptz, data jsonb)
), counted as (
  insert into stats_counted_event (event_id)
  select e.event_id from src0 e where ${COUNTED_EVENT_SQL}
  on conflict (event_id) do nothing
  returning event_id
), src as (
  select s.* from src0 s join counted c on c.event_id = s.event_id
), ${EXPAND_CTES.trim()},
hours as (${insertBucketsSql('stats_hour', HOUR_BUCKET_SQL, 'expanded', HOUR_ROWS_SQL)} returning 1),
days as (${insertBucketsSql('stats_day', DAY_BUCKET_SQL, 'expanded')} returning 1)
select (select count(*) from counted)::int as counted, (select count(*) from hours)::int as hour_rows, (select count(*) from days)::int as day_rows`);
