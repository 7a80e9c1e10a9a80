import type { SqlDatabase } from '../../shared/db/named-sql';
import type { Runtime } from '../../shared/runtime/runtime';
import { startEventConsumer } from '../../shared/queue/event-batch';
import { applyStatsEvents, type ApplyResult, type StatsEvent } from './apply-events.use-case';

/**
 * One batch of committed events applied to the roll-ups. Idempotent, so the fan-out may deliver an
 * event again after a crash (at-least-once) and in any order.
 */
export async function handleStatsJob(db: SqlDatabase, events: readonly StatsEvent[]): Promise<ApplyResult> {
  return applyStatsEvents(db, events);
}

/**
 * Worker kind `stats`: the statistics consumer of the outbox fan-out. Each job is one relay batch
 * (`stats.batch`, refused commands included), applied in one statement; stats_counted_event makes an
 * event delivered again a no-op. A batch with a bad event is applied one event at a time
 * (shared/queue/event-batch.ts).
 */
export async function startStatsWorker(runtime: Runtime): Promise<void> {
  const { ormSql } = runtime;
  // One batch at a time: applying takes the statistics lock anyway.
  await startEventConsumer(runtime, 'stats', (events) => handleStatsJob(ormSql, events), { concurrency: 1, name: 'statistics worker' });
}
