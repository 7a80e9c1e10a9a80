import type { Runtime } from '../../shared/runtime/runtime';
import { failedJobRecorder } from '../../shared/queue/failed-job';
import { startJobWorker } from '../../shared/queue/job-queue';
import type { WallEvent } from '../../shared/events/channels';
import { createJobBatcher } from '../../shared/queue/job-batcher';
import { toAuditRecord, type AuditRecord } from './audit-record';
import { writeAuditRecords } from './write-audit.use-case';

/**
 * Worker kind `audit`: one audit_log record per committed event, refused commands included
 * (`command.refused`, isError). Takes many jobs at once and writes them in batches; an event recorded
 * before (a job delivered twice) is ignored by its id.
 */
export async function startAuditWorker(runtime: Runtime): Promise<void> {
  const { config, log, orm } = runtime;
  const batcher = createJobBatcher<AuditRecord>((records) => writeAuditRecords(orm.em.fork(), records), {
    size: config.AUDIT_BATCH_SIZE,
    waitMs: config.AUDIT_BATCH_WAIT_MS,
    log,
  });
  const worker = await startJobWorker(
    runtime.queueSettings,
    'audit',
    { 'audit.record': ({ event }) => batcher.add(toAuditRecord(event as WallEvent)) },
    // Enough jobs in flight to fill a batch.
    { log, recordFailure: failedJobRecorder(() => orm.em.fork()), concurrency: Math.max(config.AUDIT_BATCH_SIZE, 1) },
  );
  log.info({ batchSize: config.AUDIT_BATCH_SIZE, batchWaitMs: config.AUDIT_BATCH_WAIT_MS }, 'audit worker started');
  runtime.onClose('audit worker', () => worker.close());
}
