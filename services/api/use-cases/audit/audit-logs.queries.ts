import { query, queryVariants } from '../../../../shared/db/named-sql';
import type { AuditKind, AuditLogColumns } from '../../../../shared/db/entities/audit-log.entity';

/*
 * The audit listings (docs/architecture.md, "Audit worker and the audit logs"). Each filter is one
 * condition; the indexes of Migration20261123030000 let every listing read one index range in order.
 */

/** Which conditions a listing has: the shape of its statement. */
export interface AuditListShape {
  /** The kinds listed (absent: every kind), written into the SQL as literals so the planner can match partial indexes. */
  kinds?: readonly AuditKind[];
  /** Every kind but license plates. */
  notLicensePlates: boolean;
  from: boolean;
  to: boolean;
  since: boolean;
  wallId: boolean;
  warehouseId: boolean;
  userId: boolean;
  orderId: boolean;
  picklistId: boolean;
  crc: boolean;
  barcode: boolean;
  errors?: boolean;
  orderSortId: boolean;
}

/** The values of a listing's conditions (only those of its shape are bound). */
export interface AuditListParams {
  clientId: number;
  count: number;
  from?: Date;
  to?: Date;
  since?: Date;
  wallId?: number;
  warehouseId?: number;
  userId?: number;
  orderId?: number;
  picklistId?: number;
  crc?: string;
  barcode?: string;
  /** One order's stay in a slot: from this instant up to the slot's next release. */
  orderSortId?: Date;
}

export interface AuditLogRow extends AuditLogColumns {
  id: string | number;
  occurred_at: Date;
  data: Record<string, unknown>;
}

const FLAGS = ['notLicensePlates', 'from', 'to', 'since', 'wallId', 'warehouseId', 'userId', 'orderId', 'picklistId', 'crc', 'barcode', 'orderSortId'] as const;
const shapeKey = (s: AuditListShape) =>
  `${s.kinds ? s.kinds.join('+') : 'all'}:${FLAGS.map((f) => (s[f] ? '1' : '0')).join('')}:${s.errors === undefined ? '-' : s.errors ? 'e' : 'n'}`;

const kindList = (kinds: readonly AuditKind[]) => kinds.map((k) => `'${k.replace(/'/g, "''")}'`).join(', ');

function auditWhere(s: AuditListShape): string {
  const where = ['a.client_id = :clientId::int'];
  if (s.kinds) where.push(s.kinds.length === 1 ? `a.kind = ${kindList(s.kinds)}` : `a.kind in (${kindList(s.kinds)})`);
  else if (s.notLicensePlates) where.push(`a.kind <> 'license-plate'`);
  if (s.from) where.push('a.occurred_at >= :from::timestamptz');
  if (s.to) where.push('a.occurred_at < :to::timestamptz');
  if (s.since) where.push('a.occurred_at > :since::timestamptz');
  if (s.wallId) where.push('a.wall_id = :wallId::int');
  if (s.warehouseId) where.push('a.warehouse_id = :warehouseId::int');
  if (s.userId) where.push('a.user_id = :userId::int');
  if (s.orderId) where.push('a.order_id = :orderId::int');
  if (s.picklistId) where.push('a.picklist_id = :picklistId::int');
  if (s.crc) where.push('a.crc = :crc::text');
  if (s.barcode) where.push('a.barcode = :barcode::text');
  if (s.errors === true) where.push('a.is_error');
  if (s.errors === false) where.push('not a.is_error');
  if (s.orderSortId) {
    // The order sort that began at orderSortId in the record's slot ends with that slot's next release.
    // With the slot known, its end is looked up once (an init plan), not per record.
    const slot = s.crc ? 'r.client_id = :clientId::int and r.crc = :crc::text' : 'r.client_id = a.client_id and r.crc = a.crc';
    where.push(`a.occurred_at >= :orderSortId::timestamptz and a.crc is not null and a.occurred_at <= coalesce((
         select r.occurred_at from audit_log r
          where ${slot} and r.type = 'sort-box.released' and r.occurred_at >= :orderSortId::timestamptz
          order by r.occurred_at, r.id limit 1), 'infinity')`);
  }
  return where.join(' and ');
}

/** Up to :count records of one client: newest first, or with `since` the oldest after it first (a reader catching up). */
export const auditLogList = queryVariants<AuditListShape, AuditListParams, AuditLogRow>('audit-log-list', shapeKey, (s) => `
select a.id, a.occurred_at, a.type, a.wall_id, a.user_id, a.order_id, a.picklist_id, a.crc, a.barcode,
       a.sort_box_item_id, a.session_id, a.is_error, a.message, a.data
  from audit_log a where ${auditWhere(s)} order by ${s.since ? 'a.occurred_at asc, a.id asc' : 'a.occurred_at desc, a.id desc'} limit :count::int`);

/** The time of the client's oldest audit record. */
export const firstAuditTime = query<{ clientId: number }, { first: Date | null }>('audit-log-first', `
select min(occurred_at) as first from audit_log where client_id = :clientId::int`);
