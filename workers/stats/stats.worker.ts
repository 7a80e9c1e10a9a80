import type { EntityManager } from '@mikro-orm/postgresql';
import { applyStatsEvents, type ApplyResult, type StatsEvent } from './apply-events.use-case';

/**
 * The statistics worker's job: one batch of outbox events handed over by the fan-out. Idempotent, so
 * the fan-out may deliver a batch again after a crash (at-least-once) and in any order.
 */
export async function handleStatsJob(em: EntityManager, events: readonly StatsEvent[]): Promise<ApplyResult> {
  return applyStatsEvents(em.fork(), events);
}
