import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { OrderPriority } from '../../domain/priority';

export interface ShipTo {
  name: string;
  street1: string;
  street2?: string | null;
  city: string;
  state?: string | null;
  postalCode: string;
  country: string;
}
export const ORDER_STATUSES = ['Unshipped', 'Shipped'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const Order = defineEntity({
  name: 'Order',
  // A write moves the version of the walls holding the rows (WALL_VERSIONED_TABLES, ./wall-versions.ts).
  tableName: 'orders',
  primaryKeys: ['clientId', 'id'],
  properties: (p) => ({
    clientId: p.integer().primary(),
    id: p.integer().primary(),
    warehouseId: p.integer(),
    orderDate: p.datetime(),
    priority: p.text().$type<OrderPriority>().default('Normal'),
    /** Derived from priority, stored so the scan path can sort candidates in SQL. */
    priorityRank: p.smallint().default(1),
    isDropShip: p.boolean().default(false),
    status: p.text().$type<OrderStatus>().default('Unshipped'),
    shipTo: p.json<ShipTo>(),
    shippedAt: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    updatedAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type IOrder = InferEntity<typeof Order>;

/**
 * One line of an order. pendingQty counts units scanned but not yet confirmed, so that
 * "required - confirmed - pending" is a column expression the scan path can index.
 */
export const OrderItem = defineEntity({
  name: 'OrderItem',
  // A write moves the version of the walls holding the rows (WALL_VERSIONED_TABLES, ./wall-versions.ts).
  tableName: 'order_item',
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    clientId: p.integer(),
    orderId: p.integer(),
    sku: p.text(),
    qty: p.integer(),
    confirmedQty: p.integer().default(0),
    pendingQty: p.integer().default(0),
    bins: p.array().columnType('text[]').default('{}'),
  }),
});
export type IOrderItem = InferEntity<typeof OrderItem>;
