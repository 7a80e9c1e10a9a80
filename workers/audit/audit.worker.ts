import { eventConsumer } from '../pipeline/consumer-runner';
import type { WorkerKindCode } from '../pipeline/worker-kind';
import { auditRecordsOf } from './audit-names';
import { writeAuditRecords } from './write-audit.use-case';

/** Worker kind `audit`: the consumer `audit` writes each batch's audit records (their messages naming employees and walls) in one insert. */
export const auditKind: WorkerKindCode = {
  consumers: [eventConsumer('audit', async (events, tx) => void (await writeAuditRecords(tx, await auditRecordsOf(tx, events))))],
};
