import type { SqlDatabase, SqlRunner } from '../../shared/db/named-sql';
import { toWallEvent, type OutboxEventRow, type WallEvent } from '../../shared/events/channels';
import { STATS_LOCK_KEY } from '../../shared/statistics/rollup.queries';
import { applyStatsBatch, applyStatsRange, lockStatsForBatch } from './stats.queries';

export type { OutboxEventRow };

/** A batch's event: as consumers receive it, or as an outbox row (snake case: the bench reads those). */
export type StatsEvent = WallEvent | OutboxEventRow;

/** The shape applyStatsBatch reads (jsonb_to_recordset). */
function toRecord(e: StatsEvent) {
  const w = 'event_id' in e ? toWallEvent(e) : e;
  return { event_id: w.id, client_id: w.clientId, wall_id: w.wallId, type: w.type, occurred_at: new Date(w.occurredAt).toISOString(), data: w.data };
}

export interface ApplyResult {
  /** Events of the batch that count (of a type that changes a counter). */
  counted: number;
  /** Roll-up rows written (hour and day buckets). */
  rows: number;
}

/**
 * The statistics consumer's batch: adds the relayed events in (after, through] to the roll-ups, in the
 * consumer's transaction `tx` (which moves its position: each event is counted once). Every counter is a
 * sum of per-event values bucketed by the event's own instant, so the order of events does not matter.
 */
export async function applyStatsEventRange(tx: SqlRunner, range: { after: string; through: string }): Promise<ApplyResult> {
  await lockStatsForBatch(tx, { lockKey: STATS_LOCK_KEY });
  const [r] = await applyStatsRange(tx, range);
  return { counted: r.counted, rows: r.hour_rows + r.day_rows };
}

/**
 * Adds the given events to the roll-ups, each as many times as it is given (the caller hands each over
 * once): the same SQL as the consumer over events held in memory, for the bench's consumer rate.
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
