import type { EntityManager } from '@mikro-orm/postgresql';
import type { SqlRunner } from '../../shared/db/named-sql';
import type { Logger } from '../../shared/logging/logger';
import type { Runtime } from '../../shared/runtime/runtime';
import type { WallEvent } from '../../shared/events/channels';
import { writeEventBatch } from '../../shared/queue/event-batch';
import { failedJobRecorder } from '../../shared/queue/failed-job';
import { startJobWorker } from '../../shared/queue/job-queue';
import { toAuditRecord } from './audit-record';
import { writeAuditRecords } from './write-audit.use-case';

/**
 * The `audit.batch` handler: the batch's records in one insert on `db` (runtime.ormSql), or one at a
 * time if that fails (`em`: the database check of writeEventBatch).
 */
export const auditBatchHandler =
  (db: SqlRunner, em: () => EntityManager, log: Logger) =>
  ({ events }: { events: unknown[] }): Promise<void> =>
    writeEventBatch(events as WallEvent[], (list) => writeAuditRecords(db, list.map(toAuditRecord)), { em, log, consumer: 'audit' });

/**
 * Worker kind `audit`: one audit_log record per committed event, refused commands included
 * (`command.refused`, isError). Each job is one relay batch (`audit.batch`), written in one insert; an
 * event recorded before (a batch delivered twice, or claimed again after a relay crash) is ignored by
 * its id. A batch with a bad event is written one event at a time (shared/queue/event-batch.ts).
 */
export async function startAuditWorker(runtime: Runtime): Promise<void> {
  const { log, orm, ormSql } = runtime;
  const em = () => orm.em.fork();
  const worker = await startJobWorker(
    runtime.queueSettings,
    'audit',
    { 'audit.batch': auditBatchHandler(ormSql, em, log) },
    // A second batch in flight while the first is written.
    { log, recordFailure: failedJobRecorder(em), concurrency: 2 },
  );
  log.info('audit worker started');
  runtime.onClose('audit worker', () => worker.close());
}
