import type { EntityManager } from '@mikro-orm/postgresql';
import { boundSql } from '../../shared/db/bound-sql';
import type { WallEvent } from '../../shared/events/channels';
import { COUNTED_EVENT_SQL, DAY_BUCKET_SQL, EXPAND_CTES, HOUR_BUCKET_SQL, HOUR_ROWS_SQL, STATS_LOCK_KEY, insertBucketsSql } from './rollup-sql';

/** An outbox row as the relay reads it (snake case), the other shape a batch may come in. */
export interface OutboxEventRow {
  event_id: string;
  client_id: number;
  wall_id: number | null;
  type: string;
  occurred_at: Date | string;
  data: unknown;
}

export type StatsEvent = WallEvent | OutboxEventRow;

interface EventRecord {
  event_id: string;
  client_id: number;
  wall_id: number | null;
  type: string;
  occurred_at: string;
  data: unknown;
}

function toRecord(e: StatsEvent): EventRecord {
  if ('event_id' in e) {
    return { event_id: e.event_id, client_id: e.client_id, wall_id: e.wall_id, type: e.type, occurred_at: new Date(e.occurred_at).toISOString(), data: e.data };
  }
  return { event_id: e.id, client_id: e.clientId, wall_id: e.wallId, type: e.type, occurred_at: new Date(e.occurredAt).toISOString(), data: e.data };
}

// One statement: record the batch's counted events (a replay finds its id and adds nothing), then add
// only the newly recorded ones to their hour and day buckets of every scope and dimension.
const APPLY_SQL = `
with src0 as (
  select distinct on (e.event_id) e.*
    from jsonb_to_recordset(?::jsonb) as e(event_id uuid, client_id int, wall_id int, type text, occurred_at timestamptz, data jsonb)
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
select (select count(*) from counted)::int as counted, (select count(*) from hours)::int as hour_rows, (select count(*) from days)::int as day_rows`;

export interface ApplyResult {
  /** Events of the batch counted now (not counted before, of a type that counts). */
  counted: number;
  /** Roll-up rows written (hour and day buckets). */
  rows: number;
}

/**
 * The statistics consumer: adds a batch of events to the roll-ups, idempotently and in any order.
 * Every counter is a sum of per-event values bucketed by the event's own instant, so delivery order
 * does not matter; the counted-event record, written in the same transaction, makes a replay a no-op.
 */
export async function applyStatsEvents(em: EntityManager, events: readonly StatsEvent[]): Promise<ApplyResult> {
  if (events.length === 0) return { counted: 0, rows: 0 };
  const records = events.map(toRecord);
  return em.transactional(async (tx) => {
    // Waits while a rebuild replaces buckets (docs/architecture.md "Statistics").
    await tx.execute('select pg_advisory_xact_lock(?)', [STATS_LOCK_KEY]);
    // A batch's buckets are grouped in memory; the default 4 MB would spill a large batch to disk.
    await tx.execute(`set local work_mem = '64MB'`);
    // The batch as one bound jsonb parameter (boundSql: not inlined into the SQL text).
    const [r] = (await boundSql<{ counted: number; hour_rows: number; day_rows: number }>(tx, APPLY_SQL, [JSON.stringify(records)])).rows;
    return { counted: r.counted, rows: r.hour_rows + r.day_rows };
  });
}

