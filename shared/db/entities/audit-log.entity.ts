import { defineEntity, type InferEntity } from '@mikro-orm/core';

export const AUDIT_KINDS = ['wall', 'sort-box', 'sort-box-item', 'session', 'license-plate', 'other'] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

/** The columns of an audit_log row that the worker writes and the listings read, under their SQL names. */
export interface AuditLogColumns {
  type: string;
  wall_id: number | null;
  user_id: number | null;
  order_id: number | null;
  picklist_id: number | null;
  crc: string | null;
  barcode: string | null;
  sort_box_item_id: number | null;
  session_id: number | null;
  is_error: boolean;
  message: string;
}

export const AuditLog = defineEntity({
  name: 'AuditLog',
  tableName: 'audit_log',
  properties: (p) => ({
    id: p.bigint('number').primary().autoincrement(),
    clientId: p.integer(),
    eventId: p.uuid().nullable(),
    occurredAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    type: p.text(),
    kind: p.text().$type<AuditKind>(),
    wallId: p.integer().nullable(),
    warehouseId: p.integer().nullable(),
    userId: p.integer().nullable(),
    orderId: p.integer().nullable(),
    picklistId: p.integer().nullable(),
    crc: p.text().nullable(),
    barcode: p.text().nullable(),
    sortBoxItemId: p.integer().nullable(),
    sessionId: p.integer().nullable(),
    isError: p.boolean().default(false),
    isLicensePlate: p.boolean().default(false),
    message: p.text(),
    data: p.json<Record<string, unknown>>().default('{}'),
  }),
});
export type IAuditLog = InferEntity<typeof AuditLog>;
