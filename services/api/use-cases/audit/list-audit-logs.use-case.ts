import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditKind } from '../../../../shared/db/entities/audit-log.entity';
import { emSql } from '../../../../shared/db/orm-sql';
import type { AuditLogDto } from './audit-log.dto';
import { auditLogList, firstAuditTime, type AuditListParams, type AuditListShape } from './audit-logs.queries';

/** Which records a listing shows: the values of its conditions, and which kinds; every field is optional except the count. */
export interface AuditFilter extends Omit<AuditListParams, 'clientId'> {
  /** The record kinds of the listing (absent: every kind). */
  kinds?: readonly AuditKind[];
  errors?: boolean;
  licensePlates?: boolean;
}

/**
 * Lists audit records of one client: newest first, or with `since` the oldest after it first
 * (a reader catching up). Each filter is one condition of the listing's statement (audit-logs.queries.ts).
 */
export async function listAuditLogs(em: EntityManager, clientId: number, f: AuditFilter): Promise<AuditLogDto[]> {
  if (f.count === 0) return [];
  let kinds = f.kinds;
  if (f.licensePlates === true) kinds = (kinds ?? ['license-plate']).filter((k) => k === 'license-plate');
  if (f.licensePlates === false) kinds = kinds?.filter((k) => k !== 'license-plate');
  if (kinds && kinds.length === 0) return [];
  const has = (v: unknown) => v !== undefined;
  const shape: AuditListShape = {
    kinds,
    notLicensePlates: !kinds && f.licensePlates === false,
    from: !!f.from,
    to: !!f.to,
    since: !!f.since,
    wallId: has(f.wallId),
    warehouseId: has(f.warehouseId),
    userId: has(f.userId),
    orderId: has(f.orderId),
    picklistId: has(f.picklistId),
    crc: has(f.crc),
    barcode: has(f.barcode),
    errors: f.errors,
    orderSortId: !!f.orderSortId,
  };
  // The statement binds the values its shape names and no others.
  const rows = await auditLogList(emSql(em), shape, { ...f, clientId });
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
  const [row] = await firstAuditTime(emSql(em), { clientId });
  return (row?.first ? new Date(row.first) : new Date()).toISOString();
}
