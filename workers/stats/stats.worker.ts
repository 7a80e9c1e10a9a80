import type { EntityManager } from '@mikro-orm/postgresql';
import type { Runtime } from '../../shared/runtime/runtime';
import type { WallEvent } from '../../shared/events/channels';
import { failedJobRecorder } from '../../shared/queue/failed-job';
import { createJobBatcher } from '../../shared/queue/job-batcher';
import { startJobWorker } from '../../shared/queue/job-queue';
import { applyStatsEvents, type ApplyResult, type StatsEvent } from './apply-events.use-case';

/**
 * One batch of committed events applied to the roll-ups. Idempotent, so the fan-out may deliver an
 * event again after a crash (at-least-once) and in any order.
 */
export async function handleStatsJob(em: EntityManager, events: readonly StatsEvent[]): Promise<ApplyResult> {
  return applyStatsEvents(em.fork(), events);
}

/**
 * Worker kind `stats`: the statistics consumer of the outbox fan-out (one `stats.record` job per
 * event, refused commands included). Takes many jobs at once and applies them in batches, like the
 * audit worker, with the audit worker's batch settings.
 */
export async function startStatsWorker(runtime: Runtime): Promise<void> {
  const { config, log, orm } = runtime;
  const batcher = createJobBatcher<WallEvent>((events) => handleStatsJob(orm.em, events), {
    size: config.AUDIT_BATCH_SIZE,
    waitMs: config.AUDIT_BATCH_WAIT_MS,
    log,
  });
  const worker = await startJobWorker(
    runtime.queueSettings,
    'stats',
    { 'stats.record': ({ event }) => batcher.add(event as WallEvent) },
    { log, recordFailure: failedJobRecorder(() => orm.em.fork()), concurrency: Math.max(config.AUDIT_BATCH_SIZE, 1) },
  );
  log.info({ batchSize: config.AUDIT_BATCH_SIZE }, 'statistics worker started');
  runtime.onClose('statistics worker', () => worker.close());
}
