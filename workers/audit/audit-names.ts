import type { SqlRunner } from '../../shared/db/named-sql';
import type { WallEvent } from '../../shared/events/channels';
import type { TypedWallEvent } from '../../shared/events/event-schemas';
import { NO_AUDIT_NAMES, toAuditRecord, type AuditNames, type AuditRecord } from './audit-record';
import { selectAuditNames } from './audit.queries';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const id = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 2147483647 ? v : null);

/** The employees and walls the events of a batch name by id (the people and walls of their messages). */
function namedIds(events: readonly WallEvent[]): { employeeIds: number[]; wallIds: number[] } {
  const employees = new Set<number>();
  const walls = new Set<number>();
  for (const e of events) {
    const d = obj(e.data);
    for (const v of [obj(d.item).userId, obj(d.session).userId, d.userId]) {
      const n = id(v);
      if (n !== null) employees.add(n);
    }
    const wall = id(e.wallId);
    if (wall !== null) walls.add(wall);
  }
  return { employeeIds: [...employees], wallIds: [...walls] };
}

/** The names of a batch's employees and walls, in one statement (none when the batch names nobody). */
export async function auditNamesFor(db: SqlRunner, events: readonly WallEvent[]): Promise<AuditNames> {
  const ids = namedIds(events);
  if (!ids.employeeIds.length && !ids.wallIds.length) return NO_AUDIT_NAMES;
  const employees = new Map<number, string>();
  const walls = new Map<number, string>();
  const warehouses = new Map<number, { clientId: number; warehouseId: number | null }>();
  for (const r of await selectAuditNames(db, ids)) {
    if (r.kind === 'employee') employees.set(r.id, r.name);
    else {
      walls.set(r.id, r.name);
      warehouses.set(r.id, { clientId: Number(r.client_id), warehouseId: r.warehouse_id });
    }
  }
  return { employees, walls, warehouses };
}

/** A batch's audit records, their messages naming employees and walls (docs/api.md §9, Audit logs). */
export async function auditRecordsOf(db: SqlRunner, events: readonly TypedWallEvent[]): Promise<AuditRecord[]> {
  const names = await auditNamesFor(db, events);
  return events.map((e) => toAuditRecord(e, names));
}
