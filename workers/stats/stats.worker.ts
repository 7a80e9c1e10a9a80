import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../../shared/db/orm';
import { applyStatsEvents, type ApplyResult, type StatsEvent } from './apply-events.use-case';

/**
 * The statistics worker's job: one batch of outbox events handed over by the fan-out. Idempotent, so
 * the fan-out may deliver a batch again after a crash (at-least-once) and in any order.
 */
export async function handleStatsJob(em: EntityManager, events: readonly StatsEvent[]): Promise<ApplyResult> {
  return applyStatsEvents(em.fork(), events);
}

/** `handleStatsJob` bound to a process's ORM: the `(events) => ...` consumer the fan-out registers. */
export function statsJobHandler(orm: Orm): (events: readonly StatsEvent[]) => Promise<ApplyResult> {
  return (events) => handleStatsJob(orm.em, events);
}
