import type { SqlRunner } from '../../shared/db/named-sql';
import type { AuditRecord } from './audit-record';
import { insertAuditRecords } from './audit.queries';

/** Writes audit records in one insert; returns how many were new. */
export async function writeAuditRecords(db: SqlRunner, records: AuditRecord[]): Promise<number> {
  if (records.length === 0) return 0;
  const unique = [...new Map(records.map((r) => [r.event_id, r])).values()];
  const [{ inserted }] = await insertAuditRecords(db, { records: JSON.stringify(unique) });
  return inserted;
}
