import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditKind, AuditLogColumns } from '../../../../shared/db/entities/audit-log.entity';
import type { AuditLogDto } from './audit-log.dto';

/** Which records a listing shows; every field is optional except the client and count. */
export interface AuditFilter {
  /** The record kinds of the listing (absent: every kind). */
  kinds?: readonly AuditKind[];
  from?: Date;
  to?: Date;
  since?: Date;
  count: number;
  wallId?: number;
  warehouseId?: number;
  userId?: number;
  orderId?: number;
  picklistId?: number;
  crc?: string;
  barcode?: string;
  errors?: boolean;
  licensePlates?: boolean;
  /** One order's stay in a slot: from this instant up to the slot's next release. */
  orderSortId?: Date;
}

interface Row extends AuditLogColumns {
  id: string | number;
  occurred_at: Date;
  data: Record<string, unknown>;
}

// Kinds are constants, written into the SQL as literals so the planner can match partial indexes.
const kindList = (kinds: readonly AuditKind[]) => kinds.map((k) => `'${k.replace(/'/g, "''")}'`).join(', ');

/**
 * Lists audit records of one client: newest first, or with `since` the oldest after it first
 * (a reader catching up). Each filter is one condition; the indexes of Migration20261123030000
 * let every listing read one index range in order.
 */
export async function listAuditLogs(em: EntityManager, clientId: number, f: AuditFilter): Promise<AuditLogDto[]> {
  if (f.count === 0) return [];
  const where: string[] = ['a.client_id = ?'];
  const params: unknown[] = [clientId];
  const add = (sql: string, ...values: unknown[]) => {
    where.push(sql);
    params.push(...values);
  };
  let kinds = f.kinds;
  if (f.licensePlates === true) kinds = (kinds ?? ['license-plate']).filter((k) => k === 'license-plate');
  if (f.licensePlates === false) kinds = kinds?.filter((k) => k !== 'license-plate');
  if (kinds && kinds.length === 0) return [];
  if (kinds) where.push(kinds.length === 1 ? `a.kind = ${kindList(kinds)}` : `a.kind in (${kindList(kinds)})`);
  else if (f.licensePlates === false) where.push(`a.kind <> 'license-plate'`);
  if (f.from) add('a.occurred_at >= ?', f.from);
  if (f.to) add('a.occurred_at < ?', f.to);
  if (f.since) add('a.occurred_at > ?', f.since);
  if (f.wallId !== undefined) add('a.wall_id = ?', f.wallId);
  if (f.warehouseId !== undefined) add('a.warehouse_id = ?', f.warehouseId);
  if (f.userId !== undefined) add('a.user_id = ?', f.userId);
  if (f.orderId !== undefined) add('a.order_id = ?', f.orderId);
  if (f.picklistId !== undefined) add('a.picklist_id = ?', f.picklistId);
  if (f.crc !== undefined) add('a.crc = ?', f.crc);
  if (f.barcode !== undefined) add('a.barcode = ?', f.barcode);
  if (f.errors === true) where.push('a.is_error');
  if (f.errors === false) where.push('not a.is_error');
  if (f.orderSortId) {
    // The order sort that began at orderSortId in the record's slot ends with that slot's next release.
    // With the slot known, its end is looked up once (an init plan), not per record.
    const slot = f.crc !== undefined ? 'r.client_id = ? and r.crc = ?' : 'r.client_id = a.client_id and r.crc = a.crc';
    add(
      `a.occurred_at >= ? and a.crc is not null and a.occurred_at <= coalesce((
         select r.occurred_at from audit_log r
          where ${slot} and r.type = 'sort-box.released' and r.occurred_at >= ?
          order by r.occurred_at, r.id limit 1), 'infinity')`,
      f.orderSortId,
      ...(f.crc !== undefined ? [clientId, f.crc] : []),
      f.orderSortId,
    );
  }
  const order = f.since ? 'a.occurred_at asc, a.id asc' : 'a.occurred_at desc, a.id desc';
  const rows = await em.execute<Row[]>(
    `select a.id, a.occurred_at, a.type, a.wall_id, a.user_id, a.order_id, a.picklist_id, a.crc, a.barcode,
            a.sort_box_item_id, a.session_id, a.is_error, a.message, a.data
       from audit_log a where ${where.join(' and ')} order by ${order} limit ?`,
    [...params, f.count],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    occurredAt: new Date(r.occurred_at).toISOString(),
    type: r.type,
    wallId: r.wall_id,
    userId: r.user_id,
    orderId: r.order_id,
    picklistId: r.picklist_id,
    crc: r.crc,
    barcode: r.barcode,
    sortBoxItemId: r.sort_box_item_id,
    sessionId: r.session_id,
    isError: r.is_error,
    message: r.message,
    data: r.data ?? {},
  }));
}

/** A listing's query: the slot and item listings name the slot's crc `sortBoxCrc`. */
export type AuditQuery = Omit<AuditFilter, 'kinds'> & { sortBoxCrc?: string };

/** GET /audit-logs/sort-boxes, /sort-box-items, /sessions, /walls: the records of some kinds only. */
export function listAuditLogsOfKinds(em: EntityManager, clientId: number, kinds: readonly AuditKind[], query: AuditQuery): Promise<AuditLogDto[]> {
  const { sortBoxCrc, ...rest } = query;
  return listAuditLogs(em, clientId, { ...rest, crc: sortBoxCrc ?? rest.crc, kinds });
}

/** GET /audit-logs/sort-boxes/{crc}: one order's stay in one slot (from orderSortId to the next release), at most 1000 records. */
export function listSlotStayAuditLogs(
  em: EntityManager,
  clientId: number,
  crc: string,
  query: Pick<AuditFilter, 'orderSortId' | 'userId' | 'licensePlates'>,
): Promise<AuditLogDto[]> {
  return listAuditLogs(em, clientId, { count: 1000, crc, orderSortId: query.orderSortId, userId: query.userId, licensePlates: query.licensePlates });
}

/** The time of the client's oldest audit record; now when there is none yet (nothing is older). */
export async function initialAuditTimestamp(em: EntityManager, clientId: number): Promise<string> {
  const [row] = await em.execute<{ first: Date | null }[]>(
    'select min(occurred_at) as first from audit_log where client_id = ?',
    [clientId],
  );
  return (row?.first ? new Date(row.first) : new Date()).toISOString();
}
