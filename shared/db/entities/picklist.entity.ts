import { defineEntity, type InferEntity } from '@mikro-orm/core';

export const PICKLIST_STATUSES = ['Open', 'Closed'] as const;
export type PicklistStatus = (typeof PICKLIST_STATUSES)[number];

export const Picklist = defineEntity({
  name: 'Picklist',
  tableName: 'picklist',
  primaryKeys: ['clientId', 'id'],
  properties: (p) => ({
    clientId: p.integer().primary(),
    id: p.integer().primary(),
    status: p.text().$type<PicklistStatus>(),
    updatedAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type IPicklist = InferEntity<typeof Picklist>;

export const PicklistOrder = defineEntity({
  name: 'PicklistOrder',
  // A write moves the version of the walls holding the rows (WALL_VERSIONED_TABLES, ./wall-versions.ts).
  tableName: 'picklist_order',
  primaryKeys: ['clientId', 'picklistId', 'orderId'],
  properties: (p) => ({
    clientId: p.integer().primary(),
    picklistId: p.integer().primary(),
    orderId: p.integer().primary(),
  }),
});
export type IPicklistOrder = InferEntity<typeof PicklistOrder>;
