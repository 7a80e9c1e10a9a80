import type { SqlDatabase } from '../../shared/db/named-sql';
import type { WallEvent } from '../../shared/events/channels';
import { STATS_LOCK_KEY } from './rollup-sql';
import { applyStatsBatch, lockStatsForBatch } from './stats.queries';

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
export async function applyStatsEvents(db: SqlDatabase, events: readonly StatsEvent[]): Promise<ApplyResult> {
  if (events.length === 0) return { counted: 0, rows: 0 };
  const records = events.map(toRecord);
  return db.transaction(async (tx) => {
    await lockStatsForBatch(tx, { lockKey: STATS_LOCK_KEY });
    // The batch as one bound jsonb parameter, never inlined into the SQL text.
    const [r] = await applyStatsBatch(tx, { events: JSON.stringify(records) });
    return { counted: r.counted, rows: r.hour_rows + r.day_rows };
  });
}

