import type { EntityManager } from '@mikro-orm/postgresql';
import type { SqlRunner } from '../../shared/db/named-sql';
import type { Logger } from '../../shared/logging/logger';
import type { Runtime } from '../../shared/runtime/runtime';
import type { WallEvent } from '../../shared/events/channels';
import { eventBatchHandler, startEventConsumer } from '../../shared/queue/event-batch';
import { auditRecordsOf } from './audit-names';
import { writeAuditRecords } from './write-audit.use-case';

/** The batch's records (their names read in one statement) in one insert on `db` (runtime.ormSql). */
const writeAudit = (db: SqlRunner) => async (events: readonly WallEvent[]) => writeAuditRecords(db, await auditRecordsOf(db, events));

/**
 * The `audit.batch` handler: the batch's records in one insert on `db`, or one at a time if that
 * fails (`em`: the database check of writeEventBatch).
 */
export const auditBatchHandler = (db: SqlRunner, em: () => EntityManager, log: Logger) => eventBatchHandler('audit', writeAudit(db), { em, log });

/**
 * Worker kind `audit`: one audit_log record per committed event, refused commands included
 * (`command.refused`, isError). Each job is one relay batch (`audit.batch`), written in one insert; an
 * event recorded before (a batch delivered twice, or claimed again after a relay crash) is ignored by
 * its id. A batch with a bad event is written one event at a time (shared/queue/event-batch.ts).
 */
export async function startAuditWorker(runtime: Runtime): Promise<void> {
  // A second batch in flight while the first is written.
  await startEventConsumer(runtime, 'audit', writeAudit(runtime.ormSql), { concurrency: 2, name: 'audit worker' });
}
