import type { SqlDatabase } from '../../shared/db/named-sql';
import { toWallEvent, type OutboxEventRow, type WallEvent } from '../../shared/events/channels';
import { STATS_LOCK_KEY } from './rollup-sql';
import { applyStatsBatch, lockStatsForBatch } from './stats.queries';

export type { OutboxEventRow };

/** A batch's event: as consumers receive it, or as an outbox row (snake case: the tests and the bench read those). */
export type StatsEvent = WallEvent | OutboxEventRow;

/** The shape applyStatsBatch reads (jsonb_to_recordset). */
function toRecord(e: StatsEvent) {
  const w = 'event_id' in e ? toWallEvent(e) : e;
  return { event_id: w.id, client_id: w.clientId, wall_id: w.wallId, type: w.type, occurred_at: new Date(w.occurredAt).toISOString(), data: w.data };
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

