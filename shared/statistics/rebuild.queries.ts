import { query, queryVariants } from '../db/named-sql';
import { COUNTED_EVENT_SQL, DAY_BUCKET_SQL, EXPAND_CTES, HOUR_BUCKET_SQL, HOUR_ROWS_SQL, insertBucketsSql } from './rollup.queries';

/*
 * The statistics rebuild's statements (rebuild-stats.use-case.ts, docs/architecture.md "Statistics"):
 * one REPEATABLE READ transaction on a connection of its own, holding the lock the consumer takes per
 * batch, that deletes and refills whole UTC days chunk by chunk.
 */

// The widest distance between a local day and the UTC day of the same date (UTC−12 … UTC+14), and a margin.
const ZONE_MARGIN = "interval '15 hours'";

/** The lock the statistics consumer takes per batch, held for the whole rebuild (a session lock: it outlives a failed transaction). */
export const lockStatistics = query<{ lockKey: number }>('stats-rebuild-lock', 'select pg_advisory_lock(:lockKey::bigint)');
export const unlockStatistics = query<{ lockKey: number }>('stats-rebuild-unlock', 'select pg_advisory_unlock(:lockKey::bigint)');

/**
 * One snapshot of the events for every day; day boundaries below are UTC dates of UTC instants,
 * whatever the server's default zone; room for the grouping of a week of buckets.
 */
export const beginRebuild = query<Record<string, never>>('stats-rebuild-begin', 'begin isolation level repeatable read');
export const rebuildSettings = query<Record<string, never>>(
  'stats-rebuild-settings',
  `select set_config('work_mem', '256MB', true), set_config('timezone', 'UTC', true)`,
);
export const commitRebuild = query<Record<string, never>>('stats-rebuild-commit', 'commit');
export const rollbackRebuild = query<Record<string, never>>('stats-rebuild-rollback', 'rollback');

/**
 * The first UTC day a rebuild can restore: every event that falls into its buckets (in any time zone)
 * is still stored. No row (or a null day) while the outbox retention has not deleted anything yet.
 */
export const firstRebuildableUtcDay = query<Record<string, never>, { day: string | null }>('stats-first-rebuildable-day', `
select to_char(date_trunc('day', (deleted_before at time zone 'UTC') + ${ZONE_MARGIN}) + interval '1 day', 'YYYY-MM-DD') as day
  from retention_horizon where kind = 'outbox'`);

/** Everything the statistics consumer has counted (it waits on the lock the rebuild holds). */
export const statsConsumerPosition = query<Record<string, never>, { position: string }>('stats-consumer-position', `
select position::text from outbox_consumer where name = 'stats'`);

/** Whether the rebuild is of one client (:clientId) or of all: the shape of its statements. */
export type RebuildScope = 'client' | 'all';
const clientOf = (scope: RebuildScope, alias: string) => (scope === 'client' ? ` and ${alias}client_id = :clientId::int` : '');

/** The values of one chunk [:chunkFrom, :chunkTo) of whole UTC days (and :clientId for one client). */
export interface ChunkParams {
  chunkFrom: string;
  chunkTo: string;
  clientId?: number;
}

/** The chunk's hour buckets (first instant within those days). */
export const deleteHourBuckets = queryVariants<RebuildScope, ChunkParams>('stats-rebuild-delete-hours', (s) => s, (s) => `
delete from stats_hour where bucket >= :chunkFrom::timestamptz and bucket < :chunkTo::timestamptz${clientOf(s, '')}`);

/** The chunk's day buckets (those dates, in each scope's zone). */
export const deleteDayBuckets = queryVariants<RebuildScope, ChunkParams>('stats-rebuild-delete-days', (s) => s, (s) => `
delete from stats_day where bucket >= :chunkFrom::date and bucket < :chunkTo::date${clientOf(s, '')}`);

/*
 * The chunk's buckets filled again from the stored outbox events around it. An event counts when the
 * statistics consumer has counted it: its outbox id is at or before the consumer's :position (read under
 * the lock the consumer takes per batch). An event after it is left to the consumer, which adds it to
 * every bucket when it gets there. Only those are expanded into rows.
 */
export const refillBuckets = queryVariants<RebuildScope, ChunkParams & { rangeFrom: string; rangeTo: string; position: string }, { hour_rows: number; day_rows: number; events: number }>(
  'stats-rebuild-refill',
  (s) => s,
  (s) => `
with src0 as (
  select e.id, e.event_id, e.client_id, e.wall_id, e.type, e.occurred_at, e.data
    from outbox_event e
   where e.occurred_at >= :chunkFrom::timestamptz - ${ZONE_MARGIN} and e.occurred_at < :chunkTo::timestamptz + ${ZONE_MARGIN}
     and ${COUNTED_EVENT_SQL}${clientOf(s, 'e.')}
), src as (
  select e.event_id, e.client_id, e.wall_id, e.type, e.occurred_at, e.data from src0 e where e.id <= :position::bigint
), ${EXPAND_CTES.trim()},
hours as (${insertBucketsSql('stats_hour', HOUR_BUCKET_SQL, 'expanded', `${HOUR_ROWS_SQL} and ${HOUR_BUCKET_SQL} >= :chunkFrom::timestamptz and ${HOUR_BUCKET_SQL} < :chunkTo::timestamptz`)} returning 1),
days as (${insertBucketsSql('stats_day', DAY_BUCKET_SQL, 'expanded', `${DAY_BUCKET_SQL} >= :chunkFrom::date and ${DAY_BUCKET_SQL} < :chunkTo::date`)} returning 1)
select (select count(*) from hours)::int as hour_rows, (select count(*) from days)::int as day_rows,
       (select count(*) from src where occurred_at >= :chunkFrom::timestamptz and occurred_at < :chunkTo::timestamptz)::int as events`,
);
